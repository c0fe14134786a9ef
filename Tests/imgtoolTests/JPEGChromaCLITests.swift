import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `--chroma`, end to end: the sampling factors in the written file's frame header.
@Suite("imgtool JPEG chroma, end to end", .timeLimit(.minutes(5)))
struct JPEGChromaCLITests {
    /// Luma's sampling factors in the frame header: 0x22 for 4:2:0, 0x21 for 4:2:2, 0x11 for 4:4:4.
    static func lumaSampling(_ path: String) throws -> UInt8? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let sof = bytes.indices.first(where: { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) })
        else { return nil }
        return bytes[sof + 11]
    }

    @Test("4:2:0 below quality 90 and 4:4:4 from 90 by default; --chroma wins")
    func chroma() throws {
        let folder = try makeTemporaryFolder("chroma")
        try writeTestPNG(TestImages.noise8(width: 40, height: 24, seed: 5), to: folder + "/in.png")
        let cases: [([String], UInt8)] = [
            ([], 0x22), (["--quality", "89"], 0x22), (["--quality", "90"], 0x11),
            (["--chroma", "444"], 0x11), (["--quality", "95", "--chroma", "420"], 0x22),
            (["--chroma", "422", "--progressive"], 0x21),
        ]
        for (index, (options, factors)) in cases.enumerated() {
            let result = try CLIRunner.run(["convert", "in.png", "\(index).jpg"] + options, in: folder)
            #expect(result.status == 0, "\(options): \(result.stderr)")
            #expect(try Self.lumaSampling(folder + "/\(index).jpg") == factors, "\(options)")
        }
        #expect(try CLIRunner.run(["convert", "in.png", "x.jpg", "--chroma", "411"], in: folder).status == 64)
    }
}
