import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs of `imgtool convert`.
@Suite("imgtool convert (end to end)", .timeLimit(.minutes(5)))
struct ConvertCLITests {
    static let spinner = MergeCLITests.sample("spinner.gif")

    /// Every composited frame of `path`, 8-bit.
    static func frames(_ path: String) throws -> [PixelBuffer] {
        let reader = try ImageSource(contentsOf: path).makeFrameReader(depth: .eight)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return frames
    }

    @Test("A GIF becomes an APNG with the same frames, delays and plays; --loops changes the plays")
    func gifToAPNG() throws {
        let folder = try makeTemporaryFolder("convert")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["convert", Self.spinner, "spinner.png"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty && run.stderr.isEmpty)
        let converted = try ImageSource(contentsOf: folder + "/spinner.png").info
        let original = try ImageSource(contentsOf: Self.spinner).info
        #expect(converted.format == .apng && converted.colorType == .palette)
        #expect(converted.frames.map(\.delay) == original.frames.map(\.delay) && converted.plays == original.plays)
        #expect(try Self.frames(folder + "/spinner.png") == (try Self.frames(Self.spinner)))

        let again = try CLIRunner.run(["convert", Self.spinner, "spinner.png"], in: folder)
        #expect(again.status == 1)
        #expect(again.stderr == "error: spinner.png: already exists; pass --force to replace it\n")
        let looped = try CLIRunner.run(["convert", Self.spinner, "spinner.png", "--loops", "2", "--force"], in: folder)
        #expect(looped.status == 0, "\(looped.stderr)")
        #expect(try ImageSource(contentsOf: folder + "/spinner.png").info.plays == 2)
    }

    @Test("Bad input fails with the input named and writes nothing; usage errors exit 64")
    func failures() throws {
        let folder = try makeTemporaryFolder("convert-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("GIF89a-not-really".utf8).write(to: URL(fileURLWithPath: folder + "/bad.gif"))
        let bad = try CLIRunner.run(["convert", "bad.gif", "out.png"], in: folder)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("error: bad.gif: "), "\(bad.stderr)")
        let missing = try CLIRunner.run(["convert", "missing.gif", "out.png"], in: folder)
        #expect(missing.status == 1 && missing.stderr.hasPrefix("error: missing.gif: no such file"))
        try writeTestPNG(TestImages.gradient(width: 4, height: 4), to: folder + "/still.png")
        let same = try CLIRunner.run(["convert", "still.png", "./still.png", "--force"], in: folder)
        #expect(same.status == 1 && same.stderr.contains("is also an input"))
        for arguments in [
            ["convert", "still.png", "out.xyz"], ["convert", "still.png", "out.png", "--depth", "12"],
            ["convert", "still.png"],
        ] {
            #expect(try CLIRunner.run(arguments, in: folder).status == 64, "\(arguments)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["bad.gif", "still.png"])
    }

    @Test("- writes to standard output")
    func standardOutput() throws {
        let run = try CLIRunner.run(["convert", Self.spinner, "-"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ImageSource(data: run.output, name: "stdout").info.frameCount == 24)
    }
}
