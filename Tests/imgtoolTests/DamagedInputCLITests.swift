import Foundation
import ImgToolKit
import TestSupport
import Testing

/// Inputs cut short, end to end: a warning and exit 0 by default, a failure naming the input
/// and the warning with `--fail-on`.
@Suite("imgtool on damaged inputs, end to end", .timeLimit(.minutes(5)))
struct DamagedInputCLITests {
    /// A folder with `cut.jpg` (a baseline JPEG cut half way through its data) and `cut.gif` (the
    /// spinner sample cut in its fourth frame).
    static func folder() throws -> String {
        let folder = try makeTemporaryFolder("damaged")
        let jpeg = try JPEGEncoder(quality: 80).encode(TestImages.noise8(width: 64, height: 64, seed: 7))
        try Data(jpeg.prefix(jpeg.count / 2)).write(to: URL(fileURLWithPath: folder + "/cut.jpg"))
        let gif = try Data(contentsOf: URL(fileURLWithPath: MergeCLITests.sample("spinner.gif")))
        try gif.prefix(gif.count / 3).write(to: URL(fileURLWithPath: folder + "/cut.gif"))
        return folder
    }

    @Test("a cut JPEG converts with a warning, exit 0; the rows not received are grey")
    func cutJPEGWarns() throws {
        let folder = try Self.folder()
        let result = try CLIRunner.run(["convert", "cut.jpg", "out.png"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("warning: cut.jpg: truncated JPEG: the data ends at byte "), "\(result.stderr)")
        let image = try ImageSource(contentsOf: folder + "/out.png").frame(at: 0).image
        #expect(pixelSamples(image, 0, 0) != [128, 128, 128, 255])
        #expect(pixelSamples(image, 63, 63) == [128, 128, 128, 255])

        // merge names each cut input, the background's warning first.
        let merged = try CLIRunner.run(["merge", "cut.jpg", "cut.gif", "-o", "merged.png"], in: folder)
        #expect(merged.status == 0)
        let lines = merged.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("warning: cut.jpg: truncated JPEG") == true, "\(merged.stderr)")
        #expect(lines.contains { $0.hasPrefix("warning: cut.gif: truncated GIF") }, "\(merged.stderr)")

        let info = try CLIRunner.run(["info", "cut.jpg"], in: folder)
        #expect(info.status == 0)
        #expect(info.stdout.contains("incomplete"))
    }

    @Test(
        "--fail-on truncated or warning: every command fails on a cut JPEG or GIF, naming it",
        arguments: ["truncated", "warning"])
    func failOn(level: String) throws {
        let folder = try Self.folder()
        let commands: [[String]] = [
            ["convert", "cut.jpg", "out.png"], ["convert", "cut.gif", "out.gif"],
            ["resize", "cut.jpg", "small.png", "--width", "16"], ["info", "cut.gif"], ["info", "cut.jpg"],
            ["frames", "cut.gif", "--output", "frames"], ["merge", "cut.jpg", "cut.gif", "-o", "merged.png"],
            ["animate", "cut.gif", "--json"],
        ]
        for command in commands {
            let result = try CLIRunner.run(command + ["--fail-on", level], in: folder)
            let input = command[1]
            #expect(result.status == 1, "\(command)")
            #expect(
                result.stderr.contains("error: \(input): truncated \(input.hasSuffix("jpg") ? "JPEG" : "GIF"): "),
                "\(command): \(result.stderr)")
            #expect(result.stderr.contains("(refused: fail-on \(level))"), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
        // The default, spelled out: a warning.
        #expect(try CLIRunner.run(["convert", "cut.gif", "out.gif", "--fail-on", "none"], in: folder).status == 0)
    }

    @Test("a batch job line takes --fail-on too")
    func batchJobLine() throws {
        let folder = try Self.folder()
        let jobs = [
            BatchCLITests.line("strict", ["convert", "cut.jpg", "strict.png", "--fail-on", "warning"]),
            BatchCLITests.line("lenient", ["convert", "cut.jpg", "lenient.png"]),
        ].joined(separator: "\n")
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let result = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        let reports = BatchCLITests.reports(result.stdout)
        #expect(reports["strict"]?["status"] as? String == "failed")
        #expect((reports["strict"]?["error"] as? String)?.contains("cut.jpg: truncated JPEG") == true)
        #expect(reports["lenient"]?["status"] as? String == "ok")
        #expect(result.status != 0)
    }

    @Test("--fail-on takes none, truncated or warning only")
    func usage() throws {
        #expect(try CLIRunner.run(["info", "x.jpg", "--fail-on", "error"]).status == 64)
    }
}
