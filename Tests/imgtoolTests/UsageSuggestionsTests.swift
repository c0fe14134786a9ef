import ImgToolKit
import Testing

@testable import imgtool

/// The nearest-name rule, the unknown-name check and the batch summary, in process.
@Suite("Usage suggestions and the batch summary")
struct UsageSuggestionsTests {
    @Test(
        "Edit distance counts insertions, deletions, substitutions and a swap of neighbours as one each",
        arguments: [
            ("width", "width", 0), ("widht", "width", 1), ("qualty", "quality", 1), ("convrt", "convert", 1),
            ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3), ("--flip", "--flop", 1), ("ab", "ba", 1),
        ])
    func distance(a: String, b: String, expected: Int) {
        #expect(UsageSuggestions.editDistance(a, b) == expected)
        #expect(UsageSuggestions.editDistance(b, a) == expected)
    }

    @Test(
        "The nearest name: a unique extension, else the closest within the word's budget, else none",
        arguments: [
            ("--qualty", "--quality"), ("--qual", "--quality"), ("--widht", "--width"), ("--w", "--width"),
            ("--l", nil),
            ("--colour", "--colors"), ("--zzzzzz", nil), ("--lossles", "--lossless"),
        ] as [(String, String?)])
    func nearest(word: String, expected: String?) {
        let names = ["--quality", "--width", "--height", "--colors", "--lossless", "--no-lossless", "--level"]
        #expect(UsageSuggestions.nearest(to: word, among: names) == expected)
    }

    @Test("The check knows every command's options, hidden spellings and convert's operations included")
    func check() throws {
        #expect(throws: Never.self) {
            try UsageSuggestions.check(["convert", "a.gif", "b.png", "--overlay", "x.png", "--overlay-size", "5%"])
            try UsageSuggestions.check(["frames", "a.gif", "-o", "d", "--range", "1", "--force"])
            try UsageSuggestions.check(["convert", "a.gif", "b.png", "--", "--not-an-option"])
            try UsageSuggestions.check(["help", "convert"])
            try UsageSuggestions.check(["--version"])
        }
        do {
            try UsageSuggestions.check(["resize", "a.png", "b.png", "--widht=50"])
            Issue.record("--widht passed")
        } catch {
            #expect(error.message == "Unknown option '--widht'. Did you mean '--width'?")
            #expect(error.command == ResizeCommand.self)
        }
        do {
            try UsageSuggestions.check(["mrge", "a.png"])
            Issue.record("mrge passed")
        } catch {
            #expect(error.message.hasPrefix("Unknown command 'mrge'. Did you mean 'merge'?"))
            #expect(error.command == nil)
        }
    }

    @Test("The batch summary: ok + skipped + failed + not run = jobs, malformed lines among the failed")
    func summary() {
        var counts = BatchRunner.Summary()
        counts.ok = 3
        counts.skipped = 1
        counts.failed = 2
        counts.seconds = 1.5
        #expect(
            BatchCommand.summaryLine(counts, jobs: 10, malformed: 2, shard: nil, inFile: 10)
                == "batch: 12 jobs (2 malformed lines): 3 ok, 1 skipped, 4 failed, 4 not run in 1.50 s")
        #expect(
            BatchCommand.summaryLine(counts, jobs: 6, malformed: 0, shard: Shard(index: 1, count: 3), inFile: 20)
                == "batch: 6 jobs (shard 1/3, 20 in the file): 3 ok, 1 skipped, 2 failed in 1.50 s")
    }
}
