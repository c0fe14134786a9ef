import Foundation
import FuzzSupport
import ImgToolKit

/// `batch`'s job files: the input is the file's text, parsed with
/// ``BatchJobFile/parseLines(_:name:)``. Every line must be exactly one of a job, a malformed line
/// whose description names that line, or a blank line or comment; ids are unique; each job lands
/// in exactly one of N shards for N in 1...4, the shard `I/N` parses back to the same shard, and
/// the hash is stable.
@main
enum FuzzBatchJobs {
    static func main() { FuzzDriver.run(run) }

    static func run(_ bytes: [UInt8]) {
        guard bytes.count <= 1 << 16 else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let (jobs, malformed) = BatchJobFile.parseLines(text, name: "jobs.ndjson")

        var seen: Set<Int> = []
        var ids: Set<String> = []
        for job in jobs {
            precondition(lines.indices.contains(job.line - 1), "job line \(job.line) of \(lines.count)")
            precondition(seen.insert(job.line).inserted, "line \(job.line) gave two jobs")
            precondition(ids.insert(job.id).inserted, "id \(job.id) used twice")
            precondition(!job.args.isEmpty, "a job without words")
            precondition(job.stableHash == BatchJob(id: "", args: job.args, line: 0).stableHash, "unstable hash")
            for count in 1...4 {
                let shards = (0..<count).filter { BatchShard(index: $0, count: count).contains(job) }
                precondition(shards.count == 1, "line \(job.line) is in shards \(shards) of \(count)")
                precondition(BatchShard(parsing: "\(shards[0])/\(count)") == BatchShard(index: shards[0], count: count))
            }
        }
        for problem in malformed {
            precondition(problem.line.hasPrefix("line "), "a malformed line without its number: \(problem.line)")
            guard let number = Int(problem.line.dropFirst(5)) else { preconditionFailure("bad \(problem.line)") }
            precondition(lines.indices.contains(number - 1), "malformed line \(number) of \(lines.count)")
            precondition(seen.insert(number).inserted, "line \(number) is both a job and malformed, or malformed twice")
            precondition(
                problem.description.hasPrefix("jobs.ndjson:\(number): "),
                "does not name its line: \(problem.description)")
        }
        for (offset, line) in lines.enumerated() where !seen.contains(offset + 1) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            precondition(trimmed.isEmpty || trimmed.hasPrefix("#"), "line \(offset + 1) was dropped: \(line)")
        }
    }
}
