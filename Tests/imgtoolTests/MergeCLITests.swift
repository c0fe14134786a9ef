import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs of the built `imgtool merge`: stdout, stderr, exit status, files written or not.
@Suite("imgtool merge (end to end)", .timeLimit(.minutes(5)))
struct MergeCLITests {
    static let background = TestImages.noise8(width: 40, height: 30, seed: 31)
    static let overlay = TestImages.noise8(width: 12, height: 9, seed: 32)

    /// A folder holding bg.png and ov.png.
    static func folder() throws -> String {
        let path = try makeTemporaryFolder("merge-cli")
        try Data(PNGEncoder().encode(background)).write(to: URL(fileURLWithPath: path + "/bg.png"))
        try Data(PNGEncoder().encode(overlay)).write(to: URL(fileURLWithPath: path + "/ov.png"))
        return path
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    static func decode(_ bytes: [UInt8]) throws -> PixelBuffer {
        try PNGDecoder().decode(bytes)
    }

    @Test("Without -o it writes merged.png in the current folder and prints the path; never clobbers without --force")
    func defaultOutputAndNoClobber() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // When merging without -o
        let first = try CLIRunner.run(
            ["merge", "bg.png", "ov.png", "--gravity", "northeast", "--offset=-2,3"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "merged.png\n")
        #expect(first.stderr.isEmpty)
        let written = try #require(Self.contents(folder + "/merged.png"))
        let expected = OverlayCompositor.composite(
            [Self.overlay], onto: Self.background,
            placement: try OverlayPlacement(gravity: .northEast, offsetX: -2, offsetY: 3))
        #expect(try Self.decode(written) == expected)
        // Then a second run refuses to replace it, leaving it untouched
        let second = try CLIRunner.run(["merge", "bg.png", "ov.png", "--opacity", "0.5"], in: folder)
        #expect(second.status == 1)
        #expect(second.stderr == "error: merged.png: already exists; pass --force to replace it\n")
        #expect(second.stdout.isEmpty)
        #expect(Self.contents(folder + "/merged.png") == written)
        // And --force replaces it
        let forced = try CLIRunner.run(["merge", "bg.png", "ov.png", "--opacity", "0.5", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        let replaced = try Self.decode(try #require(Self.contents(folder + "/merged.png")))
        #expect(
            replaced
                == OverlayCompositor.composite(
                    [Self.overlay], onto: Self.background, placement: try OverlayPlacement(opacity: 0.5)))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test("An input is never overwritten, even with --force")
    func neverOverwritesInput() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = Self.contents(folder + "/ov.png")
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/link.png", withDestinationPath: folder + "/ov.png")
        for output in ["ov.png", "./ov.png", folder + "/ov.png", "link.png"] {
            let run = try CLIRunner.run(["merge", "bg.png", "ov.png", "-o", output, "--force"], in: folder)
            #expect(run.status == 1, "\(output)")
            #expect(run.stderr.contains("is also an input (ov.png)"), "\(run.stderr)")
            #expect(Self.contents(folder + "/ov.png") == before)
        }
    }

    @Test(
        "Failures exit 1, name the input, and write nothing",
        arguments: [
            (["merge", "bg.png", "missing.png"], "missing.png: no such file"),
            (
                ["merge", "bg.png", "text.png"],
                "text.png: not a PNG, GIF, JPEG, WebP, AVIF, JPEG XL, HEIF, MP4 or WebM file"
            ),
            (["merge", "bg.png", "ftp://example.com/a.png"], "ftp://example.com/a.png: unsupported URL scheme"),
            (["merge", "bg.png", "ov.png", "--max-bytes", "100"], "bg.png: file is"),
            (["merge", "missing.png", "ov.png", "missing.png"], "missing.png: no such file"),
            (
                ["merge", "bg.png", "http://127.0.0.1:9/a.png", "--timeout", "20"],
                "http://127.0.0.1:9/a.png: connection refused"
            ),
        ])
    func failures(arguments: [String], message: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: folder + "/text.png"))
        let run = try CLIRunner.run(arguments, in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: " + message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder + "/merged.png"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test("Usage errors exit 64")
    func usage() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for arguments in [
            ["merge", "bg.png"], ["merge", "bg.png", "ov.png", "--opacity", "2"], ["merge", "-", "-"],
            ["merge", "bg.png", "ov.png", "--gravity", "up"], ["merge", "bg.png", "ov.png", "-o", "out.xyz"],
        ] {
            let run = try CLIRunner.run(arguments, in: folder)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/merged.png"))
        }
    }

    @Test("-o - writes the PNG to stdout, and - reads standard input")
    func standardStreams() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let overlayBytes = try #require(Self.contents(folder + "/ov.png"))
        let run = try CLIRunner.run(
            ["merge", "bg.png", "-", "-o", "-", "--gravity", "southwest"], in: folder, stdin: overlayBytes)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let expected = OverlayCompositor.composite(
            [Self.overlay], onto: Self.background, placement: try OverlayPlacement(gravity: .southWest))
        #expect(try Self.decode(run.output) == expected)
        #expect(!FileManager.default.fileExists(atPath: folder + "/merged.png"))
    }

    @Test("--keep-going leaves out a failing overlay, writes the rest, and exits 1")
    func keepGoing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(
            ["merge", "bg.png", "missing.png", "ov.png", "--keep-going", "-o", "out.png"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: missing.png: no such file (left out)"), "\(run.stderr)")
        #expect(run.stdout == "out.png\n")
        let written = try Self.decode(try #require(Self.contents(folder + "/out.png")))
        #expect(written == OverlayCompositor.composite([Self.overlay], onto: Self.background, placement: .centered))
    }

    /// A file of the repository's samples folder.
    static func sample(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/" + name).path
    }

    @Test("An animated overlay gives an APNG: every frame is the still merge of that overlay frame")
    func animatedOverlay() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let spinner = Self.sample("spinner.gif")
        let run = try CLIRunner.run(
            ["merge", "bg.png", spinner, "-o", "anim.png", "--gravity", "northwest"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "anim.png\n")
        #expect(run.stderr.isEmpty, "no progress line when stderr is not a terminal")
        let written = try #require(Self.contents(folder + "/anim.png"))
        let merged = try ImageSource(data: written, name: "anim.png")
        #expect(merged.info.format == .apng)
        #expect(merged.info.frameCount == 24 && merged.info.plays == 0)
        #expect(merged.info.frames.allSatisfy { $0.delay == .milliseconds(40) })
        let overlay = try ImageSource(contentsOf: spinner).makeFrameReader(depth: .eight)
        let reader = try merged.makeFrameReader(depth: .eight)
        let placement = try OverlayPlacement(gravity: .northWest)
        while let expected = try overlay.nextFrame() {
            let frame = try #require(try reader.nextFrame())
            #expect(
                frame.image
                    == OverlayCompositor.composite([expected.image], onto: Self.background, placement: placement),
                "frame \(expected.index)")
        }
        // --loops sets the plays, and -o - streams the APNG to stdout.
        let piped = try CLIRunner.run(["merge", "bg.png", spinner, "--loops", "3", "-o", "-"], in: folder)
        #expect(piped.status == 0, "\(piped.stderr)")
        let pipedInfo = try ImageSource(data: piped.output, name: "stdout").info
        #expect(pipedInfo.frameCount == 24 && pipedInfo.plays == 3)
        #expect(try CLIRunner.run(["merge", "bg.png", spinner, "--loops", "-1"], in: folder).status == 64)
    }
}
