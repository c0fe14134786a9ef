import ArgumentParser
import ImgToolKit

/// `imgtool convert INPUT OUTPUT`: any image rewritten in the format the output names.
struct ConvertCommand: BatchableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write an image in another format: every frame, delay and the number of plays kept.",
        discussion: """
            The output format follows OUTPUT's extension, or --format (needed for -); imgtool \
            formats lists what can be written. PNG and APNG store every frame exactly, the \
            smallest way that fits all of them (a palette when the whole animation has at most \
            256 colours, grey, RGB when opaque, 16-bit only when needed), each later frame as \
            the rectangle that changed; an animation written as PNG is an APNG.

            INPUT is a path, a file://, http:// or https:// URL, or - for standard input; OUTPUT \
            is a path or - for standard output. The output is written atomically, never over the \
            input, and over an existing file only with --force.

            Exit status: 0 on success, 1 when the input is bad or the operation failed (nothing \
            is written), 64 for a usage error, 128+N when signal N stopped it (nothing is written).
            """
    )

    @Argument(help: "The image to read: a path, a URL, or - for standard input.")
    var input: String

    @Argument(help: "The file to write (its extension names the format), or - for standard output.")
    var output: String

    @OptionGroup var reading: InputOptions
    @OptionGroup var writing: OutputOptions

    func validate() throws {
        _ = try writing.output(output)
    }

    var inputNames: [String] { [input] }
    var outputPath: String? { output }

    func run() async throws {
        let command = self
        _ = try await StopSignals.run { try await command.perform(in: .standalone) }
    }

    func perform(in context: CommandContext) async throws -> CommandOutcome {
        let target = try writing.output(output, in: context)
        let parsed = try InputOptions.parse([input])
        try target.check(against: parsed)
        let source = try await reading.open(parsed[0], in: context)
        for warning in source.info.warnings { context.note("warning: \(input): \(warning)") }
        try writing.prepare(source, for: target, in: context)
        try await writing.write(source, to: target, verb: "convert", in: context)
        return CommandOutcome(output: target.isStandardOutput ? nil : target.path)
    }
}
