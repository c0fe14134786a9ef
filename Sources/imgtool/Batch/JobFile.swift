import Foundation
import ImgToolKit

/// One line of a job file: the words of the single command it stands for, and an optional id.
struct Job: Sendable, Hashable {
    /// The id the line gives, or its line number.
    var id: String
    /// The command's words, as typed after `imgtool`.
    var args: [String]
    /// The line it came from, from 1.
    var line: Int

    /// The stable shard key: FNV-1a 64 of the words, each followed by a zero byte, so the same line
    /// always lands in the same shard on every machine and run.
    var stableHash: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for word in args {
            for byte in word.utf8 + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        return hash
    }
}

/// Reads NDJSON job files: one object a line, `{"id": "a1", "args": ["merge", ...]}`; blank lines
/// and lines starting with `#` are skipped.
enum JobFile {
    /// A problem with the job file itself: a malformed line (reported as a failed job, the batch
    /// then exits 2), or a file that cannot be read (nothing runs).
    struct Malformed: Error, CustomStringConvertible {
        var description: String
        /// The line, for a malformed line.
        var line: String = "file"
    }

    /// Parses every line, keeping the good ones and a problem for each malformed one.
    static func parseLines(_ text: String, name: String) -> (jobs: [Job], malformed: [Malformed]) {
        var jobs: [Job] = []
        var malformed: [Malformed] = []
        var ids: Set<String> = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            do {
                if let job = try parse(line: String(raw), number: offset + 1, name: name) {
                    guard ids.insert(job.id).inserted else {
                        throw Malformed(
                            description: "\(name):\(offset + 1): id \"\(job.id)\" is used twice",
                            line: "line \(offset + 1)")
                    }
                    jobs.append(job)
                }
            } catch let problem as Malformed {
                malformed.append(problem)
            } catch {
                malformed.append(Malformed(description: "\(name):\(offset + 1): \(error)", line: "line \(offset + 1)"))
            }
        }
        return (jobs, malformed)
    }

    /// The commands a batch may run.
    static let commands: Set<String> = ["merge", "convert", "resize", "frames", "info"]

    /// Parses one line; `nil` for a blank line or a comment.
    /// - Throws: ``Malformed`` naming the file, the line and the field.
    static func parse(line raw: String, number line: Int, name: String) throws -> Job? {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        func fail(_ what: String) -> Malformed {
            Malformed(description: "\(name):\(line): \(what)", line: "line \(line)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
            throw fail("not a JSON object")
        }
        for key in object.keys.sorted() where key != "id" && key != "args" {
            throw fail("unknown field \"\(key)\" (a job has \"args\" and an optional \"id\")")
        }
        guard let args = object["args"] as? [Any] else { throw fail("field \"args\" is missing or not an array") }
        let words = try args.map { word -> String in
            guard let text = word as? String else { throw fail("field \"args\" must hold strings only") }
            return text
        }
        guard !words.isEmpty else { throw fail("field \"args\" is empty: name a command") }
        let id: String
        switch object["id"] {
        case nil: id = String(line)
        case let text as String: id = text
        case let number as NSNumber: id = number.stringValue
        default: throw fail("field \"id\" must be a string or a number")
        }
        return Job(id: id, args: words, line: line)
    }
}

/// Which part of the jobs this run does: `--shard I/N`, or the index an engine sets.
struct Shard: Sendable, Hashable, CustomStringConvertible {
    var index: Int
    var count: Int

    /// Whether `job` belongs to this shard.
    func contains(_ job: Job) -> Bool {
        count == 1 || Int(job.stableHash % UInt64(count)) == index
    }

    /// `I/N`.
    var description: String { "\(index)/\(count)" }

    /// Parses `I/N` with 0 <= I < N.
    init?(parsing text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count > 0,
            (0..<count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

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
