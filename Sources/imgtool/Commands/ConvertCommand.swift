import ArgumentParser
import ImgToolKit

/// `imgtool convert INPUT OUTPUT`: any image rewritten in the format the output names.
struct ConvertCommand: BatchableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract:
            "Write an image in another format, applying operations in the order written: every frame, delay and the number of plays kept.",
        discussion: """
            The output format follows OUTPUT's extension, or --format (needed for -); imgtool \
            formats lists what can be written. PNG and APNG store every frame exactly, the \
            smallest way that fits all of them (a palette when the whole animation has at most \
            256 colours, grey, RGB when opaque, 16-bit only when needed), each later frame as \
            the rectangle that changed; an animation written as PNG is an APNG.

            INPUT is a path, a file://, http:// or https:// URL, or - for standard input; OUTPUT \
            is a path or - for standard output, given after INPUT or as -o OUTPUT (as other \
            commands name it). The output is written atomically, never over the input, and over \
            an existing file only with --force.

            Several inputs (convert IN... OUT, OUTPUT the last word before the first option) are \
            joined in time on the first input's canvas (others centred, on --background or \
            transparent): an animation keeps its frames and delays, a still is one frame of \
            --delay MS (default 100) or --fps N. An input may be a folder (its images in natural \
            order: frame2 before frame10) or a pattern (f-%03d.png: from the lowest number \
            present, consecutive). An OUTPUT that exists and is named like an input but for its \
            numbers (the shell expanded frame-*.png) is refused, even with --force; name the output \
            with -o. --montage COLSxROWS (2x1, 3x) lays the inputs out in a grid instead (--gap N \
            pixels between cells, cells as large as the largest input), animations playing side \
            by side on one timeline.

            Operations, applied in the order written, to a still or to every frame: --crop \
            WxH+X+Y | W:H, --resize W | xH | WxH | P% (--filter, --linear), --rotate DEG \
            (clockwise; right angles exact, others expand the canvas onto --background), --flip, \
            --flop, --trim, --pad N | T,R,B,L, --blur SIGMA, --sharpen SIGMA, --grayscale, \
            --overlay FILE (then its own --gravity, --offset X,Y, --opacity A, --overlay-width \
            W | P%, --overlay-height H | P%, --tile), --text STRING (then its own --font FILE | FAMILY, \
            --font-size PX, --color, --stroke-color, --stroke-width PX, --gravity, --offset X,Y, \
            --width PX, --align left | center | right, --opacity A, --from MS, --to MS); for animations \
            --speed X, --reverse, --boomerang (forwards then backwards, n frames make 2n-2), \
            --frames A..B | A.. | ..B (and --loops N), --time A..B | A.. | ..B (the frames on screen \
            from A to B, cut to it: 1.5s, 1500ms, 90 seconds or 1:30), --fps N (the timeline \
            resampled to N frames a second, the frame on screen at each tick; a frame spanning \
            several ticks stays one frame; stills joined at --fps N last one tick), --sheet COLSx | \
            COLSxROWS (every frame on one still sprite sheet; then --sheet-json FILE writes each \
            frame's box and delay).

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it (nothing is written).
            """
    )

    @Argument(
        help:
            "The image to read: a path, a URL, - for standard input, a folder (its images in natural order) or a pattern (f-%03d.png); more follow it, joined in time."
    )
    var input: String

    @Option(
        name: [.short, .customLong("output")],
        help: "The file to write, as every command that writes names it (instead of OUTPUT).")
    var outputOption: String?

    /// INPUT and the words after it up to the first option: the inputs, and OUTPUT last unless
    /// `-o` names the output. (OUTPUT is not an argument of its own: argument-parser would give
    /// that slot to the first word not starting with `-`, the value of an operation when `-o` is
    /// used, and drop the options captured before it.)
    var positionals: [String] { [input] + words.prefix { $0 == "-" || !$0.hasPrefix("-") } }

    /// OUTPUT: the last positional word after INPUT, unless `-o` names the output.
    var outputArgument: String? {
        guard outputOption == nil, positionals.count >= 2 else { return nil }
        return positionals.last
    }

    /// The inputs as typed (each a file, URL, `-`, folder or pattern), in order.
    var inputTexts: [String] { Array(positionals.dropLast(outputArgument == nil ? 0 : 1)) }

    /// `-o OUTPUT` or OUTPUT (``validate()`` checks that there is one).
    var output: String { outputOption ?? outputArgument ?? "" }

    /// The operation words, in the order typed (with the arrangement's: `--delay`, `--montage` ...).
    var operationWords: [String] { Array(words.dropFirst(positionals.count - 1)) }

    @OptionGroup var reading: InputOptions
    @OptionGroup var writing: OutputOptions

    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "OUTPUT, the file to write (its extension names the format) or - for standard output, unless -o names it; then the operations, in order (see above).",
            valueName: "output> <operation"))
    var words: [String] = []

    func validate() throws {
        try OutputOptions.checkOne(argument: outputArgument, option: outputOption, command: "convert")
        try refuseOutputTwice()
        _ = try writing.output(output)
        _ = try operations()
    }

    /// The operations, in the order written.
    func operations() throws -> [ImageOperation] {
        try plan().operations
    }

    var inputNames: [String] {
        let expanded = inputTexts.flatMap { (try? InputExpansion.expand($0)) ?? [$0] }
        return expanded + ((try? operations()) ?? []).flatMap(\.inputs)
    }
    var outputPath: String? { output }

    func run() async throws {
        let command = self
        _ = try await StopSignals.run { try await command.perform(in: .standalone) }
    }

    func perform(in context: CommandContext) async throws -> CommandOutcome {
        let target = try writing.output(output, in: context)
        let (arrangement, steps) = try plan()
        try refuseOutputNamedLikeInputs()
        let names = try inputTexts.flatMap { (text) throws(ImgToolError) in try InputExpansion.expand(text) }
        // Overlays are inputs too: never written over, and libcurl loaded for a URL.
        let parsed = try InputOptions.parse(names + steps.flatMap(\.inputs))
        try target.check(against: parsed)
        let description = try sheetDescription(of: steps, against: parsed, in: context)
        let opened: any FrameSource
        if names.count == 1 && arrangement.montage == nil {
            let single = try await reading.open(parsed[0], in: context)
            for warning in single.info.warnings { context.note("warning: \(parsed[0].name): \(warning)") }
            opened = single
        } else {
            opened = try arrangement.source(
                of: try await joinInputs(Array(parsed.prefix(names.count)), in: context),
                background: writing.background, limits: reading.limits)
        }
        let (source, sheet) = try await Self.applyKeepingSheet(
            steps, to: opened, input: inputTexts.count == 1 ? inputTexts[0] : nil,
            context: OperationContext(
                loader: reading.loader(in: context), limits: reading.limits, decoding: reading.decoding))
        try writing.prepare(source, for: target, input: parsed[0].name, in: context)
        try await writing.write(source, to: target, verb: "convert", in: context)
        if let description, let sheet {
            try writeSheetDescription(sheet, to: description, imageName: target.path, in: context)
        }
        return CommandOutcome(output: target.isStandardOutput ? nil : target.path)
    }

    /// `steps` applied to `source`, read from `input`: a failure that names no input is `input`'s
    /// and names it; a step that does not fit the image (a crop box outside it) is a
    /// ``UsageErrorAfterReading``, printed without the usage lines; other failures (a resized
    /// image over the pixel limit) are the input's errors.
    static func apply(
        _ steps: [ImageOperation], to source: any FrameSource, input: String?, context: OperationContext
    ) async throws -> any FrameSource {
        try await applyKeepingSheet(steps, to: source, input: input, context: context).0
    }

    /// ``apply(_:to:input:context:)``, also returning the layout of the last sprite sheet a
    /// `--sheet` made.
    static func applyKeepingSheet(
        _ steps: [ImageOperation], to source: any FrameSource, input: String?, context: OperationContext
    ) async throws -> (any FrameSource, SpriteSheetLayout?) {
        do throws(ImgToolError) {
            var done = source
            var sheet: SpriteSheetLayout?
            for step in steps {
                done = try await step.operation.apply(to: done, context: context)
                if case .sheet = step { sheet = (done as? SpriteSheetSource)?.layout }
            }
            return (done, sheet)
        } catch var error {
            guard error.input == nil && error.code != .cancelled else { throw error }
            error.input = input
            if error.code == .invalidArgument { throw UsageErrorAfterReading(error: error) }
            throw error
        }
    }
}
