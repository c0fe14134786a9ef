import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `imgtool resize` end to end: which size a JPEG is decoded at.
@Suite("Resize from the command line", .timeLimit(.minutes(5)))
struct ResizeCLITests {
    static let samples = InputKindsCLITests.samples

    /// The RGBA samples of a still image file.
    private func pixels(_ path: String) throws -> [UInt8] {
        let source = try ImageSource(contentsOf: path)
        let frame = try #require(try source.makeFrameReader(depth: .eight).nextFrame())
        return try #require(frame.image.rgba8)
    }

    @Test("A JPEG is decoded at full size for a resize, at a reduced DCT scale for a thumbnail")
    func jpegDecodeSize() throws {
        let folder = try makeTemporaryFolder("resize")
        // 320x200 to 40 wide: an eighth, so a 1/8 DCT decode would reach the output size itself.
        let convert = try CLIRunner.run(["convert", Self.samples + "/background.png", "photo.jpg"], in: folder)
        #expect(convert.status == 0, "\(convert.stderr)")
        let full = try CLIRunner.run(["convert", "photo.jpg", "full.png"], in: folder)
        #expect(full.status == 0, "\(full.stderr)")
        for (input, output) in [("photo.jpg", "exact.png"), ("full.png", "reference.png")] {
            let run = try CLIRunner.run(["resize", input, output, "--width", "40"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
        }
        // The exact resize of the JPEG is the resize of its full-size decode, sample for sample.
        let reference = try pixels(folder + "/reference.png")
        #expect(try pixels(folder + "/exact.png") == reference)

        // The thumbnail is filtered from a smaller decode (160x100, four times the output): the same
        // picture, not the same samples.
        let thumbnail = try CLIRunner.run(["resize", "photo.jpg", "thumb.png", "--size", "40"], in: folder)
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let fast = try pixels(folder + "/thumb.png")
        #expect(fast.count == reference.count && fast != reference)
        let meanError = Double(zip(fast, reference).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(fast.count)
        #expect(meanError < 3, "mean difference \(meanError)")
    }
}
