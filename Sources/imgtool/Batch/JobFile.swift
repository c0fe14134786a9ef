import Foundation
import ImgToolKit

/// One line of a job file (``BatchJob``, parsed by ImgToolKit's ``BatchJobFile``).
typealias Job = BatchJob

/// Reads NDJSON job files (``BatchJobFile``): one object a line, `{"id": "a1", "args": ["merge", ...]}`;
/// blank lines and lines starting with `#` are skipped.
enum JobFile {
    /// A problem with the job file itself: a malformed line (reported as a failed job, the batch
    /// then exits 2), or a file that cannot be read (nothing runs).
    typealias Malformed = BatchJobFile.Malformed

    /// Parses every line, keeping the good ones and a problem for each malformed one.
    static func parseLines(_ text: String, name: String) -> (jobs: [Job], malformed: [Malformed]) {
        BatchJobFile.parseLines(text, name: name)
    }

    /// The commands a batch may run.
    static let commands: Set<String> = ["merge", "convert", "resize", "frames", "info"]
}

/// Which part of the jobs this run does: `--shard I/N`, or the index an engine sets (``BatchShard``).
typealias Shard = BatchShard

extension Shard {
    /// The shard from the environment of an engine that runs arrays of the same command:
    /// Kubernetes Indexed Jobs set `JOB_COMPLETION_INDEX` (the count is `shards`), AWS Batch array
    /// jobs `AWS_BATCH_JOB_ARRAY_INDEX` and `AWS_BATCH_JOB_ARRAY_SIZE`.
    /// - Throws: ``JobFile/Malformed`` for an index that is not a number in range.
    static func fromEnvironment(_ environment: [String: String], shards: Int?) throws -> Shard? {
        if let text = environment["JOB_COMPLETION_INDEX"], let shards {
            guard let index = Int(text), (0..<shards).contains(index) else {
                throw JobFile.Malformed(description: "JOB_COMPLETION_INDEX=\(text) is not in 0..<\(shards) (--shards)")
            }
            return Shard(index: index, count: shards)
        }
        if let text = environment["AWS_BATCH_JOB_ARRAY_INDEX"] {
            let sizeText = environment["AWS_BATCH_JOB_ARRAY_SIZE"] ?? shards.map(String.init) ?? ""
            guard let index = Int(text), let size = Int(sizeText), size > 0, (0..<size).contains(index) else {
                throw JobFile.Malformed(
                    description:
                        "AWS_BATCH_JOB_ARRAY_INDEX=\(text) with AWS_BATCH_JOB_ARRAY_SIZE=\(sizeText) is not a shard")
            }
            return Shard(index: index, count: size)
        }
        return nil
    }
}
