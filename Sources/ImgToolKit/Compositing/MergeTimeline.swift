/// The frames of a merge of animations: one frame at every point where any input changes, so
/// every input keeps its own timing (no resampling to a fixed rate, no pairing of frames by
/// index).
///
/// The merged animation lasts one play of the longest input (``longestInput``). A shorter input
/// that loops (``ImageInfo/plays`` 0, or more plays left) starts again from its first frame, as a
/// player would show it; one whose plays are over holds its last frame. A still input (one frame)
/// has no timing of its own and shows the whole time.
///
/// Inputs' delays are first read as players show them (``DelayPolicy``: by default a delay of
/// 10 ms or less is 100 ms, as in browsers). Two inputs that change a few milliseconds apart
/// would make a frame that short, which those same players would stretch to 100 ms; so changes
/// closer than `foldingAtOrBelow` to the start of the frame before them are folded into it (that
/// frame shows the later combination, at most that much early), and a last frame that short
/// is left out. Zero-length intervals are always dropped.
public struct MergeTimeline: Sendable, Hashable {
    /// One output frame: a time interval and the frame of each input shown during it.
    public struct Segment: Sendable, Hashable {
        /// When the interval starts, from the start of the animation.
        public var start: Duration
        /// How long it lasts (the output frame's delay).
        public var duration: Duration
        /// For each input, in input order, the index of its frame shown during the interval.
        public var frames: [Int]
    }

    /// The output frames in order.
    public let segments: [Segment]
    /// The index of the input whose play sets the timeline's length (the first longest).
    public let longestInput: Int

    /// The number of output frames.
    public var frameCount: Int { segments.count }

    /// The total duration of one play.
    public var duration: Duration { segments.reduce(.zero) { $0 + $1.duration } }

    /// Builds the timeline of `inputs` (frame tables and play counts).
    /// - Parameters:
    ///   - inputs: what each input declares, in input order.
    ///   - delayPolicy: how stored delays become shown delays. Default ``DelayPolicy/raw``.
    ///   - fold: no output frame (but a lone one) lasts this long or less. Default 0.
    ///   - maxFrames: the most output frames allowed, checked against an upper bound before the
    ///     timeline is built. Default: no limit.
    /// - Throws: ``ImgToolError`` `tooLarge` when the merge could have more than `maxFrames` frames.
    public init(
        _ inputs: [ImageInfo], delayPolicy: DelayPolicy = .raw, foldingAtOrBelow fold: Duration = .zero,
        maxFrames: Int = .max
    ) throws(ImgToolError) {
        // A still input has no timing of its own (its delay, clamped, would stretch the period).
        let delays = inputs.map { info in
            info.frameCount > 1
                ? info.frames.map { delayPolicy.effectiveDelay($0.delay, format: info.format) } : [Duration.zero]
        }
        let lengths = delays.map { $0.reduce(Duration.zero, +) }
        longestInput = lengths.indices.max { lengths[$0] < lengths[$1] } ?? 0
        let period = lengths.max() ?? .zero
        guard period > .zero else {
            segments = [Segment(start: .zero, duration: .zero, frames: inputs.map { _ in 0 })]
            return
        }
        let bound = Self.frameBound(inputs, lengths: lengths, period: period)
        guard bound <= Double(maxFrames) else {
            throw ImgToolError(
                .tooLarge,
                "merging these animations on one timeline could give up to \(Self.describe(bound)) frames in \(period), over the limit of \(maxFrames)",
                limit: .frames)
        }
        // Every instant at which some input shows a new frame, within [0, period).
        var points: Set<Duration> = [.zero]
        for (index, info) in inputs.enumerated() where info.frameCount > 1 && lengths[index] > .zero {
            var playStart = Duration.zero
            var play = 0
            while playStart < period && (info.plays == 0 || play < info.plays) {
                var time = playStart
                for delay in delays[index] {
                    if time < period { points.insert(time) }
                    time += delay
                }
                playStart += lengths[index]
                play += 1
            }
        }
        // Each output frame starts at a kept point and shows the inputs as they are at the last
        // point folded into it.
        var kept: [(start: Duration, shows: Duration)] = []
        for point in points.sorted() {
            if let last = kept.last, point - last.start <= fold {
                kept[kept.count - 1].shows = point
            } else {
                kept.append((point, point))
            }
        }
        while kept.count > 1, let last = kept.last, period - last.start <= fold { kept.removeLast() }
        segments = kept.indices.map { position in
            let end = position + 1 < kept.count ? kept[position + 1].start : period
            let frames = inputs.indices.map { index in
                Self.frame(
                    delays: delays[index], plays: inputs[index].plays, length: lengths[index], at: kept[position].shows)
            }
            return Segment(start: kept[position].start, duration: end - kept[position].start, frames: frames)
        }
    }

    /// The most change points the inputs can have in one period: each animated input's frames
    /// times the plays that start within it.
    private static func frameBound(_ inputs: [ImageInfo], lengths: [Duration], period: Duration) -> Double {
        var bound = 1.0
        for (info, length) in zip(inputs, lengths) where info.frameCount > 1 && length > .zero {
            var plays = (period / length).rounded(.up)
            if info.plays != 0 { plays = min(plays, Double(info.plays)) }
            bound += plays * Double(info.frameCount)
        }
        return bound
    }

    private static func describe(_ count: Double) -> String {
        count < 1e15 ? String(Int(count)) : String(count)
    }

    /// The frame shown at `time` by an input with these shown `delays`, playing `plays` times
    /// (0 forever), one play lasting `length`.
    static func frame(delays: [Duration], plays: Int, length: Duration, at time: Duration) -> Int {
        guard delays.count > 1, length > .zero else { return 0 }
        // The quotient is a Double: correct it so the offset lands in [0, length) exactly.
        var play = Int(time / length)
        var offset = time - length * play
        while offset >= length {
            play += 1
            offset -= length
        }
        while offset < .zero && play > 0 {
            play -= 1
            offset += length
        }
        if plays != 0 && play >= plays { return delays.count - 1 }
        for (index, delay) in delays.enumerated() {
            if offset < delay { return index }
            offset -= delay
        }
        return delays.count - 1
    }
}
