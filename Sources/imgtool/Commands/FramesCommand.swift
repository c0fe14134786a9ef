import ArgumentParser
import ImgToolKit

/// `imgtool frames INPUT -o DIR`: every composited frame as a file of its own.
struct FramesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Write every frame of an image as a file of its own (frame-0000.png, ...).",
        discussion: """
            Frames are composited as a player shows them and written as PNG, or in the format \
            --format names (any format imgtool writes: see imgtool formats). DIR is created when \
            missing; when the input is rejected, or SIGINT, SIGTERM or SIGHUP stops the command \
            (exit status 128+N), the frames written so far are removed and no empty DIR is left \
            behind.
            """
    )

    @Argument(help: "The image: a path, a file:// or http(s):// URL, or - for standard input.")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The folder to write frames into.")
    var output: String

    @Option(help: "The format of the frame files. (default: png)")
    var format = "png"

    @Option(help: "Sample depth decoded: 8, or 16 to keep 16-bit samples (PNG).")
    var depth: Int = 8

    @Option(help: "Only these frames: N, A..B (inclusive), A.. or ..B.")
    var range: FrameSelection?

    @Option(help: "zlib compression level of PNG files, 0-9 (default: chosen per image).")
    var level: Int?

    @Option(help: "Lossy quality, 1-100 (JPEG, WebP). (default: the format's own)")
    var quality: Int?

    @OptionGroup var reading: InputOptions

    func validate() throws {
        guard depth == 8 || depth == 16 else { throw ValidationError("--depth must be 8 or 16, not \(depth)") }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be 1-100, not \(quality)")
        }
        guard let codec = CodecRegistry.standard.codec(named: format), codec.capabilities.contains(.write) else {
            let writable = CodecRegistry.standard.writers.map(\.format.rawValue).joined(separator: ", ")
            throw ValidationError("--format \(format): imgtool writes \(writable)")
        }
    }

    func run() async throws {
        guard let codec = CodecRegistry.standard.codec(named: format) else { throw ExitCode.validationFailure }
        let export = FrameExport(
            folder: output, selection: range, depth: depth == 16 ? nil : .eight, codec: codec,
            options: ImageWriteOptions(compressionLevel: level, quality: quality))
        let (input, reading) = (input, reading)
        let written = try await StopSignals.run { () async throws(ImgToolError) -> Int in
            let source = try await reading.open(input)
            let paths = try await export.write(source)
            if !source.info.isComplete {
                for warning in source.info.warnings { Console.error("warning: \(input): \(warning)") }
            }
            return paths.count
        }
        Console.error("wrote \(written) frame\(written == 1 ? "" : "s") to \(output)")
    }
}

extension FrameSelection: ExpressibleByArgument {
    /// Parses `N`, `A..B`, `A..` or `..B`.
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
