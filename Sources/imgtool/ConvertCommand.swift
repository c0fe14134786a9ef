import ArgumentParser
import ImgToolKit

/// `imgtool convert INPUT OUTPUT`: a GIF, APNG or PNG rewritten as an APNG or PNG.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write a GIF, APNG or PNG as an APNG (animations) or a PNG (still images).",
        discussion: """
            Every frame, delay and the number of plays is kept exactly; frames are stored the \
            smallest way that fits all of them (a palette when the whole animation has at most \
            256 colours, grey, RGB when opaque, 16-bit only when a sample needs it), each later \
            frame as the rectangle that changed. Viewers without APNG support show frame 0.

            INPUT is a path or a file://, http:// or https:// URL; OUTPUT is a path or - for \
            standard output. The output is written atomically, never over the input, and over an \
            existing file only with --force.

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it (nothing is written).
            """
    )

    @Argument(help: "The image to read: a path, or an http(s) URL.")
    var input: String

    @Argument(help: "The PNG or APNG file to write, or - for standard output.")
    var output: String

    @Option(help: "How many times the animation plays; 0 plays forever. (default: as the input says)")
    var loops: Int?

    @Option(help: "Sample depth written: 8, or 16 to keep 16-bit samples. (default: as the input)")
    var depth: Int?

    @Option(help: "zlib compression level, 0-9 (default: chosen per frame).")
    var level: Int?

    @Flag(help: "Replace an existing output file.")
    var force = false

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 (forever) or more, not \(loops)") }
        if let depth, depth != 8 && depth != 16 { throw ValidationError("--depth must be 8 or 16, not \(depth)") }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
        try OutputTarget.checkFormat(of: output)
    }

    func run() async throws {
        let command = self
        try await StopSignals.run { () async throws(ImgToolError) in try await command.convert() }
    }

    func convert() async throws(ImgToolError) {
        try OutputTarget.check(output, against: [try ImageInput(input)], force: force)
        let source = try await CommandInput.prepare(input, limits: limits.limits)
        for warning in source.info.warnings { Console.error("warning: \(input): \(warning)") }
        let encoder = PNGEncoder(compressionLevel: level)
        let depth: SampleDepth? = depth.map { $0 == 16 ? .sixteen : .eight }
        let (path, plays, force) = (output, loops, force)
        try await WriteProgressLine.showing("convert", frames: source.info.frameCount) {
            (progress) async throws(ImgToolError) in
            try await Self.write(
                source, to: path, plays: plays, depth: depth, encoder: encoder, force: force, progress: progress)
        }
    }

    /// Decodes and encodes off the main actor, into `path` atomically or onto stdout for `-`.
    @concurrent
    private static func write(
        _ source: any FrameSource, to path: String, plays: Int?, depth: SampleDepth?, encoder: PNGEncoder,
        force: Bool, progress: @escaping @Sendable (Int) -> Void
    ) async throws(ImgToolError) {
        try await OutputTarget.write(to: path, force: force) { (fd) async throws(ImgToolError) in
            try await source.writePNG(
                toFileDescriptor: fd, plays: plays, depth: depth, encoder: encoder, progress: progress)
        }
    }
}
