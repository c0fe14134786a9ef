import ArgumentParser

/// The `imgtool` command: decodes, plays and composites PNG, APNG and GIF images.
@main
struct ImgTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgtool",
        abstract: "Decode, play, composite and convert images (imgtool formats lists which).",
        discussion: """
            Exit status: 0 on success, 1 when an input is bad or an operation failed (the error \
            names the input), 64 for a usage error.
            """,
        version: "0.1.0",
        subcommands: [
            AnimateCommand.self, MergeCommand.self, ConvertCommand.self, InfoCommand.self, FramesCommand.self,
            FormatsCommand.self, BatchCommand.self,
        ]
    )
}
