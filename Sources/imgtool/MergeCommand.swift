import ArgumentParser
import ImgToolKit

/// `imgtool merge BACKGROUND OVERLAY [OVERLAY...]`: overlays composited onto a background.
struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Composite overlay images onto a background image and write a PNG or APNG file.",
        discussion: """
            Inputs are paths, file://, http:// or https:// URLs, or - for standard input; the \
            format is sniffed from the bytes. Overlays are drawn in order with exact straight-alpha \
            source-over (16-bit when any input is 16-bit), placed by --gravity and --offset \
            (pixels, x right, y down; write a negative offset as --offset=-10,5), faded by \
            --opacity, and clipped; the output has the background's size.

            When any input is animated (GIF or APNG) the output is an APNG: one frame wherever \
            any input changes frame, so every input keeps its own timing; shorter animations \
            loop within the longest one (or hold their last frame once their plays are over). \
            It plays as often as the longest input does, or --loops times.

            Without -o the result goes to merged.png in the current folder, and the path written \
            is printed. An input is never overwritten, and an existing output is replaced \
            (atomically) only with --force. -o - writes the PNG to standard output.

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
        help: "The PNG file to write, or - for standard output. (default: merged.png)")
    var output: String?

    @Option(help: "Where overlays are anchored on the background.")
    var gravity: Gravity = .center

    @Option(help: "Pixels added to the anchored position, as X,Y.")
    var offset: MergeOffset = MergeOffset(x: 0, y: 0)

    @Option(help: "Overlay opacity, from 0 (invisible) to 1.")
    var opacity: Double = 1

    @Option(help: "zlib compression level of the written file, 0-9 (default: chosen per image).")
    var level: Int?

    @Option(
        help: "How many times an animated result plays; 0 plays forever. (default: as the longest animated input)")
    var loops: Int?

    @Flag(help: "Replace an existing output file.")
    var force = false

    @Flag(help: "Leave out overlays that fail instead of stopping at the first failure.")
    var keepGoing = false

    @Option(help: "Largest input accepted, in bytes (files, standard input and downloads).")
    var maxBytes: Int = URLSessionFetcher.defaultMaxBytes

    @Option(help: "Seconds a download may go without receiving anything.")
    var timeout: Double = 30

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        guard !overlays.isEmpty else { throw ValidationError("merge needs at least one overlay after the background") }
        guard opacity.isFinite, (0...1).contains(opacity) else {
            throw ValidationError("--opacity must be between 0 and 1, not \(opacity)")
        }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 (forever) or more, not \(loops)") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard timeout.isFinite, timeout > 0 else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
        if let output { try OutputTarget.checkFormat(of: output) }
        guard ([background] + overlays).filter({ $0 == "-" }).count <= 1 else {
            throw ValidationError("standard input (-) can be read only once")
        }
    }

    func run() async throws {
        let command = self
        try await StopSignals.run { () async throws(ImgToolError) in try await command.merge() }
    }

    private func merge() async throws(ImgToolError) {
        let backgroundInput = try ImageInput(background)
        let overlayInputs = try overlays.map { (text) throws(ImgToolError) in try ImageInput(text) }
        let inputs = [backgroundInput] + overlayInputs
        let destination = output ?? "merged.png"
        try OutputTarget.check(destination, against: inputs, force: force)

        let remote = inputs.contains {
            if case .file = $0.location { return false }
            return true
        }
        if let firstURL = inputs.first(where: {
            if case .remote = $0.location { return true }
            return false
        }) {
            try CurlLibrary.load(toFetch: firstURL.name)
        }
        let (events, sink) = AsyncStream.makeStream(of: LoadEvent.self)
        let fetcher = URLSessionFetcher(maxBytes: maxBytes, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
        let loader = ImageLoader(
            fetcher: fetcher,
            options: ImageLoader.Options(keepGoing: keepGoing, limits: limits.limits, maxBytes: maxBytes),
            observer: { sink.yield($0) })
        let merger = ImageMerger(
            loader: loader,
            placement: try OverlayPlacement(gravity: gravity, offsetX: offset.x, offsetY: offset.y, opacity: opacity))
        let line = await MergeProgressLine(
            count: 1 + overlayInputs.count,
            enabled: StatusLine.stderrIsTerminal && (remote || overlayInputs.count >= 2))
        async let drawing: Void = line.run(events)
        let result: ImageMerger.Result
        do throws(ImgToolError) {
            result = try await merger.merge(background: backgroundInput, overlays: overlayInputs)
        } catch {
            sink.finish()
            await drawing
            throw error
        }
        sink.finish()
        await drawing

        for skipped in result.skipped { Console.error("error: \(skipped) (left out)") }
        let encoder = PNGEncoder(compressionLevel: level)
        if var animation = result.animation {
            if let loops { animation.plays = loops }
            let merged = animation
            try await WriteProgressLine.showing("merge", frames: merged.frameCount) {
                (progress) async throws(ImgToolError) in
                try await Self.write(merged, to: destination, encoder: encoder, force: force, progress: progress)
            }
        } else {
            try await Self.write(result.image, to: destination, encoder: encoder, force: force)
        }
        if destination != "-" { Console.out(destination) }
        if !result.skipped.isEmpty {
            throw ImgToolError(
                .invalidArgument, "\(result.skipped.count) overlay\(result.skipped.count == 1 ? "" : "s") left out")
        }
    }

    /// Encodes and writes off the main actor: to `path` atomically, or to stdout for `-`.
    @concurrent
    private static func write(_ image: PixelBuffer, to path: String, encoder: PNGEncoder, force: Bool)
        async throws(ImgToolError)
    {
        try await OutputTarget.write(to: path, force: force) { (fd) async throws(ImgToolError) in
            try encoder.write(image, toFileDescriptor: fd)
        }
    }

    /// Composites and encodes every merged frame off the main actor, into an APNG at `path`
    /// (atomically) or on stdout for `-`.
    @concurrent
    private static func write(
        _ animation: MergedAnimation, to path: String, encoder: PNGEncoder, force: Bool,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws(ImgToolError) {
        try await OutputTarget.write(to: path, force: force) { (fd) async throws(ImgToolError) in
            try await animation.writeAPNG(toFileDescriptor: fd, encoder: encoder, progress: progress)
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
