import ArgumentParser
import Foundation
import ImgToolKit

/// `imgtool batch JOBS`: many commands in one process, one NDJSON line each.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run many merge, convert, resize, frames and info jobs in one process, shardable across machines.",
        discussion: """
            JOBS is a file (or - for standard input) with one JSON object a line: \
            {"id": "a1", "args": ["merge", "in/1.jpg", "logo.png", "-o", "out/1.jpg"]}. "args" are \
            the words of the single command the job stands for, exactly as typed after imgtool; \
            "id" is optional (the line number otherwise). Blank lines and lines starting with # are \
            skipped. animate cannot run in a batch.

            Jobs run --jobs at a time in one process: a URL named by several jobs is fetched once, \
            and an input named by several merges (a watermark) is decoded once. Outputs are \
            written atomically; a job whose output exists and is newer than its local inputs is \
            skipped (--redo runs it again), so re-running a batch after a failure or a kill does \
            only what is left. Downloads use this command's --timeout.

            Sharding: --shard I/N runs the jobs whose stable hash (of their args) falls in shard I \
            of N, the same jobs on every machine and every re-run. Without --shard, the index \
            comes from JOB_COMPLETION_INDEX with --shards N (a Kubernetes Indexed Job) or from \
            AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE (an AWS Batch array job). \
            --plan prints the shards as a JSON array (an Argo withParam list) and runs nothing.

            Report: one JSON line per job on stdout (job, status ok|skipped|failed, output, bytes, \
            ms, error; info jobs add their info), a summary on stderr, and a progress line when \
            stderr is a terminal. Exit status: 0 when every job is ok or skipped, 1 when a job \
            failed (the others still run; --fail-fast stops at the first), 2 when the job file \
            has a malformed line (each is reported, naming the line and the field; the other \
            lines run) or the batch could not start, 128+N after signal N (jobs in flight are \
            cancelled, leaving no partial file).
            """
    )

    @Argument(help: "The job file (NDJSON), or - for standard input.")
    var jobFile: String

    @Option(name: .customLong("jobs"), help: "Jobs run at once. (default: the number of cores)")
    var concurrency: Int?

    @Option(help: "Run shard I of N: I/N, with 0 <= I < N.")
    var shard: Shard?

    @Option(help: "The shard count when the index comes from JOB_COMPLETION_INDEX, and for --plan.")
    var shards: Int?

    @Flag(help: "Print the shards as a JSON array and run nothing.")
    var plan = false

    @Flag(help: "Run jobs whose output is already up to date.")
    var redo = false

    @Flag(help: "Stop at the first failed job.")
    var failFast = false

    @Option(help: "Seconds one download may take in all, from connecting to its last byte (at most 86400).")
    var timeout: Double = 30

    func validate() throws {
        if let concurrency, concurrency < 1 { throw ValidationError("--jobs must be 1 or more") }
        if let shards, shards < 1 { throw ValidationError("--shards must be 1 or more") }
        guard timeout.isFinite, timeout > 0, timeout <= 86400 else {
            throw ValidationError("--timeout \(timeout): expected a number of seconds above 0, at most 86400 (a day)")
        }
    }

    func run() async throws {
        let jobs: [Job]
        let malformed: [JobFile.Malformed]
        let selected: Shard?
        do {
            let text = try Self.read(jobFile)
            (jobs, malformed) = JobFile.parseLines(text, name: jobFile)
            selected = try shard ?? Shard.fromEnvironment(ProcessInfo.processInfo.environment, shards: shards)
        } catch {
            Console.error("error: \(error)")
            throw ExitCode(2)
        }
        if plan {
            let count = shards ?? selected?.count ?? 1
            let entries: [JSONValue] = (0..<count).map { index in
                let part = Shard(index: index, count: count)
                return [
                    "shard": .string(part.description), "index": .int(index), "count": .int(count),
                    "jobs": .int(jobs.filter(part.contains).count),
                ]
            }
            Console.out(JSONValue.array(entries).serialized)
            return
        }
        let mine = jobs.filter { selected?.contains($0) ?? true }
        let runner = BatchRunner(
            concurrency: concurrency ?? ProcessInfo.processInfo.activeProcessorCount, redo: redo,
            failFast: failFast, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
        for problem in malformed {
            Console.out(BatchRunner.report(job: problem.line, status: "failed", error: problem.description))
        }
        let refused = BatchRunner.refusedOutputs(jobs)
        let summary = try await StopSignals.cancelling { await runner.run(mine, refused: refused) }
        Console.error(
            Self.summaryLine(summary, jobs: mine.count, malformed: malformed.count, shard: selected, inFile: jobs.count)
        )
        let signal = pendingSignal.load(ordering: .relaxed)
        if signal != 0 { throw ExitCode(128 + signal) }
        if !malformed.isEmpty { throw ExitCode(2) }
        if summary.failed > 0 || summary.cancelled { throw ExitCode.failure }
    }

    /// The summary on stderr. Its counts are those of the report lines on stdout: every job and
    /// malformed line counted once, `ok + skipped + failed + not run = jobs` (jobs left undone
    /// by `--fail-fast` or a signal have no line), malformed lines among the failed.
    static func summaryLine(
        _ summary: BatchRunner.Summary, jobs: Int, malformed: Int, shard: Shard?, inFile: Int
    ) -> String {
        let total = jobs + malformed
        var scope: [String] = []
        if malformed > 0 { scope.append("\(malformed) malformed line\(malformed == 1 ? "" : "s")") }
        if let shard { scope.append("shard \(shard), \(inFile) in the file") }
        let notRun = jobs - summary.ok - summary.skipped - summary.failed
        var counts = "\(summary.ok) ok, \(summary.skipped) skipped, \(summary.failed + malformed) failed"
        if notRun > 0 { counts += ", \(notRun) not run" }
        return
            "batch: \(total) job\(total == 1 ? "" : "s")\(scope.isEmpty ? "" : " (" + scope.joined(separator: "; ") + ")"): \(counts) in \(String(format: "%.2f", summary.seconds)) s"
    }

    /// The job file's text: a file, or standard input for `-`.
    static func read(_ name: String) throws -> String {
        let data: Data?
        if name == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: name)
        }
        guard let data else { throw JobFile.Malformed(description: "\(name): cannot read the job file") }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Shard: ExpressibleByArgument {
    /// `--shard I/N` (``BatchShard/init(parsing:)``).
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
