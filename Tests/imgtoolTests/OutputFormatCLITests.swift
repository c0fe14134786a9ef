import Foundation
import ImgToolKit
import TestSupport
import Testing

/// The output format follows the extension or --format, through the codec registry.
@Suite("Output formats from the registry", .timeLimit(.minutes(5)))
struct OutputFormatCLITests {
    static let samples = InputKindsCLITests.samples

    @Test("formats --json lists each format with what it can do")
    func formatsList() throws {
        let run = try CLIRunner.run(["formats", "--json"])
        #expect(run.status == 0)
        let objects = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let byFormat = Dictionary(uniqueKeysWithValues: objects.map { ($0["format"] as? String ?? "", $0) })
        for format in ["png", "apng", "gif", "jpeg"] { #expect(byFormat[format] != nil, "\(format)") }
        #expect(byFormat["png"]?["write_animation"] as? Bool == true)
        #expect(byFormat["jpeg"]?["write_animation"] as? Bool == false)
        #expect(byFormat["jpeg"]?["write_alpha"] as? Bool == false)
    }

    @Test("An extension nobody writes is a usage error listing the formats that can be written")
    func unknownExtension() throws {
        let folder = try makeTemporaryFolder("formats")
        let run = try CLIRunner.run(["convert", Self.samples + "/background.png", "out.xyz"], in: folder)
        #expect(run.status == 64)
        #expect(run.stderr.contains("out.xyz: imgtool cannot write .xyz files; it writes png, apng"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.xyz"))
    }

    @Test("An animation written as JPEG is a usage error naming the formats that hold animations")
    func animationToStill() throws {
        let folder = try makeTemporaryFolder("formats")
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "out.jpg"], in: folder)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("JPEG holds one image, and the result has 24 frames; write png, apng"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.jpg"))
    }

    @Test("Transparency written as JPEG is flattened onto the background, with a note")
    func flattenedAlpha() throws {
        let folder = try makeTemporaryFolder("formats")
        let run = try CLIRunner.run(
            ["convert", Self.samples + "/overlay.png", "out.jpg", "--background", "#000000"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "note: out.jpg: JPEG has no transparency: translucent pixels are flattened onto #000000"))
        let info = try ImageSource(contentsOf: folder + "/out.jpg").info
        #expect(info.format == .jpeg && info.width == 120 && info.height == 90)
    }

    @Test("-o - needs no extension: PNG unless --format says otherwise")
    func standardOutput() throws {
        let folder = try makeTemporaryFolder("formats")
        let png = try CLIRunner.run(["convert", Self.samples + "/overlay.png", "-"], in: folder)
        #expect(png.status == 0 && png.output.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let jpeg = try CLIRunner.run(["convert", Self.samples + "/overlay.png", "-", "--format", "jpeg"], in: folder)
        #expect(jpeg.status == 0 && jpeg.output.starts(with: [0xFF, 0xD8, 0xFF]))
    }
}
