import Foundation
import ImgToolKit
import Testing

/// End-to-end runs of the built `imgtool merge`: stdout, stderr, exit status, files written or not.
@Suite("imgtool merge (end to end)", .timeLimit(.minutes(2)))
struct MergeCLITests {
    struct Run {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `imgtool` binary next to the test bundle.
    static var executable: String {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("imgtool").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/imgtool").path
    }

    static func run(_ arguments: [String], in folder: String, stdin: [UInt8] = []) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(stdin))
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: Array(outData), stderr: String(decoding: errData, as: UTF8.self))
    }

    static let background = noise(width: 40, height: 30, seed: 31)
    static let overlay = noise(width: 12, height: 9, seed: 32)

    static func noise(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var state = seed
        let samples = (0..<width * height * 4).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    /// A folder holding bg.png and ov.png.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "imgtool-merge-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
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
        let first = try Self.run(["merge", "bg.png", "ov.png", "--gravity", "northeast", "--offset=-2,3"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.text == "merged.png\n")
        #expect(first.stderr.isEmpty)
        let written = try #require(Self.contents(folder + "/merged.png"))
        let expected = OverlayCompositor.composite(
            [Self.overlay], onto: Self.background,
            placement: try OverlayPlacement(gravity: .northEast, offsetX: -2, offsetY: 3))
        #expect(try Self.decode(written) == expected)
        // Then a second run refuses to replace it, leaving it untouched
        let second = try Self.run(["merge", "bg.png", "ov.png", "--opacity", "0.5"], in: folder)
        #expect(second.status == 1)
        #expect(second.stderr == "error: merged.png: already exists; pass --force to replace it\n")
        #expect(second.stdout.isEmpty)
        #expect(Self.contents(folder + "/merged.png") == written)
        // And --force replaces it
        let forced = try Self.run(["merge", "bg.png", "ov.png", "--opacity", "0.5", "--force"], in: folder)
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
            let run = try Self.run(["merge", "bg.png", "ov.png", "-o", output, "--force"], in: folder)
            #expect(run.status == 1, "\(output)")
            #expect(run.stderr.contains("is also an input (ov.png)"), "\(run.stderr)")
            #expect(Self.contents(folder + "/ov.png") == before)
        }
    }

    @Test(
        "Failures exit 1, name the input, and write nothing",
        arguments: [
            (["merge", "bg.png", "missing.png"], "missing.png: no such file"),
            (["merge", "bg.png", "text.png"], "text.png: not a PNG, GIF or JPEG file"),
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
        let run = try Self.run(arguments, in: folder)
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
            ["merge", "bg.png", "ov.png", "--gravity", "up"], ["merge", "bg.png", "ov.png", "-o", "out.gif"],
        ] {
            let run = try Self.run(arguments, in: folder)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/merged.png"))
        }
    }

    @Test("-o - writes the PNG to stdout, and - reads standard input")
    func standardStreams() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let overlayBytes = try #require(Self.contents(folder + "/ov.png"))
        let run = try Self.run(
            ["merge", "bg.png", "-", "-o", "-", "--gravity", "southwest"], in: folder, stdin: overlayBytes)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let expected = OverlayCompositor.composite(
            [Self.overlay], onto: Self.background, placement: try OverlayPlacement(gravity: .southWest))
        #expect(try Self.decode(run.stdout) == expected)
        #expect(!FileManager.default.fileExists(atPath: folder + "/merged.png"))
    }

    @Test("--keep-going leaves out a failing overlay, writes the rest, and exits 1")
    func keepGoing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Self.run(
            ["merge", "bg.png", "missing.png", "ov.png", "--keep-going", "-o", "out.png"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: missing.png: no such file (left out)"), "\(run.stderr)")
        #expect(run.text == "out.png\n")
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
        let run = try Self.run(["merge", "bg.png", spinner, "-o", "anim.png", "--gravity", "northwest"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "anim.png\n")
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
        let piped = try Self.run(["merge", "bg.png", spinner, "--loops", "3", "-o", "-"], in: folder)
        #expect(piped.status == 0, "\(piped.stderr)")
        let pipedInfo = try ImageSource(data: piped.stdout, name: "stdout").info
        #expect(pipedInfo.frameCount == 24 && pipedInfo.plays == 3)
        #expect(try Self.run(["merge", "bg.png", spinner, "--loops", "-1"], in: folder).status == 64)
    }
}
