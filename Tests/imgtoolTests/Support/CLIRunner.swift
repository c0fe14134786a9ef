import Foundation
import ImgToolKit

/// Runs the built `imgtool` binary and captures what it prints.
struct CLIRunner {
    typealias Result = RunResult

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

    /// Runs `imgtool arguments...` in `directory`, with `stdin` as standard input.
    static func run(_ arguments: [String], in directory: String? = nil, stdin: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh temporary folder for one test.
func makeTemporaryFolder(_ label: String = "cli") throws -> String {
    let path = NSTemporaryDirectory() + "imgtool-\(label)-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes a small PNG made by the encoder and returns its path.
func writeTestPNG(_ image: PixelBuffer, to path: String) throws {
    let bytes = try PNGEncoder().encode(image)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A `width` x `height` gradient with varying alpha.
func gradient(width: Int, height: Int) -> PixelBuffer {
    var samples: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            samples += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 90, 200]
        }
    }
    return PixelBuffer(width: width, height: height, rgba8: samples)
}
