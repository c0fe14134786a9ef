import ArgumentParser
import ImgToolKit

/// `imgtool resize INPUT OUTPUT`: a still image or every frame of an animation, resized.
struct ResizeCommand: BatchableCommand {
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
            is re-optimized by its writer. A JPEG input is decoded at 1/2, 1/4 or 1/8 of its size \
            when that is still at least the output's (libjpeg's DCT scaling, as vips does). The \
            output format follows OUTPUT's extension (or -o OUTPUT's), or --format.

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it.
            """
    )

    @Argument(help: "The image to read: a path, a file:// or http(s):// URL, or - for standard input.")
    var input: String

    @Argument(
        help: ArgumentHelp(
            "The file to write (its extension names the format), or - for standard output.", valueName: "output"))
    var outputArgument: String?

    @Option(
        name: [.short, .customLong("output")],
        help: "The file to write, as every command that writes names it (instead of OUTPUT).")
    var outputOption: String?

    /// OUTPUT or `-o OUTPUT` (``validate()`` checks that there is exactly one).
    var output: String { outputOption ?? outputArgument ?? "" }

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

    @OptionGroup var reading: InputOptions
    @OptionGroup var writing: OutputOptions

    var inputNames: [String] { [input] }
    var outputPath: String? { output }

    func validate() throws {
        try OutputOptions.checkOne(argument: outputArgument, option: outputOption, command: "resize")
        do throws(ImgToolError) {
            _ = try ResizeSpec(width: width, height: height, size: size, fit: fit)
            _ = try ResampleFilter(named: filter)
        } catch {
            throw ValidationError(error.description)
        }
        _ = try writing.output(output)
    }

    func run() async throws {
        let command = self
        _ = try await StopSignals.run { try await command.perform(in: .standalone) }
    }

    func perform(in context: CommandContext) async throws -> CommandOutcome {
        let target = try writing.output(output, in: context)
        let spec = try ResizeSpec(width: width, height: height, size: size, fit: fit)
        let filter = try ResampleFilter(named: filter)
        let parsed = try InputOptions.parse([input])
        try target.check(against: parsed)
        let source = try await reading.open(parsed[0], in: context)
        for warning in source.info.warnings { context.note("warning: \(input): \(warning)") }
        // One operation: the resize of `convert --resize`, with every form this command takes. A
        // thumbnail (`--size N`) of a JPEG is decoded at a reduced DCT scale that leaves four
        // times the output for the filter, or twice it when none does (as vipsthumbnail always
        // does). A 4096x4096 JPEG to 512 loads at 1/2: 71 ms and butteraugli 0.59 from an exact
        // Lanczos3 (at 1/4, leaving twice: 63 ms, 1.33; vipsthumbnail: 90 ms, 1.24). Any other
        // resize decodes at full size: DCT scaling departs from the exact filter whatever the
        // margin left (full size: 76 ms, 0.13).
        let step = ResizeOperation(spec: spec, filter: filter, linear: linear)
        let resized = try await ConvertCommand.apply(
            [.resize(step)], to: source, input: input,
            context: OperationContext(limits: reading.limits, decoding: reading.decoding))
        try writing.prepare(resized, for: target, input: input, in: context)
        try await writing.write(resized, to: target, verb: "resize", in: context)
        return CommandOutcome(output: target.isStandardOutput ? nil : target.path)
    }
}
