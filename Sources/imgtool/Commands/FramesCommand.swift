import ArgumentParser
import ImgToolKit

/// `imgtool frames INPUT -o DIR`: every composited frame as a file of its own.
struct FramesCommand: BatchableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Write every frame of an image as a file of its own (frame-0000.png, ...).",
        discussion: """
            Frames are composited as a player shows them and written as PNG, or in the format \
            --format names (any format imgtool writes: see imgtool formats). DIR is created when \
            missing; a frame file that exists there is replaced only with --force (without it, \
            nothing is written and the first such file is named); when the input is rejected, or SIGINT, SIGTERM or SIGHUP stops the command \
            (exit status 128+N), the frames written so far are removed and no empty DIR is left \
            behind.
            """
    )

    @Argument(help: "The image: a path, a file:// or http(s):// URL, or - for standard input.")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The folder to write frames into.")
    var output: String

    @Flag(help: "Replace frame files that exist in the folder.")
    var force = false

    @Option(help: "The format of the frame files. (default: png)")
    var format = "png"

    @Option(help: "Sample depth decoded: 8, or 16 to keep 16-bit samples (PNG).")
    var depth: Int = 8

    @Option(help: "Only these frames: N, A..B (inclusive), A.. or ..B (as convert --frames).")
    var frames: FrameSelection?

    /// `--range`, the old name of `--frames`, kept for scripts.
    @Option(name: .customLong("range"), help: .hidden)
    var range: FrameSelection?

    /// The frames asked for, by either name.
    var selection: FrameSelection? { frames ?? range }

    @Option(help: "zlib compression level of PNG files, 0-9 (default: chosen per image).")
    var level: Int?

    @Option(help: "Lossy quality, 1-100 (JPEG, WebP). (default: the format's own)")
    var quality: Int?

    @OptionGroup var reading: InputOptions

    func validate() throws {
        guard output != "-" else {
            throw ValidationError(
                "frames writes one file per frame into a folder; -o - (standard output) cannot hold them")
        }
        if frames != nil && range != nil { throw ValidationError("--range is the old name of --frames; give one") }
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

    var inputNames: [String] { [input] }
    var outputPath: String? { output }

    func run() async throws {
        let command = self
        let outcome = try await StopSignals.run { try await command.perform(in: .standalone) }
        let written = outcome.data.flatMap { if case .int(let count) = $0 { count } else { nil } } ?? 0
        Console.error("wrote \(written) frame\(written == 1 ? "" : "s") to \(output)")
    }

    /// Writes the frames; the outcome's data is the number of frames written.
    func perform(in context: CommandContext) async throws -> CommandOutcome {
        guard let codec = CodecRegistry.standard.codec(named: format) else { throw ExitCode.validationFailure }
        let export = FrameExport(
            folder: output, selection: selection, depth: depth == 16 ? nil : .eight, codec: codec,
            options: ImageWriteOptions(compressionLevel: level, quality: quality),
            replacesExisting: force || context.replacesOutputs)
        let source = try await reading.open(input, in: context)
        let paths = try await export.write(source)
        if !source.info.isComplete {
            for warning in source.info.warnings { context.note("warning: \(input): \(warning)") }
        }
        return CommandOutcome(output: output, data: .int(paths.count))
    }
}

extension FrameSelection: ExpressibleByArgument {
    /// Parses `N`, `A..B`, `A..` or `..B`.
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
