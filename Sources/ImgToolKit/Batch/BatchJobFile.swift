import Foundation

/// One line of a `batch` job file: the words of the single command it stands for, and an id.
public struct BatchJob: Sendable, Hashable {
    /// The id the line gives, or its line number.
    public var id: String
    /// The command's words, as typed after `imgtool`.
    public var args: [String]
    /// The line it came from, from 1.
    public var line: Int

    /// Creates a job.
    public init(id: String, args: [String], line: Int) {
        self.id = id
        self.args = args
        self.line = line
    }

    /// The stable shard key: FNV-1a 64 of the words, each followed by a zero byte, so the same line
    /// always lands in the same shard on every machine and run.
    public var stableHash: UInt64 {
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
/// and lines starting with `#` are skipped. Which commands a job may run is the caller's business.
public enum BatchJobFile {
    /// A problem with the job file itself: a malformed line (reported as a failed job), or a file
    /// that cannot be read.
    public struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the file and the line: `jobs.ndjson:3: not a JSON object`.
        public var description: String
        /// The line (`line 3`), for a malformed line; `file` otherwise.
        public var line: String

        /// Creates a problem.
        public init(description: String, line: String = "file") {
            self.description = description
            self.line = line
        }
    }

    /// Parses every line of `text` (the file named `name`), keeping the good ones and a problem
    /// for each malformed one (a line that is not a JSON object with a non-empty `"args"` array of
    /// strings and an optional string or number `"id"`, or that repeats an id), in line order.
    public static func parseLines(_ text: String, name: String) -> (jobs: [BatchJob], malformed: [Malformed]) {
        var jobs: [BatchJob] = []
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

    /// Parses one line, number `line` of the file named `name`; `nil` for a blank line or a comment.
    /// - Throws: ``Malformed`` naming the file, the line and the field.
    public static func parse(line raw: String, number line: Int, name: String) throws(Malformed) -> BatchJob? {
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
        var words: [String] = []
        for word in args {
            guard let text = word as? String else { throw fail("field \"args\" must hold strings only") }
            words.append(text)
        }
        guard !words.isEmpty else { throw fail("field \"args\" is empty: name a command") }
        let id: String
        switch object["id"] {
        case nil: id = String(line)
        case let text as String: id = text
        case let number as NSNumber: id = number.stringValue
        default: throw fail("field \"id\" must be a string or a number")
        }
        return BatchJob(id: id, args: words, line: line)
    }
}

/// Which part of a batch's jobs one run does: `--shard I/N`, or the index an engine sets. Every job
/// is in exactly one of the N shards, chosen by its ``BatchJob/stableHash``.
public struct BatchShard: Sendable, Hashable, CustomStringConvertible {
    /// This shard, from 0.
    public var index: Int
    /// How many shards there are, 1 or more.
    public var count: Int

    /// Whether `job` belongs to this shard.
    public func contains(_ job: BatchJob) -> Bool {
        count == 1 || Int(job.stableHash % UInt64(count)) == index
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// Parses `I/N` with 0 <= I < N; `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count > 0,
            (0..<count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    /// Shard `index` of `count`.
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
}
