import ArgumentParser
import ImgToolKit

/// `imgtool merge BACKGROUND OVERLAY [OVERLAY...]`: overlays composited onto a background.
struct MergeCommand: BatchableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Composite overlay images onto a background image and write the result in any format imgtool writes.",
        discussion: """
            Inputs are paths, file://, http:// or https:// URLs, or - for standard input; the \
            format is sniffed from the bytes. Overlays are drawn in order with exact straight-alpha \
            source-over (16-bit when any input is 16-bit), placed by --gravity and --offset \
            (pixels, x right, y down; write a negative offset as --offset=-10,5), faded by \
            --opacity, and clipped; the output has the background's size. --overlay-width and \
            --overlay-height (pixels, or a percentage of the background: 25%) resize every \
            overlay first, keeping its aspect when one is given; animated overlays are resized \
            frame by frame.

            When any input is animated the output is an animation: one frame wherever any input \
            changes frame, so every input keeps its own timing; shorter animations loop within \
            the longest one (or hold their last frame once their plays are over). It plays as \
            often as the longest input does, or --loops times. The output format follows the \
            output's extension (merged.png is an APNG when animated), or --format.

            Without -o the result goes to merged.png in the current folder, and the path written \
            is printed. An input is never overwritten, and an existing output is replaced \
            (atomically) only with --force. -o - writes to standard output (PNG unless --format).

            Exit status: 0 on success, 1 when an input is bad or the operation failed (nothing is \
            written), 64 for a usage error, 128+N when signal N (SIGINT, SIGTERM, SIGHUP) stopped \
            it (nothing is written either). With --keep-going, overlays that fail are reported \
            and left out, the rest is written, and the exit status is 1.
            """
    )

    @Argument(help: "The background image: its size is the output's.")
    var background: String

    @Argument(help: "One or more overlay images, drawn in order.")
    var overlays: [String] = []

    @Option(
        name: [.short, .customLong("output")],
        help: "The file to write (its extension names the format), or - for standard output. (default: merged.png)")
    var output: String?

    @Option(help: "Where overlays are anchored on the background.")
    var gravity: Gravity = .center

    @Option(help: "Pixels added to the anchored position, as X,Y.")
    var offset: MergeOffset = MergeOffset(x: 0, y: 0)

    @Option(help: "Overlay opacity, from 0 (invisible) to 1.")
    var opacity: Double = 1

    @Option(help: "Resize every overlay to this width first: pixels, or a percentage of the background's (25%).")
    var overlayWidth: String?

    @Option(help: "Resize every overlay to this height first: pixels, or a percentage of the background's.")
    var overlayHeight: String?

    @Flag(help: "Leave out overlays that fail instead of stopping at the first failure.")
    var keepGoing = false

    @OptionGroup var reading: InputOptions
    @OptionGroup var writing: OutputOptions

    func validate() throws {
        guard !overlays.isEmpty else { throw ValidationError("merge needs at least one overlay after the background") }
        guard opacity.isFinite, (0...1).contains(opacity) else {
            throw ValidationError("--opacity must be between 0 and 1, not \(opacity)")
        }
        do throws(ImgToolError) {
            _ = try placement()
        } catch {
            throw ValidationError(error.description)
        }
        _ = try writing.output(output ?? "merged.png")
        guard ([background] + overlays).filter({ $0 == "-" }).count <= 1 else {
            throw ValidationError("standard input (-) can be read only once")
        }
    }

    var inputNames: [String] { [background] + overlays }
    var outputPath: String? { output ?? "merged.png" }
    var cacheKeys: [String] {
        let options = reading.loaderOptions(keepGoing: keepGoing)
        return inputNames.compactMap { (try? ImageInput($0)).flatMap(options.cacheKey(for:)) }
    }

    func run() async throws {
        let command = self
        let outcome = try await StopSignals.run { try await command.perform(in: .standalone) }
        if let written = outcome.output { Console.out(written) }
        if case .int(let skipped) = outcome.data, skipped > 0 {
            Console.error("error: \(skipped) overlay\(skipped == 1 ? "" : "s") left out")
            throw ExitCode.failure
        }
    }

    /// Merges and writes; the outcome's data is the number of overlays left out (`--keep-going`).
    func perform(in context: CommandContext) async throws -> CommandOutcome {
        let target = try writing.output(output ?? "merged.png", in: context)
        let result = try await merge(into: target, in: context)
        for warning in result.warnings { context.note("warning: \(warning.input): \(warning.message)") }
        for skipped in result.skipped { context.note("error: \(skipped.commandLineDescription) (left out)") }
        var merged = result.source
        if merged.info.isAnimated, let loops = writing.loops {
            merged = try await ConvertCommand.apply(
                [.timing(.loops(loops))], to: merged, input: nil, context: OperationContext())
        }
        try writing.prepare(merged, for: target, input: background, in: context)
        try await writing.write(merged, to: target, verb: "merge", in: context)
        return CommandOutcome(output: target.isStandardOutput ? nil : target.path, data: .int(result.skipped.count))
    }

    /// Where and how overlays are drawn: gravity, offset, opacity, and their size (aspect kept
    /// when one side is given).
    private func placement() throws(ImgToolError) -> OverlayPlacement {
        try OverlayPlacement(
            gravity: gravity, offsetX: offset.x, offsetY: offset.y, opacity: opacity,
            overlayWidth: try overlayWidth.map { (text) throws(ImgToolError) in
                try ResizeSpec.Length(parsing: text, option: "--overlay-width")
            },
            overlayHeight: try overlayHeight.map { (text) throws(ImgToolError) in
                try ResizeSpec.Length(parsing: text, option: "--overlay-height")
            })
    }

    /// Loads every input (with a progress line on a terminal) and composites them.
    private func merge(into target: ImageOutput, in context: CommandContext) async throws(ImgToolError)
        -> ImageMerger.Result
    {
        let inputs = try InputOptions.parse([background] + overlays)
        try target.check(against: inputs)
        let (events, sink) = AsyncStream.makeStream(of: LoadEvent.self)
        let loader = ImageLoader(
            fetcher: context.fetcher ?? reading.fetcher,
            options: reading.loaderOptions(keepGoing: keepGoing, cache: context.cache),
            observer: { sink.yield($0) })
        let merger = ImageMerger(
            loader: loader,
            placement: try placement())
        let line = await MergeProgressLine(
            count: inputs.count,
            enabled: context.showsProgress && StatusLine.stderrIsTerminal
                && (inputs.contains(where: \.isRemote) || inputs.count >= 3))
        async let drawing: Void = line.run(events)
        do throws(ImgToolError) {
            let result = try await merger.merge(background: inputs[0], overlays: Array(inputs.dropFirst()))
            sink.finish()
            await drawing
            return result
        } catch {
            sink.finish()
            await drawing
            throw error
        }
    }
}

/// `--offset X,Y`: two integers separated by a comma, either may be negative.
struct MergeOffset: ExpressibleByArgument {
    var x: Int
    var y: Int

    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Int(parts[0].trimmingPrefix("+")), let y = Int(parts[1].trimmingPrefix("+"))
        else { return nil }
        self.init(x: x, y: y)
    }

    var defaultValueDescription: String { "\(x),\(y)" }
}

extension Gravity: ExpressibleByArgument {}
