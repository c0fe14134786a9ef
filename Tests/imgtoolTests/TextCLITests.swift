import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `imgtool convert IN OUT --text STRING ...` end to end: a timed caption on a GIF, the usage
/// errors that name the font or the character and write nothing, and a batch job that writes what
/// the command writes.
@Suite("imgtool convert --text (end to end)", .serialized, .timeLimit(.minutes(5)))
struct TextCLITests {
    static let samples = InputKindsCLITests.samples

    @Test("A timed caption on a GIF is drawn on the frames of its interval only")
    func timedCaption() throws {
        let folder = try makeTemporaryFolder("text-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.samples + "/spinner.gif"
        let info = try ImageSource(contentsOf: input).info
        let starts = info.frames.reduce(into: [Duration.zero]) { $0.append($0.last! + $1.delay) }.dropLast()
        let run = try CLIRunner.run(
            [
                "convert", input, "out.png", "--text", "Hi", "--font-size", "20", "--stroke-width", "2", "--gravity",
                "south", "--from", "200", "--to", "600",
            ], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let original = try OperationsCLITests.frames(input)
        let written = try OperationsCLITests.frames(folder + "/out.png")
        #expect(written.count == original.count)
        for (index, (before, after)) in zip(original, written).enumerated() {
            let shown = starts[index] >= .milliseconds(200) && starts[index] < .milliseconds(600)
            #expect((before != after) == shown, "frame \(index) at \(starts[index])")
        }
    }

    @Test(
        "A font that does not exist, or a character no font has, is a usage error naming it; nothing is written",
        arguments: [
            (["--text", "x", "--font", "/no/such/font.ttf"], "/no/such/font.ttf"),
            (["--text", "x", "--font", "No Such Family"], "No Such Family"),
            (["--text", "a\u{0378}"], "U+0378"),
            (["--font-size", "20"], "--font-size"),
            (["--text", "x", "--font-size", "100000"], "--font-size"),
        ])
    func usageErrors(words: [String], named: String) throws {
        let folder = try makeTemporaryFolder("text-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["convert", Self.samples + "/background.png", "out.png"] + words, in: folder)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(named), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("A damaged font is a one-line error naming it, and nothing is written")
    func damagedFont() throws {
        let folder = try makeTemporaryFolder("text-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("not a font at all".utf8).write(to: URL(fileURLWithPath: folder + "/bad.ttf"))
        let run = try CLIRunner.run(
            ["convert", Self.samples + "/background.png", "out.png", "--text", "x", "--font", "bad.ttf"], in: folder)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("bad.ttf"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test("A batch job with a caption writes what the command writes")
    func batch() throws {
        let folder = try makeTemporaryFolder("text-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let words = [
            Self.samples + "/spinner.gif", "--text", "Bonjour مرحبا 😀", "--font-size", "18", "--color", "#ffcc00",
            "--stroke-width", "1.5", "--gravity", "north", "--offset", "0,4", "--to", "500",
        ]
        let direct = try CLIRunner.run(["convert", words[0], "direct.gif"] + words.dropFirst(), in: folder)
        #expect(direct.status == 0, "\(direct.stderr)")
        let job = BatchCLITests.line("text", ["convert", words[0], "batch.gif"] + words.dropFirst())
        try Data(job.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let a = FileManager.default.contents(atPath: folder + "/direct.gif")
        let b = FileManager.default.contents(atPath: folder + "/batch.gif")
        #expect(a != nil && a == b)
        #expect(a != FileManager.default.contents(atPath: words[0]))
    }
}
