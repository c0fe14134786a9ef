/// How the inputs of `imgtool convert IN... OUT` make one image, before any operation: joined
/// in time (``JoinedFrameSource``, each still shown for ``stillDelay``), or laid out in a grid
/// (``MontageFrameSource``, when ``montage`` is set).
///
/// Its words (`--delay MS`, `--fps N`, `--montage COLSxROWS`, `--gap N`) may stand anywhere
/// among the operation words; they are not steps of the chain, so their place does not matter:
/// `--delay` sets what a still input becomes, and timing operations (`--speed`, `--reverse` ...)
/// then change the joined frames, in the order written. `--fps N` means one thing everywhere,
/// the output at N frames a second: a still input lasts one tick (``TimingOperation/tick(rate:)``),
/// and it is also the chain's resampling step (``TimingOperation/fps(_:)``) where it is written,
/// which leaves stills joined at the same rate as they are.
public struct InputArrangement: Sendable, Hashable, Codable {
    /// How long a still input is shown in a join. Default 100 ms.
    public var stillDelay: Duration
    /// The grid of a montage, or `nil` to join the inputs in time.
    public var montage: GridLayout?
    /// Pixels between a montage's cells.
    public var gap: Int

    /// Inputs joined in time, each still shown for `stillDelay`; or laid out in `montage`.
    public init(stillDelay: Duration = JoinedFrameSource.defaultStillDelay, montage: GridLayout? = nil, gap: Int = 0) {
        self.stillDelay = stillDelay
        self.montage = montage
        self.gap = gap
    }

    /// The words this type takes out of the operation words.
    public static let words: Set<String> = ["--delay", "--fps", "--montage", "--gap"]

    /// Takes the arrangement's words (and their values) out of `words`, leaving the rest in order;
    /// with `keepingSteps`, `--fps N` (a step of the chain too) is read and left in the rest.
    ///
    /// `--delay MS` (a still's delay in milliseconds, 1 to 2³¹ - 1, fractions allowed), `--fps N`
    /// (`1000 / N` ms, N from 0.001 to 1000), `--montage COLSxROWS | COLSx | xROWS`, `--gap N`
    /// (pixels, 0 to 2²⁰; with `--montage` only); `--name=value` in one word too.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value: a bad value,
    ///   a missing one, both `--delay` and `--fps`, `--gap` without `--montage`, an option twice.
    public static func extract(from words: [String], keepingSteps: Bool = false) throws(ImgToolError) -> (
        arrangement: InputArrangement, rest: [String]
    ) {
        var arrangement = InputArrangement()
        var rest: [String] = []
        var seen: Set<String> = []
        var queue = words[...]
        while let word = queue.popFirst() {
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inline = String(word[word.index(after: equals)...])
            }
            guard Self.words.contains(name) else {
                rest.append(word)
                continue
            }
            guard let value = inline ?? queue.popFirst() else {
                throw ImgToolError(.invalidArgument, "\(name) needs a value")
            }
            if keepingSteps && name == "--fps" { rest += inline == nil ? [word, value] : [word] }
            let timing = name == "--delay" || name == "--fps"
            if seen.contains(name) || (timing && (seen.contains("--delay") || seen.contains("--fps"))) {
                throw ImgToolError(
                    .invalidArgument,
                    timing && !seen.contains(name)
                        ? "--delay and --fps both set how long a still is shown; give one"
                        : "\(name) is given twice")
            }
            seen.insert(name)
            switch name {
            case "--delay":
                guard let milliseconds = Double(value), milliseconds.isFinite, milliseconds >= 1,
                    milliseconds <= TimingOperation.longestDelayMilliseconds
                else {
                    throw ImgToolError(
                        .invalidArgument,
                        "--delay \(value): expected milliseconds a still is shown, 1 to \(Int(TimingOperation.longestDelayMilliseconds))"
                    )
                }
                arrangement.stillDelay = .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
            case "--fps":
                guard case .fps(let rate) = try TimingOperation.fps(parsing: value) else { break }
                arrangement.stillDelay = TimingOperation.tick(rate: rate)
            case "--montage":
                arrangement.montage = try GridLayout(parsing: value, option: name)
            default:  // --gap
                guard let pixels = Int(value), pixels >= 0, pixels <= 1 << 20 else {
                    throw ImgToolError(
                        .invalidArgument, "--gap \(value): expected pixels between cells, 0 to \(1 << 20)")
                }
                arrangement.gap = pixels
            }
        }
        if seen.contains("--gap") && arrangement.montage == nil {
            throw ImgToolError(.invalidArgument, "--gap separates a montage's cells: give --montage COLSxROWS too")
        }
        return (arrangement, rest)
    }

    /// The one image `inputs` make: a montage when ``montage`` is set, else a join in time
    /// (a lone input joined is that input, its frames and delays as they are).
    /// - Parameters:
    ///   - inputs: at least one.
    ///   - background: what surrounds a smaller input or fills empty cells; `nil` transparent.
    ///   - limits: checked by ``JoinedFrameSource`` and ``MontageFrameSource``.
    /// - Throws: their ``ImgToolError``s.
    public func source(of inputs: [JoinInput], background: RGBAColor?, limits: DecodingLimits = .default)
        throws(ImgToolError) -> any FrameSource
    {
        if let montage {
            return try MontageFrameSource(inputs, grid: montage, gap: gap, background: background, limits: limits)
        }
        return try JoinedFrameSource(inputs, stillDelay: stillDelay, background: background, limits: limits)
    }
}
