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

    @Test("An animation written as JPEG is a usage error naming the output and the formats that hold animations")
    func animationToStill() throws {
        let folder = try makeTemporaryFolder("formats")
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "out.jpg"], in: folder)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("error: out.jpg: JPEG holds one image, and the result has 24 frames; write png, apng"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("Usage:"), "\(run.stderr)")
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
        // An opaque PNG (RGB, no tRNS) gets no note, turned or not. (A WebP's alpha flag is a
        // hint: libwebp_bad_palette_index.webp has none and decodes with transparent pixels.)
        for operations in [[], ["--rotate", "90"]] {
            let run = try CLIRunner.run(
                ["convert", Self.samples + "/background.png", "still.jpg", "--force"] + operations, in: folder)
            #expect(run.status == 0 && !run.stderr.contains("note:"), "\(operations): \(run.stderr)")
        }
    }

    @Test("-o - needs no extension: PNG unless --format says otherwise")
    func standardOutput() throws {
        let folder = try makeTemporaryFolder("formats")
        let png = try CLIRunner.run(["convert", Self.samples + "/overlay.png", "-"], in: folder)
        #expect(png.status == 0 && png.output.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let jpeg = try CLIRunner.run(["convert", Self.samples + "/overlay.png", "-", "--format", "jpeg"], in: folder)
        #expect(jpeg.status == 0 && jpeg.output.starts(with: [0xFF, 0xD8, 0xFF]))
    }

    @Test("A GIF written as GIF, and merged with a sticker whose colours fit, decodes to exactly the same frames")
    func exactGIF() async throws {
        let folder = try makeTemporaryFolder("formats")
        let spinner = Self.samples + "/spinner.gif"
        let converted = try CLIRunner.run(["convert", spinner, "out.gif"], in: folder)
        #expect(converted.status == 0, "\(converted.stderr)")
        let original = try ImageSource(contentsOf: spinner)
        let written = try ImageSource(contentsOf: folder + "/out.gif")
        #expect(written.info.format == .gif && written.info.frames.map(\.delay) == original.info.frames.map(\.delay))
        #expect(written.info.plays == original.info.plays)
        let (a, b) = (try original.makeFrameReader(depth: .eight), try written.makeFrameReader(depth: .eight))
        while let expected = try a.nextFrame() {
            let actual = try #require(try b.nextFrame())
            #expect(expected.image.rgba8Digest() == actual.image.rgba8Digest(), "frame \(expected.index)")
        }
        // A two-colour sticker on the GIF: every colour still fits, so the merge is exact too.
        try writeTestPNG(
            TestImages.make8(width: 8, height: 8) { x, _ in x < 4 ? [255, 0, 0, 255] : [0, 0, 255, 255] },
            to: folder + "/sticker.png")
        let merged = try CLIRunner.run(
            ["merge", spinner, "sticker.png", "-o", "m.gif", "--gravity", "northwest"], in: folder)
        #expect(merged.status == 0, "\(merged.stderr)")
        let mergedPNG = try CLIRunner.run(
            ["merge", spinner, "sticker.png", "-o", "m.png", "--gravity", "northwest"], in: folder)
        #expect(mergedPNG.status == 0)
        let (gif, png) = (
            try ImageSource(contentsOf: folder + "/m.gif"), try ImageSource(contentsOf: folder + "/m.png")
        )
        let (g, p) = (try gif.makeFrameReader(depth: .eight), try png.makeFrameReader(depth: .eight))
        var count = 0
        while let expected = try p.nextFrame() {
            let actual = try #require(try g.nextFrame())
            #expect(expected.image.rgba8Digest() == actual.image.rgba8Digest(), "merged frame \(expected.index)")
            count += 1
        }
        #expect(count == 24)
    }
}
