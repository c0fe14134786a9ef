import ArgumentParser
import Foundation
import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a batch's jobs, at most ``concurrency`` at once, in one process, sharing one fetcher and
/// one cache of decoded inputs, and prints one JSON line per job as it ends.
struct BatchRunner: Sendable {
    /// Jobs run at once.
    var concurrency: Int
    /// Whether up-to-date outputs are made again.
    var redo: Bool
    /// Whether the first failure stops the batch.
    var failFast: Bool
    /// The longest one download of the shared fetcher may take.
    var timeout: Duration

    /// What the batch did.
    struct Summary: Sendable {
        var ok = 0
        var skipped = 0
        var failed = 0
        /// Whether jobs were left undone (a stop signal, or `--fail-fast`).
        var cancelled = false
        var seconds = 0.0
    }

    /// One job, parsed.
    private struct Prepared: Sendable {
        var job: Job
        var command: Result<any BatchableCommand, JobFile.Malformed>
    }

    /// Runs `jobs` and returns the counts. A job named in `refused` (by its line) fails with
    /// that reason without running (see ``refusedOutputs(_:)``).
    func run(_ jobs: [Job], refused: [Int: String] = [:]) async -> Summary {
        let start = ContinuousClock.now
        let prepared = jobs.map { job in
            Prepared(
                job: job,
                command: refused[job.line].map { .failure(JobFile.Malformed(description: $0)) } ?? Self.parse(job))
        }
        let fetcher = BatchFetcher(base: HTTPFetcher(timeout: timeout))
        let cache = LoadedImageCache()
        var urls: [String] = []
        var keys: [String] = []
        var firstRemote: String?
        for case .success(let command) in prepared.map(\.command) {
            let remote = command.inputNames.filter { (try? ImageInput($0))?.isRemote == true }
            firstRemote = firstRemote ?? remote.first
            let cached = command.cacheKeys
            keys += cached
            if cached.isEmpty { urls += remote }
        }
        // A job whose URL cannot be fetched (no libcurl) fails with its own error; the others run.
        if let firstRemote { try? CurlLibrary.load(toFetch: firstRemote) }
        await fetcher.expect(urls)
        await cache.expect(keys)
        var summary = Summary()
        var progress = BatchProgress(total: jobs.count)
        await withTaskGroup(of: (String, Status).self) { group in
            var next = 0
            var inFlight = 0
            func record(_ result: (String, Status)?) {
                guard let (line, status) = result else { return }
                inFlight -= 1
                Console.out(line)
                switch status {
                case .ok: summary.ok += 1
                case .skipped: summary.skipped += 1
                case .failed: summary.failed += 1
                }
                progress.update(done: summary.ok + summary.skipped + summary.failed, failed: summary.failed)
            }
            while next < prepared.count {
                if Task.isCancelled || (failFast && summary.failed > 0) {
                    summary.cancelled = true
                    break
                }
                if inFlight == max(concurrency, 1) { record(await group.next()) }
                if failFast && summary.failed > 0 { continue }
                let item = prepared[next]
                next += 1
                let context = CommandContext(
                    fetcher: fetcher, cache: cache, showsProgress: false, replacesOutputs: true, note: { _ in })
                let redo = self.redo
                group.addTask { await Self.execute(item, context: context, redo: redo) }
                inFlight += 1
            }
            if summary.cancelled { group.cancelAll() }
            while inFlight > 0 { record(await group.next()) }
        }
        progress.finish()
        summary.seconds = (ContinuousClock.now - start).milliseconds / 1000
        return summary
    }

    /// The jobs of `jobs` that must not run because of where they write, by line, with the reason:
    /// every job whose output another job also writes (the last to finish would win, and both
    /// would report ok), and every job writing to standard output (`-`), which carries the report.
    /// Worked out over the whole job file, before any job runs, so that shards agree.
    static func refusedOutputs(_ jobs: [Job]) -> [Int: String] {
        var refused: [Int: String] = [:]
        var writers: [String: [(job: Job, output: String)]] = [:]
        var order: [String] = []
        for job in jobs {
            guard case .success(let command) = parse(job), let output = command.outputPath else { continue }
            if output == "-" {
                refused[job.line] =
                    "writes to standard output (-), which carries the batch's report; name an output file"
                continue
            }
            let key = URL(fileURLWithPath: output).standardizedFileURL.path
            if writers[key] == nil { order.append(key) }
            writers[key, default: []].append((job, output))
        }
        for key in order {
            guard let sharing = writers[key], sharing.count > 1 else { continue }
            for (job, output) in sharing {
                let others = sharing.filter { $0.job.line != job.line }.map { "job \($0.job.id) (line \($0.job.line))" }
                refused[job.line] =
                    "\(output) is also the output of \(others.joined(separator: ", ")); give each job its own output"
            }
        }
        return refused
    }

    private enum Status: Sendable {
        case ok, skipped, failed
    }

    /// The command a job stands for, or why it cannot run.
    private static func parse(_ job: Job) -> Result<any BatchableCommand, JobFile.Malformed> {
        let name = job.args.first ?? ""
        guard JobFile.commands.contains(name) else {
            let nearest = UsageSuggestions.nearest(to: name, among: JobFile.commands).map { " (did you mean \($0)?)" }
            let why =
                name == "animate"
                ? "animate plays in a terminal and cannot run in a batch"
                : "unknown command \"\(name)\"\(nearest ?? "")"
            return .failure(
                JobFile.Malformed(
                    description: "\(why); a job runs one of \(JobFile.commands.sorted().joined(separator: ", "))"))
        }
        do {
            let parsed = try ImgTool.parseChecked(job.args)
            guard let command = parsed as? any BatchableCommand else {
                return .failure(JobFile.Malformed(description: "\(name) cannot run in a batch"))
            }
            return .success(command)
        } catch {
            let message = ImgTool.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            return .failure(JobFile.Malformed(description: "usage: \(message)"))
        }
    }

    /// Runs one job and returns its report line.
    @concurrent
    private static func execute(_ item: Prepared, context: CommandContext, redo: Bool) async -> (String, Status) {
        let start = ContinuousClock.now
        let notes = Locked<[String]>([])
        var context = context
        context.note = { line in notes.withLock { $0.append(line) } }
        func milliseconds() -> Double { (ContinuousClock.now - start).milliseconds }
        let command: any BatchableCommand
        switch item.command {
        case .success(let parsed): command = parsed
        case .failure(let problem):
            return (report(job: item.job.id, status: "failed", error: problem.description), .failed)
        }
        if !redo, let output = command.outputPath,
            isUpToDate(output, inputs: command.inputNames, folder: command is FramesCommand)
        {
            return (report(job: item.job.id, status: "skipped", output: output, bytes: size(of: output)), .skipped)
        }
        do {
            let outcome = try await command.perform(in: context)
            let line = report(
                job: item.job.id, status: "ok", output: outcome.output, bytes: outcome.output.flatMap(size(of:)),
                ms: milliseconds(), notes: notes.withLock { $0 },
                info: command is InfoCommand ? outcome.data : nil)
            return (line, .ok)
        } catch let failure as InfoCommand.InfoFailure {
            // The files that opened are reported beside the one that failed, each with its object.
            return (
                report(
                    job: item.job.id, status: "failed", ms: milliseconds(), error: failure.description,
                    notes: notes.withLock { $0 }, info: failure.data), .failed
            )
        } catch let error as ImgToolError {
            return (
                report(
                    job: item.job.id, status: "failed", ms: milliseconds(), error: error.commandLineDescription,
                    notes: notes.withLock { $0 }), .failed
            )
        } catch {
            let message = ImgTool.message(for: error)
            return (
                report(job: item.job.id, status: "failed", ms: milliseconds(), error: message), .failed
            )
        }
    }

    /// One report line, keys sorted.
    static func report(
        job: String, status: String, output: String? = nil, bytes: Int? = nil, ms: Double? = nil, error: String? = nil,
        notes: [String] = [], info: JSONValue? = nil
    ) -> String {
        var object: [String: JSONValue] = ["job": .string(job), "status": .string(status)]
        if let output { object["output"] = .string(output) }
        if let bytes { object["bytes"] = .int(bytes) }
        if let ms { object["ms"] = .milliseconds(ms) }
        if let error { object["error"] = .string(error) }
        if !notes.isEmpty { object["notes"] = .array(notes.map(JSONValue.string)) }
        if let info { object["info"] = info }
        return JSONValue.object(object).serialized
    }

    /// Whether `output` exists, is a folder when `folder` (a `frames` job's) or a file otherwise,
    /// and is newer than every input that is a local file. An output of the wrong kind is not up
    /// to date: the job runs and says what is wrong.
    static func isUpToDate(_ output: String, inputs: [String], folder: Bool = false) -> Bool {
        var status = stat()
        guard stat(output, &status) == 0, (status.st_mode & S_IFMT) == (folder ? S_IFDIR : S_IFREG) else {
            return false
        }
        let outputTime = status.st_mtim
        for name in inputs {
            guard let input = try? ImageInput(name) else { return false }
            switch input.location {
            case .file(let path):
                guard let inputTime = modified(path), inputTime < outputTime else { return false }
            case .standardInput, .memory:
                return false
            case .remote:
                continue
            }
        }
        return true
    }

    private static func modified(_ path: String) -> timespec? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mtim
    }

    private static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }
}

extension timespec {
    static func < (lhs: timespec, rhs: timespec) -> Bool {
        (lhs.tv_sec, lhs.tv_nsec) < (rhs.tv_sec, rhs.tv_nsec)
    }
}

/// `batch: 120 of 1000 done, 2 failed` on stderr when it is a terminal, at most ten times a second.
struct BatchProgress {
    let total: Int
    private var line = StatusLine()
    private var lastDraw = ContinuousClock.now
    private let enabled = StatusLine.stderrIsTerminal

    init(total: Int) {
        self.total = total
    }

    mutating func update(done: Int, failed: Int) {
        guard enabled, ContinuousClock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = .now
        line.draw("batch: \(done) of \(total) done\(failed > 0 ? ", \(failed) failed" : "")")
    }

    mutating func finish() {
        if line.isDrawn { line.draw(nil) }
    }
}
