import Testing

@testable import ImgToolKit

/// The parsers the command line and the fuzzers share: `convert`'s operation words and `batch`'s
/// job files, with their shards.
@Suite("Operation words and job files")
struct ParsingTests {
    @Test("words parse in order, --name=value splits, --filter and --linear reach every resize")
    func operationWords() throws {
        let operations = try ImageOperation.parse(words: [
            "--resize=50%", "--crop", "4:3", "--overlay", "logo.png", "--gravity", "SouthEast", "--offset", "-3,2",
            "--tile", "--resize", "8x6", "--filter", "mitchell", "--linear", "--speed", "2x",
        ])
        #expect(operations.count == 5)
        guard case .resize(let first) = operations[0], case .resize(let second) = operations[3],
            case .overlay(let overlay) = operations[2]
        else {
            Issue.record("unexpected operations: \(operations)")
            return
        }
        #expect(first.filter == .mitchell && first.linear && second.filter == .mitchell && second.linear)
        #expect(overlay.gravity == .southEast && overlay.offsetX == -3 && overlay.offsetY == 2 && overlay.tiles)
        #expect(operations[1] == .crop(CropOperation(.aspect(width: 4, height: 3))))
        #expect(operations[4] == .timing(.speed(2)))
    }

    @Test("an unknown word names itself and the suggestion; a placement needs an overlay")
    func operationWordErrors() {
        #expect(
            throws: ImgToolError(.invalidArgument, "unknown option or operation \"--rotat\"; did you mean --rotate?")
        ) {
            _ = try ImageOperation.parse(words: ["--rotat", "90"]) { _ in "--rotate" }
        }
        #expect(
            throws: ImgToolError(.invalidArgument, "unknown option or operation \"x\" (see imgtool convert --help)")
        ) { _ = try ImageOperation.parse(words: ["x"]) }
        #expect(throws: ImgToolError(.invalidArgument, "--crop needs a value")) {
            _ = try ImageOperation.parse(words: ["--crop"])
        }
        #expect(
            throws: ImgToolError(.invalidArgument, "--tile places an overlay: write it after --overlay FILE")
        ) { _ = try ImageOperation.parse(words: ["--tile"]) }
    }

    @Test("every line is a job, a malformed line naming itself, or blank or a comment")
    func jobFile() {
        let text = """
            # a comment
            {"id": "a", "args": ["info", "x.png"]}

            {"args": ["convert", "x.png", "y.webp"]}
            {"id": 7, "args": ["info", "y.png"]}
            {"id": "a", "args": ["info", "z.png"]}
            {"args": []}
            [1]
            """
        let (jobs, malformed) = BatchJobFile.parseLines(text, name: "jobs.ndjson")
        #expect(jobs.map(\.id) == ["a", "4", "7"])
        #expect(jobs.map(\.line) == [2, 4, 5])
        #expect(
            malformed.map(\.description) == [
                "jobs.ndjson:6: id \"a\" is used twice", "jobs.ndjson:7: field \"args\" is empty: name a command",
                "jobs.ndjson:8: not a JSON object",
            ])
        #expect(malformed.map(\.line) == ["line 6", "line 7", "line 8"])
    }

    @Test("each job is in exactly one shard of N, and I/N parses")
    func shards() {
        let jobs = (0..<50).map { BatchJob(id: "\($0)", args: ["info", "\($0).png"], line: $0 + 1) }
        for count in 1...5 {
            for job in jobs {
                #expect((0..<count).filter { BatchShard(index: $0, count: count).contains(job) }.count == 1)
            }
        }
        #expect(BatchShard(parsing: "2/3") == BatchShard(index: 2, count: 3))
        for bad in ["3/3", "-1/2", "1/0", "1", "a/b", "1/2/3"] { #expect(BatchShard(parsing: bad) == nil, "\(bad)") }
        // FNV-1a 64 of the words each followed by a zero byte: fixed, so shards agree across machines.
        #expect(BatchJob(id: "", args: ["a"], line: 1).stableHash == 0x089B_E207_B544_F1E4)
    }
}
