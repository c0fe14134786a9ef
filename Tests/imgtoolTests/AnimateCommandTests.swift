import Foundation
import Testing

@Suite("imgtool animate, end to end", .serialized, .timeLimit(.minutes(5)))
struct AnimateCommandTests {
    @Test("--json on a still PNG prints one sorted-key line per frame and never loops forever")
    func jsonLines() throws {
        let path = try temporaryPNG(width: 8, height: 4, rgba: [200, 100, 50, 255])
        let result = try CLIRunner.run(["animate", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 1)
        let line = try #require(result.lines.first)
        #expect(line.hasPrefix(#"{"delay_ms":100,"dropped":0,"index":0,"lateness_ms":"#))
        #expect(line.contains(#""loop":0,"t_ms":"#))
    }

    @Test("--loops, --delay and --stats")
    func loopsAndStats() throws {
        let path = try temporaryPNG(width: 8, height: 4, rgba: [1, 2, 3, 255])
        let result = try CLIRunner.run(["animate", path, "--json", "--loops", "3", "--delay", "0.01", "--stats"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 3)
        #expect(result.lines.map { $0.contains(#""delay_ms":10,"#) } == [true, true, true])
        for (play, line) in result.lines.enumerated() { #expect(line.contains(#""loop":\#(play),"#)) }
        let stats = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("stats: ") })
        #expect(stats.contains("delivered=3 dropped=0"))
        #expect(stats.contains("lateness_p99_ms="))
        #expect(stats.contains("fps="))
    }

    @Test("Ctrl-C in --json mode stops before the next frame, still prints --stats, and exits 130")
    func interruptedJSON() throws {
        let path = try temporaryPNG(width: 8, height: 4, rgba: [5, 6, 7, 255])
        let (out, err) = (Pipe(), Pipe())
        let process = try CLIRunner.start(
            ["animate", path, "--json", "--loops", "0", "--delay", "0.02", "--stats"], stdout: out, stderr: err)
        // Wait for the first frame's line: by then the signal handlers are installed.
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += chunk
        }
        kill(process.processIdentifier, SIGINT)
        printed += out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 130, "\(stderr)")
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }, "only whole JSON lines")
        let stats = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("stats: ") }, "\(stderr)")
        #expect(stats.contains("delivered=\(lines.count) "))
    }

    @Test("--dry-run --json prints the whole schedule at once")
    func dryRun() throws {
        let path = try temporaryPNG(width: 6, height: 3, rgba: [9, 9, 9, 255])
        let result = try CLIRunner.run([
            "animate", path, "--dry-run", "--json", "--loops", "2", "--delay-policy", "min=40",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines == [
                #"{"blend":"source","delay_ms":40,"disposal":"none","duration_ms":40,"index":0,"loop":0,"raw_delay_ms":0,"region":{"height":3,"width":6,"x":0,"y":0},"start_ms":0}"#,
                #"{"blend":"source","delay_ms":40,"disposal":"none","duration_ms":40,"index":0,"loop":1,"raw_delay_ms":0,"region":{"height":3,"width":6,"x":0,"y":0},"start_ms":40}"#,
            ])
    }

    @Test("a missing file and a bad start index fail with status 1 and name the input")
    func errors() throws {
        let missing = try CLIRunner.run(["animate", "/nonexistent/imgtool-missing.gif", "--json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("error: /nonexistent/imgtool-missing.gif: no such file"))
        let path = try temporaryPNG(width: 2, height: 2, rgba: [0, 0, 0, 255])
        let index = try CLIRunner.run(["animate", path, "--json", "--start-index", "4"])
        #expect(index.status == 1)
        #expect(index.stderr.contains("\(path): start index 4 does not exist"))
        let usage = try CLIRunner.run(["animate", path, "--speed", "0"])
        #expect(usage.status == 64)
    }
}
