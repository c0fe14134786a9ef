import ArgumentParser
import ImgToolKit

/// What a command shares with the commands around it: a batch gives every job the same fetcher
/// (a URL is fetched once for the whole batch) and the same cache of decoded inputs (a watermark
/// is decoded once), and collects each job's notes instead of printing them.
struct CommandContext: Sendable {
    /// Fetches http(s) inputs; `nil`: the command's own, with its `--max-bytes` and `--timeout`.
    var fetcher: (any DataFetching)?
    /// Decoded inputs shared between jobs; `nil` for a command run on its own.
    var cache: LoadedImageCache?
    /// Whether progress lines may be drawn on a terminal (not inside a batch, which draws its own).
    var showsProgress: Bool
    /// Whether an existing output is replaced without `--force` (a batch re-making an output
    /// older than its inputs, or with `--redo`).
    var replacesOutputs = false
    /// Where notes and warnings go (stderr for a command run on its own).
    var note: @Sendable (String) -> Void

    /// A command run on its own: its own fetcher, no cache, progress lines, notes on stderr.
    static let standalone = CommandContext(
        fetcher: nil, cache: nil, showsProgress: true, note: { Console.error($0) })

    init(
        fetcher: (any DataFetching)?, cache: LoadedImageCache?, showsProgress: Bool, replacesOutputs: Bool = false,
        note: @escaping @Sendable (String) -> Void
    ) {
        self.fetcher = fetcher
        self.cache = cache
        self.showsProgress = showsProgress
        self.replacesOutputs = replacesOutputs
        self.note = note
    }
}

/// What one command did, as a batch reports it.
struct CommandOutcome: Sendable {
    /// The file or folder written, when there is one.
    var output: String?
    /// What the command prints as data (`info`'s JSON object), when it has some.
    var data: JSONValue?
}

/// A command that a batch can run: it says what it reads and writes, and does its work without
/// printing its result (``CommandContext/note`` takes its notes).
protocol BatchableCommand: AsyncParsableCommand, Sendable {
    /// The inputs, as typed.
    var inputNames: [String] { get }
    /// The file or folder written; `nil` for a command that writes nothing.
    var outputPath: String? { get }
    /// How the inputs are read: a batch's shared fetcher stops a download at the largest
    /// `--max-bytes` of its jobs.
    var reading: InputOptions { get }
    /// Does the work.
    /// - Throws: ``ImgToolError`` naming the failing input or output, or `ValidationError` for a
    ///   usage error found only once the inputs are open (an animation written as JPEG).
    func perform(in context: CommandContext) async throws -> CommandOutcome

    /// The keys of the inputs this command loads through a ``LoadedImageCache`` (a merge's), so
    /// a batch can keep those that several jobs share. Default: none.
    var cacheKeys: [String] { get }
}

extension BatchableCommand {
    var cacheKeys: [String] { [] }
}
