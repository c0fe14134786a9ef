import Foundation
import TestSupport
import Testing

/// Every command that reads images reads a path, a `file://` URL, a loopback `http://` URL and
/// standard input alike, and names a failing input exactly as it was typed.
@Suite("Every command takes every input kind", .serialized, .timeLimit(.minutes(5)))
struct InputKindsCLITests {
    /// The four spellings of one file served from `folder`: path, file URL, http URL, stdin.
    struct Spellings {
        let path: String
        let fileURL: String
        let httpURL: String
        let bytes: [UInt8]

        /// Runs `arguments` once per spelling, `{}` standing for the input; stdin gets the bytes
        /// when the spelling is `-`.
        func run(_ arguments: [String], in folder: String) throws -> [(String, RunResult)] {
            try [path, fileURL, httpURL, "-"].map { spelling in
                let filled = arguments.map { $0 == "{}" ? spelling : $0.replacingOccurrences(of: "{}", with: spelling) }
                return (spelling, try CLIRunner.run(filled, in: folder, stdin: spelling == "-" ? bytes : []))
            }
        }
    }

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples").path

    /// Serves `samples/` on a loopback port with Python's http.server while `body` runs.
    static func withServer<T>(_ body: (Int) throws -> T) throws -> T {
        let server = try LoopbackProcess(
            script: """
                import functools, http.server, sys
                handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                handler.log_message = lambda *args: None
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, arguments: [samples])
        defer { server.stop() }
        return try body(server.port)
    }

    func spellings(_ name: String, port: Int) throws -> Spellings {
        let path = Self.samples + "/" + name
        return Spellings(
            path: path, fileURL: "file://" + path, httpURL: "http://127.0.0.1:\(port)/\(name)",
            bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("info, animate --dry-run, frames, convert and merge give the same output from each input kind")
    func sameOutput() throws {
        try Self.withServer { port in
            let folder = try makeTemporaryFolder("kinds")
            let gif = try spellings("spinner.gif", port: port)
            // info: the same line, but for the name
            let infos = try gif.run(["info", "--json", "{}"], in: folder)
            for (spelling, run) in infos {
                #expect(run.status == 0, "\(spelling): \(run.stderr)")
                #expect(run.stdout.contains(#""file":"\#(spelling)""#))
            }
            let bodies = infos.map { $0.1.stdout.replacingOccurrences(of: $0.0, with: "X") }
            #expect(Set(bodies).count == 1, "\(bodies)")
            // animate: the same schedule
            let schedules = try gif.run(["animate", "{}", "--dry-run", "--loops", "1"], in: folder)
            #expect(schedules.allSatisfy { $0.1.status == 0 && !$0.1.stdout.isEmpty })
            #expect(Set(schedules.map(\.1.stdout)).count == 1)
            // frames, convert, merge: the same files
            var outputs: [[Data]] = []
            for (index, spelling) in [gif.path, gif.fileURL, gif.httpURL, "-"].enumerated() {
                let stdin = spelling == "-" ? gif.bytes : []
                let frames = try CLIRunner.run(
                    ["frames", spelling, "-o", "f\(index)", "--range", "3..5"], in: folder, stdin: stdin)
                #expect(frames.status == 0, "\(spelling): \(frames.stderr)")
                let converted = try CLIRunner.run(["convert", spelling, "c\(index).png"], in: folder, stdin: stdin)
                #expect(converted.status == 0, "\(spelling): \(converted.stderr)")
                let merged = try CLIRunner.run(
                    ["merge", Self.samples + "/background.png", spelling, "-o", "m\(index).png"], in: folder,
                    stdin: stdin)
                #expect(merged.status == 0, "\(spelling): \(merged.stderr)")
                let files = ["f\(index)/frame-0003.png", "f\(index)/frame-0005.png", "c\(index).png", "m\(index).png"]
                outputs.append(try files.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) })
            }
            #expect(outputs.allSatisfy { $0 == outputs[0] })
        }
    }

    @Test("A dead URL, a 404, the byte limit and a timeout give one line naming the input as typed")
    func failures() throws {
        try Self.withServer { port in
            let folder = try makeTemporaryFolder("kinds")
            let missing = "http://127.0.0.1:\(port)/missing.gif"
            let dead = "http://127.0.0.1:9/a.gif"
            let big = "http://127.0.0.1:\(port)/spinner.gif"
            for command in [["info"], ["animate", "--dry-run"], ["frames", "-o", "out"], ["convert"], ["merge"]] {
                for (input, extra, expected) in [
                    (missing, [String](), "HTTP status 404"), (dead, [], "connection refused"),
                    (big, ["--max-bytes", "100"], "raise it with --max-bytes"),
                    (Self.samples + "/spinner.gif", ["--max-bytes", "100"], "raise it with --max-bytes"),
                ] {
                    var arguments = command + [input] + extra
                    if command == ["convert"] { arguments.insert("out.png", at: 2) }
                    // merge: the same input as background and overlay
                    if command == ["merge"] { arguments.insert(input, at: 2) }
                    let run = try CLIRunner.run(arguments, in: folder)
                    let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
                    #expect(run.status == 1, "\(arguments): \(run.stderr)")
                    #expect(lines.count == 1 && lines[0].hasPrefix("error: \(input): "), "\(arguments): \(run.stderr)")
                    #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
        }
    }

    @Test("A server that never answers times out after --timeout, naming the URL")
    func timeout() throws {
        let silent = try LoopbackProcess(
            script: """
                import socket, time
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
                print(s.getsockname()[1], flush=True)
                held = []
                while True:
                    held.append(s.accept()[0])
                """)
        defer { silent.stop() }
        let url = "http://127.0.0.1:\(silent.port)/slow.gif"
        let run = try CLIRunner.run(["info", url, "--timeout", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: \(url): "), "\(run.stderr)")
        #expect(run.stderr.contains("timed out"), "\(run.stderr)")
    }
}

extension InputKindsCLITests {
    @Test("--timeout bounds the whole download: a server that drips a byte every 0.2 s is stopped")
    func drippingServerTimesOut() throws {
        let drip = try LoopbackProcess(
            script: """
                import socket, threading, time
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
                print(s.getsockname()[1], flush=True)
                def serve(c):
                    try:
                        c.recv(65536)
                        c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 100000\\r\\n\\r\\nGIF89a")
                        while True:
                            c.sendall(b"x"); time.sleep(0.2)
                    except OSError:
                        pass
                while True:
                    c = s.accept()[0]
                    threading.Thread(target=serve, args=(c,), daemon=True).start()
                """)
        defer { drip.stop() }
        let url = "http://127.0.0.1:\(drip.port)/drip.gif"
        let started = ContinuousClock.now
        let run = try CLIRunner.run(["info", url, "--timeout", "1.5"])
        let elapsed = ContinuousClock.now - started
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: \(url): timed out: the download took over"), "\(run.stderr)")
        #expect(elapsed < .seconds(6), "\(elapsed)")
        let huge = try CLIRunner.run(["info", url, "--timeout", "1e16"])
        #expect(huge.status == 64)
        #expect(
            huge.stderr.contains("--timeout 1e+16: expected a number of seconds above 0, at most 86400"),
            "\(huge.stderr)")
    }
}

/// A Python helper process that prints the loopback port it listens on, then serves until stopped,
/// or until this process dies (it exits when its standard input closes, so it never outlives the
/// test run or holds the runner's output open).
final class LoopbackProcess {
    let process = Process()
    let port: Int
    private let lifeline = Pipe()

    init(script: String, arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let watchdog = """
            import os, sys, threading
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()

            """
        process.arguments = ["python3", "-c", watchdog + script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = lifeline
        try process.run()
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}

extension InputKindsCLITests {
    /// A loopback server whose every answer is a gzip-coded body of 64 MiB of zeros (about 64 KB
    /// on the wire).
    static func gzipBombServer() throws -> LoopbackProcess {
        try LoopbackProcess(
            script: """
                import gzip, http.server
                body = gzip.compress(bytes(64 << 20), compresslevel=1)
                class Bomb(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        self.send_response(200)
                        self.send_header("Content-Encoding", "gzip")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    def log_message(self, *args):
                        pass
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bomb)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """)
    }

    @Test("--max-bytes counts a gzip download as it is decoded, in a command and in a batch job")
    func gzipBombStopsAtTheLimit() throws {
        let bomb = try Self.gzipBombServer()
        defer { bomb.stop() }
        let url = "http://127.0.0.1:\(bomb.port)/bomb.gif"
        let run = try CLIRunner.run(["info", url, "--max-bytes", "1000000"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: \(url): "), "\(run.stderr)")
        #expect(run.stderr.contains("passed the limit of 1000000 bytes while downloading"), "\(run.stderr)")

        let folder = try makeTemporaryFolder("gzip-bomb-batch")
        let jobs = BatchCLITests.line("bomb", ["info", url, "--max-bytes", "1000000"])
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let batch = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(batch.status == 1, "\(batch.stderr)")
        let error = BatchCLITests.reports(batch.stdout)["bomb"]?["error"] as? String
        #expect(
            error?.contains("passed the limit of 1000000 bytes while downloading") == true,
            "the shared fetcher stops at the jobs' limit, not after 64 MiB: \(batch.stdout)")
    }
}
