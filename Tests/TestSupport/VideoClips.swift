import Foundation

/// Small clips made by the ffmpeg command for the video tests (CI installs ffmpeg, see .ci/run),
/// and ffmpeg's own decode of them to RGBA: the same libavcodec as imgtool loads, so frames differ
/// by the colour conversion only.
public enum VideoClips {
    /// The ffmpeg command, or `nil` when it is not installed.
    public static let ffmpeg: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs ffmpeg with `arguments` (quiet, overwriting) and returns its standard output.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> [UInt8] {
        guard let ffmpeg else { throw Failure(message: "ffmpeg is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments
        let output = Pipe()
        let errors = Pipe()
        (process.standardOutput, process.standardError) = (output, errors)
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                message: "ffmpeg \(arguments.joined(separator: " ")): \(String(decoding: text, as: UTF8.self))")
        }
        return Array(bytes)
    }

    /// Makes `name` in `folder`: 10 frames of ffmpeg's `testsrc2` at `size` and 10 frames per
    /// second, `filters` applied, encoded with `encoder` (further options in `options`).
    public static func make(
        _ name: String, in folder: String, size: String = "64x48", filters: String? = nil, encoder: [String],
        frames: Int = 10
    ) throws -> String {
        let path = folder + "/" + name
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=10"]
        if let filters { arguments += ["-vf", filters] }
        arguments += ["-frames:v", String(frames)] + encoder + [path]
        try run(arguments)
        return path
    }

    /// ffmpeg's decode of `path` to 8-bit RGBA frames of `width` x `height` (turned as ffmpeg turns
    /// it), with `filters` (e.g. the colour matrix and range it converts from) and input options
    /// before `-i` (e.g. a decoder).
    public static func decode(
        _ path: String, width: Int, height: Int, filters: String? = nil, inputOptions: [String] = []
    ) throws -> [[UInt8]] {
        var arguments = inputOptions + ["-i", path]
        if let filters { arguments += ["-vf", filters] }
        arguments += ["-f", "rawvideo", "-pix_fmt", "rgba", "-"]
        let bytes = try run(arguments)
        let frameBytes = width * height * 4
        guard frameBytes > 0, bytes.count % frameBytes == 0 else {
            throw Failure(message: "ffmpeg gave \(bytes.count) bytes, not whole \(width)x\(height) frames")
        }
        return stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<$0 + frameBytes]) }
    }

    /// A failed ffmpeg run.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with ffmpeg's own text.
        public let message: String
        /// ``message``.
        public var description: String { message }
    }
}
