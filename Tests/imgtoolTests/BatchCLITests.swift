import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `imgtool batch`: jobs fail alone, shards partition the jobs, re-runs skip what is done, a stop
/// signal leaves no partial file, and a shared URL is fetched once.
@Suite("imgtool batch", .serialized, .timeLimit(.minutes(5)))
struct BatchCLITests {
    static let samples = InputKindsCLITests.samples

    /// A job line.
    static func line(_ id: String, _ args: [String]) -> String {
        let object: [String: Any] = ["id": id, "args": args]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The report lines of a run, by job id.
    static func reports(_ stdout: String) -> [String: [String: Any]] {
        var byID: [String: [String: Any]] = [:]
        for line in stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let job = object["job"] as? String
            else { continue }
            byID[job] = object
        }
        return byID
    }

    @Test("A malformed line, an unknown command, a missing input and a dead URL fail only their own job")
    func failuresStayAlone() throws {
        let folder = try makeTemporaryFolder("batch")
        let jobs = [
            Self.line(
                "good", ["merge", Self.samples + "/background.png", Self.samples + "/overlay.png", "-o", "a.png"]),
            "{\"args\": \"merge\"}",
            Self.line("unknown", ["blend", "x.png"]),
            Self.line("missing", ["convert", "missing.png", "b.png"]),
            Self.line("dead", ["info", "http://127.0.0.1:9/dead.gif"]),
            Self.line("info", ["info", Self.samples + "/spinner.gif"]),
        ].joined(separator: "\n")
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 2, "a malformed line makes the exit status 2: \(run.stderr)")
        let reports = Self.reports(run.stdout)
        #expect(reports["good"]?["status"] as? String == "ok")
        #expect(reports["info"]?["status"] as? String == "ok")
        #expect((reports["line 2"]?["error"] as? String)?.contains("jobs.ndjson:2: field \"args\"") == true)
        #expect((reports["unknown"]?["error"] as? String)?.contains("unknown command \"blend\"") == true)
        #expect((reports["missing"]?["error"] as? String)?.hasPrefix("missing.png: no such file") == true)
        #expect((reports["dead"]?["error"] as? String)?.hasPrefix("http://127.0.0.1:9/dead.gif: ") == true)
        #expect(FileManager.default.fileExists(atPath: folder + "/a.png"))
        #expect(run.stderr.contains("2 ok, 0 skipped, 4 failed"), "\(run.stderr)")

        // Without the malformed line, a failed job makes the exit status 1.
        let valid = jobs.split(separator: "\n").filter { !$0.contains("\"merge\"}") }.joined(separator: "\n")
        try Data(valid.utf8).write(to: URL(fileURLWithPath: folder + "/valid.ndjson"))
        #expect(try CLIRunner.run(["batch", "valid.ndjson", "--redo"], in: folder).status == 1)
    }

    @Test("Shards 0..N-1 run every job exactly once, for several N; --plan counts the same jobs")
    func shardsPartition() throws {
        let folder = try makeTemporaryFolder("batch")
        let jobs = (0..<40).map {
            Self.line("j\($0)", ["info", Self.samples + "/overlay.png", "--max-frames", "\($0 + 1)"])
        }
        try Data(jobs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        for count in [1, 2, 3, 5] {
            var seen: [String] = []
            let plan = try CLIRunner.run(["batch", "jobs.ndjson", "--plan", "--shards", "\(count)"], in: folder)
            let planned = try #require(
                try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])
            #expect(planned.count == count)
            for index in 0..<count {
                let run = try CLIRunner.run(["batch", "jobs.ndjson", "--shard", "\(index)/\(count)"], in: folder)
                #expect(run.status == 0, "\(run.stderr)")
                let ids = Array(Self.reports(run.stdout).keys)
                #expect(planned[index]["jobs"] as? Int == ids.count)
                seen += ids
            }
            #expect(seen.sorted() == (0..<40).map { "j\($0)" }.sorted(), "N = \(count)")
        }
        // A Kubernetes Indexed Job and an AWS Batch array job name the same shard as --shard.
        let explicit = Set(
            Self.reports(try CLIRunner.run(["batch", "jobs.ndjson", "--shard", "1/3"], in: folder).stdout).keys)
        for environment in [
            ["JOB_COMPLETION_INDEX=1"], ["AWS_BATCH_JOB_ARRAY_INDEX=1", "AWS_BATCH_JOB_ARRAY_SIZE=3"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = environment + [CLIRunner.executable.path, "batch", "jobs.ndjson", "--shards", "3"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(Set(Self.reports(text).keys) == explicit, "\(environment)")
        }
    }

    @Test("Two jobs with one output, a job writing to -, and a frames job whose -o is a file fail before running")
    func outputsRefusedBeforeRunning() throws {
        let folder = try makeTemporaryFolder("batch-outputs")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("a file".utf8).write(to: URL(fileURLWithPath: folder + "/notafolder"))
        let spinner = Self.samples + "/spinner.gif"
        let jobs = [
            Self.line("one", ["convert", spinner, "same.png"]),
            Self.line("two", ["resize", spinner, "./same.png", "--width", "10"]),
            Self.line("stdout", ["convert", spinner, "-", "--format", "png"]),
            Self.line("frames", ["frames", spinner, "-o", "notafolder"]),
            Self.line("fine", ["convert", spinner, "fine.gif"]),
        ].joined(separator: "\n")
        let run = try CLIRunner.run(["batch", "-"], in: folder, stdin: Array(jobs.utf8))
        #expect(run.status == 1, "\(run.stderr)")
        // Every line of standard output is a report: no image bytes among them.
        #expect(run.lines.count == 5 && run.lines.allSatisfy { $0.hasPrefix("{") }, "\(run.stdout)")
        let reports = Self.reports(run.stdout)
        #expect(
            reports["one"]?["error"] as? String
                == "same.png is also the output of job two (line 2); give each job its own output")
        #expect(
            reports["two"]?["error"] as? String
                == "./same.png is also the output of job one (line 1); give each job its own output")
        #expect((reports["stdout"]?["error"] as? String)?.hasPrefix("writes to standard output (-)") == true)
        #expect(reports["frames"]?["status"] as? String == "failed")
        #expect((reports["frames"]?["error"] as? String)?.contains("notafolder") == true)
        #expect(reports["fine"]?["status"] as? String == "ok")
        #expect(!FileManager.default.fileExists(atPath: folder + "/same.png"))
        #expect(try String(contentsOfFile: folder + "/notafolder", encoding: .utf8) == "a file")
    }

    @Test("A re-run skips outputs newer than their inputs; --redo runs them again")
    func rerunSkips() throws {
        let folder = try makeTemporaryFolder("batch")
        let jobs = [
            Self.line("m", ["merge", Self.samples + "/background.png", Self.samples + "/overlay.png", "-o", "m.png"]),
            Self.line("c", ["convert", Self.samples + "/spinner.gif", "c.png"]),
        ]
        try Data(jobs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let first = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(first.status == 0)
        #expect(Self.reports(first.stdout).values.allSatisfy { $0["status"] as? String == "ok" })
        let second = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(Self.reports(second.stdout).values.allSatisfy { $0["status"] as? String == "skipped" })
        let third = try CLIRunner.run(["batch", "jobs.ndjson", "--redo"], in: folder)
        #expect(Self.reports(third.stdout).values.allSatisfy { $0["status"] as? String == "ok" })
    }

    @Test("SIGTERM mid-run leaves no partial file, and a re-run finishes the rest")
    func killedAndResumed() throws {
        let folder = try makeTemporaryFolder("batch")
        let animation = try StopSignalTests.movingSquare(count: 120, side: 160)
        try Data(animation).write(to: URL(fileURLWithPath: folder + "/anim.png"))
        let jobs = (0..<12).map { Self.line("c\($0)", ["convert", "anim.png", "out\($0).png", "--level", "9"]) }
        try Data(jobs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let (status, sawOutput) = try StopSignalTests.terminate(
            ["batch", "jobs.ndjson", "--jobs", "2"], in: folder, when: "out*.png")
        #expect(sawOutput)
        #expect(status == 143)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!names.contains { $0.hasPrefix(".") }, "temporary files left: \(names)")
        let finished = names.filter { $0.hasPrefix("out") }
        for name in finished {
            #expect(try ImageSource(contentsOf: folder + "/" + name).info.frameCount == 120, "\(name) is whole")
        }
        let rerun = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let reports = Self.reports(rerun.stdout)
        #expect(reports.values.filter { $0["status"] as? String == "skipped" }.count == finished.count)
        #expect(reports.count == 12)
    }

    @Test("The same URL in 100 jobs is fetched once")
    func sharedURLFetchedOnce() throws {
        let folder = try makeTemporaryFolder("batch")
        let server = try LoopbackProcess(
            script: """
                import functools, http.server, sys
                class Counting(http.server.SimpleHTTPRequestHandler):
                    def log_message(self, *args):
                        with open(sys.argv[2], "a") as log:
                            log.write(self.path + "\\n")
                handler = functools.partial(Counting, directory=sys.argv[1])
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, arguments: [Self.samples, folder + "/requests.log"])
        defer { server.stop() }
        let logo = "http://127.0.0.1:\(server.port)/overlay.png"
        let merges = (0..<100).map {
            Self.line(
                "m\($0)", ["merge", Self.samples + "/background.png", logo, "-o", "m\($0).png", "--offset", "\($0),0"])
        }
        let converts = (0..<20).map {
            Self.line("c\($0)", ["convert", "http://127.0.0.1:\(server.port)/spinner.gif", "c\($0).png"])
        }
        try Data((merges + converts).joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.reports(run.stdout).values.allSatisfy { $0["status"] as? String == "ok" })
        let requests = try String(contentsOfFile: folder + "/requests.log", encoding: .utf8).split(separator: "\n")
        #expect(requests.filter { $0 == "/overlay.png" }.count == 1)
        #expect(requests.filter { $0 == "/spinner.gif" }.count == 1)
    }
}
