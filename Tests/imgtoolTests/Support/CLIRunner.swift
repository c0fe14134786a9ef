import Foundation
import ImgToolKit
import TestSupport

/// The output of one run of a program.
struct RunResult {
    var status: Int32
    /// Standard output, as bytes.
    var output: [UInt8]
    var stderr: String

    /// Standard output, as text.
    var stdout: String { String(decoding: output, as: UTF8.self) }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs the built `imgtool` binary (or another program) and captures what it prints: the one
/// process runner of the end-to-end tests.
enum CLIRunner {
    /// The `imgtool` executable next to the test bundle (SwiftPM builds it because this test
    /// target depends on it).
    static var executable: URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("imgtool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        // Fall back to the package's own build folder.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/imgtool")
    }

    /// Starts `wrapper... imgtool arguments...` (just `imgtool arguments...` without a wrapper)
    /// in `directory`, without waiting for it. Standard input is empty unless given; standard
    /// output and error go where given (a `Pipe`, a `FileHandle`), to `/dev/null` by default.
    static func start(
        _ arguments: [String], in directory: String? = nil, through wrapper: [String] = [],
        stdin: Any = FileHandle.nullDevice, stdout: Any = FileHandle.nullDevice, stderr: Any = FileHandle.nullDevice
    ) throws -> Process {
        let process = Process()
        let command = wrapper + [executable.path] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return process
    }

    /// Runs `imgtool arguments...` in `directory` with `stdin` as standard input, and returns
    /// its status and what it printed.
    static func run(_ arguments: [String], in directory: String? = nil, stdin: [UInt8] = []) throws -> RunResult {
        try run(
            start: { (input: Pipe, out: Pipe, err: Pipe) in
                try start(arguments, in: directory, stdin: input, stdout: out, stderr: err)
            }, stdin: stdin)
    }

    /// Runs `program arguments...` (not imgtool) in `directory`, like ``run(_:in:stdin:)``.
    static func run(program: String, _ arguments: [String], in directory: String? = nil) throws -> RunResult {
        try run(
            start: { (input: Pipe, out: Pipe, err: Pipe) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
                if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
                (process.standardInput, process.standardOutput, process.standardError) = (input, out, err)
                try process.run()
                return process
            }, stdin: [])
    }

    private static func run(start: (Pipe, Pipe, Pipe) throws -> Process, stdin: [UInt8]) throws -> RunResult {
        let (input, out, err) = (Pipe(), Pipe(), Pipe())
        let process = try start(input, out, err)
        input.fileHandleForWriting.write(Data(stdin))
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a large output cannot block the child. (stderr is
        // read after stdout reaches its end, so a child writing much to stderr first would block;
        // imgtool writes one line or a few to stderr.)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, output: Array(output), stderr: String(decoding: errors, as: UTF8.self))
    }

    /// Starts `imgtool arguments` in `folder`, waits until the shell test `condition` holds
    /// there (or imgtool has ended), sends `signal`, and returns the exit status as a shell
    /// reports it (128 + the signal for a process a signal ended) and whether the condition was
    /// seen first.
    ///
    /// A shell watches the folder and sends the signal, not this process: a test that waited in
    /// Swift would need a free thread of the cooperative pool, which other CLI tests may hold.
    /// This process starts and reaps imgtool: a shell's `wait` may never return here, as the
    /// pool's threads block SIGCHLD and children inherit that mask.
    static func signal(
        _ signal: Int32, _ arguments: [String], in folder: String, when condition: String
    ) throws -> (status: Int32, sawCondition: Bool) {
        let process = try start(arguments, in: folder)
        let script = """
            seen=no
            for i in $(seq 3000); do
                if \(condition); then seen=yes; break; fi
                kill -0 "$0" 2>/dev/null || break
                sleep 0.01
            done
            kill -\(signal) "$0" 2>/dev/null
            echo $seen
            """
        let watcher = try run(program: "/bin/sh", ["-c", script, String(process.processIdentifier)], in: folder)
        process.waitUntilExit()
        let status = process.terminationStatus
        return (process.terminationReason == .uncaughtSignal ? 128 + status : status, watcher.stdout == "yes\n")
    }
}

/// Writes `image` as a PNG made by the library's encoder to `path`.
func writeTestPNG(_ image: PixelBuffer, to path: String) throws {
    let bytes = try PNGEncoder().encode(image)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A new temporary PNG of `width` x `height` filled with `rgba`, except the left half with
/// `left`; returns its path.
func temporaryPNG(width: Int, height: Int, rgba: [UInt8], left: [UInt8]? = nil) throws -> String {
    let image = TestImages.make8(width: width, height: height) { x, _ in x < width / 2 ? left ?? rgba : rgba }
    return try makeTemporaryFile(try PNGEncoder().encode(image), name: "still.png")
}
