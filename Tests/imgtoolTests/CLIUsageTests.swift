import Foundation
import ImgToolKit
import TestSupport
import Testing

/// Usage the same on every command: `frames` refuses to overwrite without `--force`, typos get the
/// nearest name, usage lines name the command that was run, and the batch summary adds up.
@Suite("imgtool usage across commands", .timeLimit(.minutes(5)))
struct CLIUsageTests {
    static let samples = InputKindsCLITests.samples

    @Test("frames refuses before writing anything when a frame file exists; --force replaces")
    func framesRefusesExisting() throws {
        let folder = try makeTemporaryFolder("frames-force")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: false)
        // The user's file is frame 2; frames 0 and 1 would be written first.
        let mine = Data("mine".utf8)
        try mine.write(to: URL(fileURLWithPath: folder + "/out/frame-0002.png"))
        let refused = try CLIRunner.run(["frames", Self.samples + "/spinner.gif", "-o", "out"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: out/frame-0002.png: already exists; pass --force to replace it\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out") == ["frame-0002.png"])
        #expect(FileManager.default.contents(atPath: folder + "/out/frame-0002.png") == mine)

        // A range that does not reach the existing file writes alongside it.
        let beside = try CLIRunner.run(
            ["frames", Self.samples + "/spinner.gif", "-o", "out", "--range", "0..1"], in: folder)
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(FileManager.default.contents(atPath: folder + "/out/frame-0002.png") == mine)

        let forced = try CLIRunner.run(["frames", Self.samples + "/spinner.gif", "-o", "out", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        let written = try ImageSource(contentsOf: folder + "/out/frame-0002.png")
        #expect(written.info.format == .png)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count == 24)
    }

    @Test("frames -o - is a usage error and makes no folder named -")
    func framesToStandardOutput() throws {
        let folder = try makeTemporaryFolder("frames-stdout")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["frames", Self.samples + "/spinner.gif", "-o", "-"], in: folder)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: frames writes one file per frame into a folder"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/-"))
    }

    @Test("--lossy: 0-200, else a usage error; a lossy GIF of a GIF is smaller and has its frames")
    func lossyOption() throws {
        let folder = try makeTemporaryFolder("lossy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for value in ["201", "-1"] {
            let run = try CLIRunner.run(
                ["convert", Self.samples + "/spinner.gif", "out.gif", "--lossy=" + value], in: folder)
            #expect(run.status == 64)
            #expect(run.stderr.contains("--lossy must be 0-200, not \(value)"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.gif"))
        let exact = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "exact.gif"], in: folder)
        let lossy = try CLIRunner.run(
            ["convert", Self.samples + "/spinner.gif", "lossy.gif", "--lossy", "200"], in: folder)
        #expect(exact.status == 0 && lossy.status == 0, "\(exact.stderr)\(lossy.stderr)")
        let sizes = try ["exact.gif", "lossy.gif"].map {
            try FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.size] as? Int ?? 0
        }
        #expect(sizes[1] < sizes[0], "\(sizes)")
        let (original, written) = (
            try ImageSource(contentsOf: Self.samples + "/spinner.gif"),
            try ImageSource(contentsOf: folder + "/lossy.gif")
        )
        #expect(written.info.frames.map(\.delay) == original.info.frames.map(\.delay))
    }

    @Test(
        "An unknown option or command gets the nearest name and the usage of the command run",
        arguments: [
            (
                ["convert", "a.gif", "b.png", "--qualty", "80"],
                "Error: Unknown option '--qualty'. Did you mean '--quality'?", "imgtool convert"
            ),
            (
                ["convert", "a.gif", "b.png", "--rotat", "90"],
                "Error: Unknown option '--rotat'. Did you mean '--rotate'?", "imgtool convert"
            ),
            (
                ["resize", "a.gif", "b.png", "--widht", "50"],
                "Error: Unknown option '--widht'. Did you mean '--width'?", "imgtool resize"
            ),
            (
                ["merge", "a.png", "b.png", "--opacty", "1"],
                "Error: Unknown option '--opacty'. Did you mean '--opacity'?", "imgtool merge"
            ),
            (["info", "--jsn", "a.png"], "Error: Unknown option '--jsn'. Did you mean '--json'?", "imgtool info"),
            (
                ["convrt", "a.gif", "b.png"], "Error: Unknown command 'convrt'. Did you mean 'convert'?",
                "imgtool <subcommand>"
            ),
            (["frmes", "a.gif"], "Error: Unknown command 'frmes'. Did you mean 'frames'?", "imgtool <subcommand>"),
        ])
    func suggestions(arguments: [String], error: String, usage: String) throws {
        let run = try CLIRunner.run(arguments)
        #expect(run.status == 64)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(error) == true, "\(run.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: \(usage)") == true, "\(run.stderr)")
    }

    @Test("A usage error found once the input is read is one line naming the file, exit 64, without the usage")
    func usageErrorAfterReading() throws {
        let folder = try makeTemporaryFolder("usage-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Known only once the input is open: an animation cannot be written as JPEG. The words
        // parsed, so the usage would not help (issue 42).
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "still.jpg"], in: folder)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: still.jpg: JPEG holds one image"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!run.stderr.contains("Usage:"), "\(run.stderr)")
    }

    @Test("A batch job with a misspelt command or option is told the nearest; the summary adds up to the report lines")
    func batchSummaryAddsUp() throws {
        let folder = try makeTemporaryFolder("batch-summary")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jobs = [
            BatchCLITests.line("ok", ["info", Self.samples + "/overlay.png"]),
            BatchCLITests.line("typo", ["convrt", Self.samples + "/overlay.png", "a.png"]),
            BatchCLITests.line("option", ["convert", Self.samples + "/overlay.png", "b.png", "--qualty", "5"]),
            "not json",
        ].joined(separator: "\n")
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 2)
        let reports = BatchCLITests.reports(run.stdout)
        #expect((reports["typo"]?["error"] as? String)?.contains("(did you mean convert?)") == true, "\(run.stdout)")
        #expect(
            (reports["option"]?["error"] as? String)?.contains("Did you mean '--quality'?") == true, "\(run.stdout)")
        let statuses = reports.values.compactMap { $0["status"] as? String }
        #expect(statuses.count == 4)
        let counts = (ok: statuses.filter { $0 == "ok" }.count, failed: statuses.filter { $0 == "failed" }.count)
        #expect(
            run.stderr.hasPrefix(
                "batch: 4 jobs (1 malformed line): \(counts.ok) ok, 0 skipped, \(counts.failed) failed in "),
            "\(run.stderr)")

        // --fail-fast: the jobs left undone are counted as not run, and the counts still add up.
        let many = (0..<6).map { BatchCLITests.line("m\($0)", ["info", "missing-\($0).png"]) }
        try Data(many.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: folder + "/many.ndjson"))
        let fast = try CLIRunner.run(["batch", "many.ndjson", "--fail-fast", "--jobs", "1"], in: folder)
        #expect(fast.status == 1)
        let lines = BatchCLITests.reports(fast.stdout).count
        #expect(
            fast.stderr.contains("batch: 6 jobs: 0 ok, 0 skipped, \(lines) failed, \(6 - lines) not run in "),
            "\(fast.stderr)")
    }

    @Test(
        "-o names the output of convert and resize as of merge and frames; OUTPUT still works; two outputs are refused")
    func outputOption() throws {
        let folder = try makeTemporaryFolder("output-option")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let background = Self.samples + "/background.png"
        let overlay = Self.samples + "/overlay.png"
        let operations = [
            "--overlay", overlay, "--overlay-width", "40", "--gravity", "southeast", "--crop", "100x80+10+10",
        ]
        // -o before and after the operations, and OUTPUT: the same file each time
        for (name, arguments) in [
            ("a.png", ["convert", background, "a.png"] + operations),
            ("b.png", ["convert", background, "-o", "b.png"] + operations),
            ("c.png", ["convert", background] + operations + ["--output", "c.png"]),
            ("d.png", ["resize", background, "--width", "50", "-o", "d.png"]),
            ("e.png", ["resize", background, "e.png", "--width", "50"]),
        ] {
            let run = try CLIRunner.run(arguments, in: folder)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(arguments)")
        }
        let converted = try ["a.png", "b.png", "c.png"].map {
            try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0))
        }
        #expect(converted[0] == converted[1] && converted[1] == converted[2])
        #expect(try ImageSource(contentsOf: folder + "/a.png").info.width == 100)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/d.png"))
                == Data(contentsOf: URL(fileURLWithPath: folder + "/e.png")))
        for arguments in [
            ["convert", background, "x.png", "-o", "y.png"],
            ["resize", background, "x.png", "-o", "y.png", "--width", "5"],
            ["convert", background], ["resize", background, "--width", "5"],
        ] {
            let run = try CLIRunner.run(arguments, in: folder)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains("two outputs") || run.stderr.contains("needs an output"), "\(run.stderr)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: folder + "/x.png")
                && !FileManager.default.fileExists(atPath: folder + "/y.png"))
    }

    @Test("--overlay-width is one option for merge and convert; --overlay-size and frames --range still work")
    func oneNamePerThing() throws {
        let folder = try makeTemporaryFolder("one-name")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let background = Self.samples + "/background.png"
        let overlay = Self.samples + "/overlay.png"
        for (name, arguments) in [
            ("merge.png", ["merge", background, overlay, "--overlay-width", "25%", "-o", "merge.png"]),
            ("width.png", ["convert", background, "width.png", "--overlay", overlay, "--overlay-width", "25%"]),
            ("size.png", ["convert", background, "size.png", "--overlay", overlay, "--overlay-size", "25%"]),
            ("pixels.png", ["convert", background, "pixels.png", "--overlay", overlay, "--overlay-width", "40"]),
            ("merge40.png", ["merge", background, overlay, "--overlay-width", "40", "-o", "merge40.png"]),
            ("height.png", ["convert", background, "height.png", "--overlay", overlay, "--overlay-height", "50%"]),
            ("mergeh.png", ["merge", background, overlay, "--overlay-height", "50%", "-o", "mergeh.png"]),
        ] {
            let run = try CLIRunner.run(arguments, in: folder)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name))
        }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) }
        #expect(try bytes("merge.png") == bytes("width.png"))
        #expect(try bytes("width.png") == bytes("size.png"))
        #expect(try bytes("pixels.png") == bytes("merge40.png"))
        #expect(try bytes("height.png") == bytes("mergeh.png"))
        #expect(try bytes("pixels.png") != bytes("width.png"))

        let frames = try CLIRunner.run(
            ["frames", Self.samples + "/spinner.gif", "-o", "f", "--frames", "3..5"], in: folder)
        #expect(frames.status == 0, "\(frames.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/f").sorted() == [
                "frame-0003.png", "frame-0004.png", "frame-0005.png",
            ])
        let both = try CLIRunner.run(
            ["frames", Self.samples + "/spinner.gif", "-o", "g", "--frames", "1", "--range", "2"], in: folder)
        #expect(both.status == 64)
        #expect(!(try CLIRunner.run(["frames", "--help"]).stdout.contains("--range")), "the old name is hidden")
    }
}
