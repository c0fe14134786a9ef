import Foundation
import ImgToolKit
import TestSupport
import Testing

/// Errors a user can act on (issue 42): each names what is wrong and where, on one line, with
/// the exit status of its kind; and values an animated format cannot hold are clamped with a note.
/// Serialized: each run blocks a thread of the cooperative pool while its process runs.
@Suite("Actionable errors and clamped timing (end to end)", .serialized, .timeLimit(.minutes(5)))
struct ActionableErrorsCLITests {
    static let samples = InputKindsCLITests.samples
    static let fixtures =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// The stderr lines of `run`.
    private func lines(_ run: RunResult) -> [Substring] { run.stderr.split(separator: "\n") }

    @Test("an operation that does not fit the image read names the input on one line, without the usage lines")
    func operationErrorsNameTheInput() throws {
        let folder = try makeTemporaryFolder("errors")
        let background = Self.samples + "/background.png"
        let spinner = Self.samples + "/spinner.gif"
        let cases: [([String], String)] = [
            (
                ["convert", background, "out.png", "--crop", "100000x10+0+0"],
                "error: \(background): --crop 100000x10+0+0 lies outside the 320x200 image"
            ),
            (
                ["convert", spinner, "out.gif", "--frames", "30..40"],
                "error: \(spinner): --frames 30..40: the image has 24 frames (0..23)"
            ),
            (
                ["convert", background, "out.png", "--resize", "100000x100000", "--max-pixels", "1000000"],
                "error: \(background): the resized image is 100000x62500"
            ),
            (
                ["resize", background, "out.png", "--size", "100000x100000", "--max-pixels", "1000000"],
                "error: \(background): the resized image is 100000x62500"
            ),
        ]
        for (arguments, message) in cases {
            let run = try CLIRunner.run(arguments, in: folder)
            // A usage error (64), but for the resized image over --max-pixels: the input's (1).
            #expect(run.status == (message.contains("resized") ? 1 : 64), "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("Usage:"), "\(arguments): \(run.stderr)")
            #expect(lines(run).count == 1, "\(arguments): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("--resize 0 names --resize only and lists the forms it takes")
    func resizeZero() throws {
        let run = try CLIRunner.run(["convert", Self.samples + "/background.png", "out.png", "--resize", "0"])
        #expect(run.status == 64)
        #expect(
            run.stderr.contains(
                "--resize 0: expected W, WxH, Wx or xH, each side a whole number of pixels above 0 or a percentage"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("--width"), "\(run.stderr)")
    }

    @Test("--max-frames says how many frames a GIF, a WebP and a JPEG XL have, not the limit plus one")
    func frameCount() throws {
        let folder = try makeTemporaryFolder("errors")
        let spinner = Self.samples + "/spinner.gif"
        let gif = try CLIRunner.run(["convert", spinner, "out.gif", "--max-frames", "1"], in: folder)
        #expect(gif.status == 1)
        #expect(
            gif.stderr.contains("\(spinner): animation has 24 frames, over the limit of 1; raise it with --max-frames"),
            "\(gif.stderr)")
        let webp = try CLIRunner.run(["convert", spinner, "spinner.webp", "--lossless"], in: folder)
        #expect(webp.status == 0, "\(webp.stderr)")
        let again = try CLIRunner.run(["info", "spinner.webp", "--max-frames", "5"], in: folder)
        #expect(again.status == 1)
        #expect(again.stderr.contains("spinner.webp: animation has 24 frames, over the limit of 5"), "\(again.stderr)")
        let jxl = try CLIRunner.run(["convert", spinner, "spinner.jxl", "--level", "1"], in: folder)
        #expect(jxl.status == 0, "\(jxl.stderr)")
        let third = try CLIRunner.run(["info", "spinner.jxl", "--max-frames", "2"], in: folder)
        #expect(third.status == 1)
        #expect(third.stderr.contains("spinner.jxl: animation has 24 frames, over the limit of 2"), "\(third.stderr)")
    }

    @Test("--profile with a profile that cannot describe an output names its class and the file")
    func abstractProfile() throws {
        let folder = try makeTemporaryFolder("errors")
        // sRGB's bytes with the class of an abstract Lab profile ('abst', data 'Lab ').
        var bytes = ColorProfile.sRGB.data
        bytes.replaceSubrange(12..<20, with: Array("abstLab ".utf8))
        let path = folder + "/lab.icc"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try CLIRunner.run(
            ["convert", Self.samples + "/background.png", "out.png", "--profile", path], in: folder)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("\(path): an abstract profile (class 'abst', Lab data) cannot be an output profile"),
            "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("libheif's message of several lines is printed on one")
    func heifMessageOnOneLine() throws {
        guard HEIFCodec().isAvailable else { return }  // libheif1 is a run-time library; CI installs it
        let folder = try makeTemporaryFolder("errors")
        // Cut before the data an iloc extent points to: libheif's message ends in a newline.
        let photo = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/heif/photo.heic"))
        try photo.prefix(600).write(to: URL(fileURLWithPath: folder + "/cut.heic"))
        let run = try CLIRunner.run(["convert", "cut.heic", "out.png"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: cut.heic: truncated HEIF: "), "\(run.stderr)")
        #expect(lines(run).count == 1, "\(run.stderr)")
        #expect(run.stderr.hasSuffix("465))\n"), "\(run.stderr)")
    }

    @Test("an ISO BMFF file of a brand nobody reads names its brands")
    func unknownBrand() throws {
        let folder = try makeTemporaryFolder("errors")
        var bytes: [UInt8] = [0, 0, 0, 0x18] + Array("ftypabcd".utf8) + [0, 0, 0, 0] + Array("abcdmsf2".utf8)
        bytes += [UInt8](repeating: 0, count: 64)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/odd.heic"))
        let run = try CLIRunner.run(["info", "odd.heic"], in: folder)
        #expect(run.status == 1)
        #expect(
            run.stderr.contains("odd.heic: an ISO base media file of brand 'abcd' (compatible: 'abcd', 'msf2')"),
            "\(run.stderr)")
    }

    @Test("a cut JPEG XL says truncated")
    func truncatedJXL() throws {
        let folder = try makeTemporaryFolder("errors")
        let made = try CLIRunner.run(["convert", Self.samples + "/background.png", "whole.jxl"], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/whole.jxl"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder + "/cut.jxl"))
        let run = try CLIRunner.run(["convert", "cut.jxl", "out.png"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: cut.jxl: truncated JPEG XL: the file ends before"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("--background with a value it does not take lists the forms it does")
    func backgroundForms() throws {
        let run = try CLIRunner.run(
            ["convert", Self.samples + "/background.png", "out.jpg", "--background", "notacolour"])
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("expected #rgb, #rrggbb or #rrggbbaa (the # optional), or white, black, red"),
            "\(run.stderr)")
    }

    @Test("JPEG XL --quality 1 to 4 writes (libjxl 0.7's largest distance, 25)")
    func lowJXLQuality() throws {
        let folder = try makeTemporaryFolder("errors")
        for quality in ["1", "4"] {
            let run = try CLIRunner.run(
                ["convert", Self.samples + "/background.png", "q\(quality).jxl", "--quality", quality], in: folder)
            #expect(run.status == 0, "\(quality): \(run.stderr)")
            #expect(run.stderr.isEmpty, "\(quality): \(run.stderr)")
            #expect(try ImageSource(contentsOf: folder + "/q\(quality).jxl").info.width == 320)
        }
    }

    @Test(
        "a delay past what GIF, APNG or WebP holds is clamped, with a note naming the output, the frames and the value",
        arguments: [
            (
                "out.gif", ["--speed", "0.001", "--speed", "0.05"],
                "GIF holds delays up to 655.35 s: frames 0-23 (800 s each) written as 655.35 s", 655.35
            ),
            (
                "out.png", ["--speed", "0.001", "--speed", "0.001", "--speed", "0.5"],
                "APNG holds delays up to 65535 s: frames 0-23 (80000 s each) written as 65535 s", 65535
            ),
            (
                "out.webp", ["--speed", "0.001", "--speed", "0.001", "--lossless"],
                "WebP holds delays up to 16777.215 s: frames 0-23 (40000 s each) written as 16777.215 s", 16777.215
            ),
        ])
    func clampedDelays(output: String, options: [String], note: String, seconds: Double) throws {
        let folder = try makeTemporaryFolder("limits")
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", output] + options, in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("note: \(output): \(note)"), "\(run.stderr)")
        let info = try ImageSource(contentsOf: folder + "/" + output).info
        #expect(info.frameCount == 24)
        #expect(
            info.frames.allSatisfy { abs($0.delayMilliseconds - seconds * 1000) < 0.5 }, "\(info.frames.map(\.delay))")
    }

    @Test("plays past what a format holds are clamped with a note; AVIF says it loops forever")
    func clampedPlays() throws {
        let folder = try makeTemporaryFolder("limits")
        let spinner = Self.samples + "/spinner.gif"
        let webp = try CLIRunner.run(["convert", spinner, "out.webp", "--loops", "100000", "--lossless"], in: folder)
        #expect(webp.status == 0, "\(webp.stderr)")
        #expect(
            webp.stderr.contains(
                "note: out.webp: WebP plays at most 65535 times (or forever): 100000 plays are written as 65535"),
            "\(webp.stderr)")
        #expect(try ImageSource(contentsOf: folder + "/out.webp").info.plays == 65535)
        let jxl = try CLIRunner.run(
            ["convert", spinner, "out.jxl", "--loops", "5000000000", "--level", "1"], in: folder)
        #expect(jxl.status == 0, "\(jxl.stderr)")
        #expect(jxl.stderr.contains("note: out.jxl: JPEG XL plays at most 4294967295 times"), "\(jxl.stderr)")
        #expect(try ImageSource(contentsOf: folder + "/out.jxl").info.plays == 4_294_967_295)
        let avif = try CLIRunner.run(
            ["convert", spinner, "out.avif", "--loops", "3", "--frames", "0..2", "--level", "9"], in: folder)
        #expect(avif.status == 0, "\(avif.stderr)")
        #expect(
            avif.stderr.contains(
                "note: out.avif: AVIF sequences written here carry no play count (libavif 0.11 writes none): players loop them forever, not 3 times"
            ), "\(avif.stderr)")
        #expect(try ImageSource(contentsOf: folder + "/out.avif").info.plays == 0)
    }
}
