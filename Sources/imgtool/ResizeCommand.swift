import ArgumentParser
import ImgToolKit

/// `imgtool resize INPUT OUTPUT`: a still image or every frame of an animation, resized.
struct ResizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resize",
        abstract: "Resize or thumbnail an image or an animation.",
        discussion: """
            Give --width and/or --height (pixels, or a percentage of the input such as 50%), or \
            --size WxH, or --size N for a thumbnail whose longest side is N (never enlarged). \
            With one side, the other keeps the aspect ratio; with both, --fit decides: contain \
            (default; the largest size inside the box), inside (the same, never enlarged; the \
            default for --size N), cover (fill the box and crop the centre) or fill (stretch).

            Filtering is on premultiplied alpha (no dark or white halos at transparent edges) in \
            32-bit floating point; --linear filters in linear light. Every composited frame of an \
            animation is resized, with every delay and the number of plays kept, and the output \
            is re-optimized by its writer. The output format follows OUTPUT's extension.

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it.
            """
    )

    @Argument(help: "The image to read: a path, or an http(s) URL.")
    var input: String

    @Argument(help: "The file to write; its extension picks the format.")
    var output: String

    @Option(help: "Output width: pixels, or a percentage of the input's width (50%).")
    var width: String?

    @Option(help: "Output height: pixels, or a percentage of the input's height.")
    var height: String?

    @Option(help: "WxH (a box; see --fit), or N for a thumbnail whose longest side is N.")
    var size: String?

    @Option(help: "contain, cover, fill or inside (default: contain; inside for --size N).")
    var fit: String?

    @Option(help: "lanczos3 (default), mitchell, catmull-rom, bilinear or box.")
    var filter: String = "lanczos3"

    @Flag(help: "Filter in linear light (decode sRGB before, encode after).")
    var linear = false

    @Flag(help: "Replace an existing output file.")
    var force = false

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        do {
            _ = try ResizeSpec(width: width, height: height, size: size, fit: fit)
            _ = try ResampleFilter(named: filter)
            _ = try CodecRegistry.standard.writer(forOutput: output)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let command = self
        try await StopSignals.run { () async throws(ImgToolError) in try await command.resize() }
    }

    func resize() async throws(ImgToolError) {
        try OutputTarget.check(output, against: [try ImageInput(input)], force: force)
        let spec = try ResizeSpec(width: width, height: height, size: size, fit: fit)
        let filter = try ResampleFilter(named: filter)
        let codec = try CodecRegistry.standard.writer(forOutput: output)
        let source = try await CommandInput.prepare(input, limits: limits.limits)
        for warning in source.info.warnings { Console.error("warning: \(input): \(warning)") }
        let resized = try ResizedFrameSource(
            source, spec: spec, filter: filter, linear: linear, limits: limits.limits)
        let (path, force) = (output, force)
        try await WriteProgressLine.showing("resize", frames: resized.info.frameCount) {
            (progress) async throws(ImgToolError) in
            try await Self.write(resized, with: codec, to: path, force: force, progress: progress)
        }
    }

    /// Resizes and encodes off the main actor, into `path` atomically.
    @concurrent
    private static func write(
        _ source: ResizedFrameSource, with codec: any ImageCodec, to path: String, force: Bool,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws(ImgToolError) {
        try await OutputTarget.write(to: path, force: force) { (fd) async throws(ImgToolError) in
            var sink = ByteSink(fileDescriptor: fd)
            try await codec.write(source, into: &sink, options: ImageWriteOptions(), progress: progress)
        }
    }
}
