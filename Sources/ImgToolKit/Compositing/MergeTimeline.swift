/// The frames a merge of animations would have: one frame at every point where any input
/// changes, so every input keeps its own timing exactly (no resampling to a fixed rate, no
/// pairing of frames by index).
///
/// The merged animation lasts one play of the longest input. A shorter input that loops
/// (``ImageInfo/plays`` 0, or more plays left) starts again from its first frame, as a player
/// would show it; one whose plays are over holds its last frame. A still input is one frame
/// lasting the whole time. Zero-length intervals (frames with delay 0 that coincide with another
/// change) are dropped.
///
/// ``ImageMerger`` builds the timeline for animated inputs; writing the merged frames needs an
/// APNG encoder, which is the missing piece.
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

    /// The number of output frames.
    public var frameCount: Int { segments.count }

    /// The total duration of one play.
    public var duration: Duration { segments.reduce(.zero) { $0 + $1.duration } }

    /// Builds the timeline of `inputs` (frame tables and play counts).
    public init(_ inputs: [ImageInfo]) {
        let lengths = inputs.map { info in info.frames.reduce(Duration.zero) { $0 + $1.delay } }
        let period = lengths.max() ?? .zero
        guard period > .zero else {
            segments = [Segment(start: .zero, duration: .zero, frames: inputs.map { _ in 0 })]
            return
        }
        // Every instant at which some input shows a new frame, within [0, period).
        var points: Set<Duration> = [.zero]
        for (info, length) in zip(inputs, lengths) where info.frameCount > 1 && length > .zero {
            var playStart = Duration.zero
            var play = 0
            while playStart < period && (info.plays == 0 || play < info.plays) {
                var time = playStart
                for frame in info.frames {
                    if time < period { points.insert(time) }
                    time += frame.delay
                }
                playStart += length
                play += 1
            }
        }
        let starts = points.sorted()
        var result: [Segment] = []
        for (position, start) in starts.enumerated() {
            let end = position + 1 < starts.count ? starts[position + 1] : period
            guard end > start else { continue }
            let frames = zip(inputs, lengths).map { info, length in Self.frame(of: info, length: length, at: start) }
            result.append(Segment(start: start, duration: end - start, frames: frames))
        }
        segments = result
    }

    /// The frame of `info` shown at `time`.
    static func frame(of info: ImageInfo, length: Duration, at time: Duration) -> Int {
        guard info.frameCount > 1, length > .zero else { return 0 }
        let play = Int(time / length)
        if info.plays != 0 && play >= info.plays { return info.frameCount - 1 }
        var offset = time - length * play
        for frame in info.frames {
            if offset < frame.delay { return frame.index }
            offset -= frame.delay
        }
        return info.frameCount - 1
    }
}
