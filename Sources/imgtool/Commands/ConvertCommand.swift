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

            Operations, applied in the order written, to a still or to every frame: --crop \
            WxH+X+Y | W:H, --resize W | xH | WxH | P% (--filter, --linear), --rotate DEG \
            (clockwise; right angles exact, others expand the canvas onto --background), --flip, \
            --flop, --trim, --pad N | T,R,B,L, --blur SIGMA, --sharpen SIGMA, --grayscale, \
            --overlay FILE (then its own --gravity, --offset X,Y, --opacity A, --overlay-width \
            W | P%, --overlay-height H | P%, --tile), --text STRING (then its own --font FILE | FAMILY, \
            --font-size PX, --color, --stroke-color, --stroke-width PX, --gravity, --offset X,Y, \
            --width PX, --align left | center | right, --opacity A, --from MS, --to MS); for animations --speed X, --reverse, --frames A..B | A.. | ..B (and
            --loops N).

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it (nothing is written).
            """
    )

    @Argument(help: "The image to read: a path, a URL, or - for standard input.")
    var input: String

    @Option(
        name: [.short, .customLong("output")],
        help: "The file to write, as every command that writes names it (instead of OUTPUT).")
    var outputOption: String?

    /// OUTPUT, the first of the words after INPUT when it is `-` or does not start with `-`,
    /// unless `-o` names the output. (OUTPUT is not an argument of its own: argument-parser would
    /// give that slot to the first word not starting with `-`, the value of an operation when
    /// `-o` is used, and drop the options captured before it.)
    var outputArgument: String? {
        guard outputOption == nil, let first = words.first, first == "-" || !first.hasPrefix("-") else { return nil }
        return first
    }

    /// `-o OUTPUT` or OUTPUT (``validate()`` checks that there is one).
    var output: String { outputOption ?? outputArgument ?? "" }

    /// The operation words, in the order typed.
    var operationWords: [String] { Array(words.dropFirst(outputArgument == nil ? 0 : 1)) }

    @OptionGroup var reading: InputOptions
    @OptionGroup var writing: OutputOptions

    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "OUTPUT, the file to write (its extension names the format) or - for standard output, unless -o names it; then the operations, in order (see above).",
            valueName: "output> <operation"))
    var words: [String] = []

    func validate() throws {
        let typed = words.first.flatMap { $0 == "-" || !$0.hasPrefix("-") ? $0 : nil }
        try OutputOptions.checkOne(argument: typed, option: outputOption, command: "convert")
        _ = try writing.output(output)
        _ = try operations()
    }

    /// The operations, in the order written.
    func operations() throws -> [ImageOperation] {
        try OperationWords.parse(operationWords, background: writing.background)
    }

    var inputNames: [String] {
        [input] + ((try? operations()) ?? []).flatMap(\.inputs)
    }
    var outputPath: String? { output }

    func run() async throws {
        let command = self
        _ = try await StopSignals.run { try await command.perform(in: .standalone) }
    }

    func perform(in context: CommandContext) async throws -> CommandOutcome {
        let target = try writing.output(output, in: context)
        let steps = try operations()
        // Overlays are inputs too: never written over, and libcurl loaded for a URL.
        let parsed = try InputOptions.parse([input] + steps.flatMap(\.inputs))
        try target.check(against: parsed)
        let opened = try await reading.open(parsed[0], in: context)
        for warning in opened.info.warnings { context.note("warning: \(input): \(warning)") }
        let source = try await Self.apply(
            steps, to: opened,
            context: OperationContext(
                loader: reading.loader(in: context), limits: reading.limits, decoding: reading.decoding))
        try writing.prepare(source, for: target, in: context)
        try await writing.write(source, to: target, verb: "convert", in: context)
        return CommandOutcome(output: target.isStandardOutput ? nil : target.path)
    }

    /// `steps` applied to `source`; a step that does not fit the image (a crop box outside it) is
    /// a usage error, other failures are the input's.
    static func apply(_ steps: [ImageOperation], to source: any FrameSource, context: OperationContext)
        async throws -> any FrameSource
    {
        let result: Result<any FrameSource, ImgToolError>
        do {
            result = .success(try await source.applying(steps, context: context))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let done): return done
        case .failure(let error) where error.code == .invalidArgument && error.input == nil:
            throw ValidationError(error.message)
        case .failure(let error): throw error
        }
    }
}
