/// The timing rule every animated writer (GIF, APNG, WebP, AVIF sequences, JPEG XL) applies:
/// no written frame shows for less than ``minimumDelay`` (20 ms), and one play lasts as long as
/// the source's.
///
/// Browsers (and ``DelayPolicy/browser``, `imgtool animate`'s default) show a delay of 10 ms or
/// less as 100 ms, so an animation written with 10 ms frames (`--speed 4` on 40 ms frames) would
/// play 2.5 times slower than meant; and a GIF cannot store less than 2 cs without meeting that
/// clamp. So short frames are *folded*: the timeline is cut into slots of at least 20 ms, and
/// each slot shows the source frame that is on screen at the instant the slot starts.
///
/// - A slot starts where a source frame starts, or 20 ms after the slot before, whichever is
///   later; it lasts until the next slot. So a frame shown is never shown early, at most 20 ms
///   late, and a frame that starts and ends within another frame's 20 ms is left out (its time
///   goes to the frame shown before it).
/// - A last slot shorter than 20 ms is added to the slot before it.
/// - Every slot's start is an exact time of the source, so the total of a play is kept exactly;
///   writers then round start times (not each delay) to their own unit: milliseconds, or a GIF's
///   centiseconds, which keeps the total within half a unit and every delay at least 20 ms.
///
/// **Delays as stored.** A delay read from a file (``ImageInfo/delaysArePlayTimes`` `false`) is
/// written as it is, 0 included: every player reads it the same way in every format (browsers,
/// and ``DelayPolicy/browser``, show 10 ms or less as 100 ms), so the output plays as the input
/// does. The exception is a GIF written from another format: a GIF holds centiseconds, so those
/// delays are folded and rounded as times (a GIF written as a GIF keeps its own). Delays set by
/// `--speed` (which reads a file's delays as players show them first) or by a merge are play
/// times, and every writer folds them.
public enum WrittenTiming {
    /// The shortest delay written: 20 ms.
    public static let minimumDelay = Duration.milliseconds(20)

    /// One written frame: which source frame it shows and for how long.
    public struct Slot: Sendable, Hashable {
        /// The index of the source frame shown.
        public var frame: Int
        /// When the slot starts, from the start of the play.
        public var start: Duration
        /// How long it shows.
        public var delay: Duration
    }

    /// The slots for frames shown for `delays` (negative counts as 0), in order.
    /// - Parameters:
    ///   - delays: how long each source frame is meant to show.
    ///   - minimum: the shortest slot. Default ``minimumDelay``.
    /// - Returns: one slot per written frame, in source order, each lasting at least `minimum`
    ///   (but a lone slot, which lasts the whole play); their delays add up to the source's.
    public static func slots(for delays: [Duration], minimum: Duration = minimumDelay) -> [Slot] {
        let delays = delays.map { max($0, .zero) }
        var starts: [Duration] = []
        starts.reserveCapacity(delays.count)
        var total = Duration.zero
        for delay in delays {
            starts.append(total)
            total += delay
        }
        guard !delays.isEmpty else { return [] }
        /// The frame on screen at `time`: the last one starting at or before it (a frame of 0 is
        /// replaced at once by the next).
        func frame(at time: Duration, from first: Int) -> Int {
            var index = first
            while index + 1 < starts.count && starts[index + 1] <= time { index += 1 }
            return index
        }
        var kept: [(frame: Int, start: Duration)] = []
        var start = Duration.zero
        var shown = frame(at: .zero, from: 0)
        while true {
            kept.append((shown, start))
            guard shown + 1 < starts.count else { break }
            let next = max(start + minimum, starts[shown + 1])
            guard next < total else { break }
            start = next
            shown = frame(at: start, from: shown)
        }
        if kept.count > 1, let last = kept.last, total - last.start < minimum { kept.removeLast() }
        return kept.indices.map { position in
            let end = position + 1 < kept.count ? kept[position + 1].start : total
            return Slot(frame: kept[position].frame, start: kept[position].start, delay: end - kept[position].start)
        }
    }

    /// The delays a writer of `format` works from, and whether they are stored values to keep
    /// exactly: a file's delays are kept, but for a GIF written from another format (GIF stores
    /// centiseconds, so those delays are times to round and fold); play times
    /// (``ImageInfo/delaysArePlayTimes``) are folded.
    /// - Parameters:
    ///   - info: the source's frame table.
    ///   - format: the format being written.
    /// - Returns: one delay per frame, and whether they are kept exactly.
    public static func playTimes(of info: ImageInfo, writtenAs format: ImageFormat) -> (
        delays: [Duration], asStored: Bool
    ) {
        let asStored = !info.delaysArePlayTimes && (format != .gif || info.format == .gif)
        return (info.frames.map(\.delay), asStored)
    }
}

extension FrameSource {
    /// This source as a writer of `format` writes it, by ``WrittenTiming``'s rule: `self` when
    /// no delay changes (a still, delays kept as stored, or every delay 20 ms or more), else a
    /// source of the frames shown, each for its slot, with ``ImageInfo/delaysArePlayTimes`` set;
    /// then every delay longer than `format` holds is clamped to its
    /// ``AnimationLimits/longestDelay`` (``ImageOutput/notes(for:options:)`` says which).
    ///
    /// The frames are read from `self` as they are written, one at a time: memory is the
    /// source's own (one canvas), whatever the frame count.
    /// - Parameter format: the format being written.
    public func timedForWriting(as format: ImageFormat) -> any FrameSource {
        retimedForWriting(as: format) ?? self
    }

    /// ``timedForWriting(as:)``'s source when it is not `self`, else `nil`.
    func retimedForWriting(as format: ImageFormat) -> (any FrameSource)? {
        let folded = foldedForWriting(as: format)
        let timed: any FrameSource = folded ?? self
        guard timed.info.frameCount > 1, let limits = AnimationLimits.limits(for: format),
            timed.info.frames.contains(where: { $0.delay > limits.longestDelay })
        else { return folded }
        var info = timed.info
        info.frames = info.frames.map { frame in
            var frame = frame
            frame.delay = limits.clamped(frame.delay)
            return frame
        }
        return RetimedFrameSource(base: timed, info: info, order: .same)
    }

    /// ``timedForWriting(as:)``'s source when it is not `self`, else `nil`.
    func foldedForWriting(as format: ImageFormat) -> FoldedFrameSource? {
        guard info.frameCount > 1 else { return nil }
        let (delays, asStored) = WrittenTiming.playTimes(of: info, writtenAs: format)
        if asStored || delays.allSatisfy({ $0 >= WrittenTiming.minimumDelay }) { return nil }
        return FoldedFrameSource(base: self, slots: WrittenTiming.slots(for: delays))
    }
}

/// The frames of a source that ``WrittenTiming`` keeps, each retimed to its slot; the others are
/// read (a composited frame depends on the ones before it) and passed over.
struct FoldedFrameSource: FrameSource, FrameSkippingSource {
    let base: any FrameSource
    let info: ImageInfo
    /// For each written frame, the index of the source frame it shows.
    let shown: [Int]

    var isOpaque: Bool { base.isOpaque }

    init(base: any FrameSource, slots: [WrittenTiming.Slot]) {
        self.init(base: base, shown: slots.map(\.frame), delays: slots.map(\.delay))
    }

    /// The base's frames `shown` (ascending), each for its delay in `delays`.
    init(base: any FrameSource, shown: [Int], delays: [Duration]) {
        self.base = base
        var info = base.info.withCanvas(PixelSize(width: base.info.width, height: base.info.height))
        let canvas = info.frames.first?.region ?? FrameRegion(x: 0, y: 0, width: info.width, height: info.height)
        info.frames = delays.enumerated().map { index, delay in
            FrameInfo(index: index, delay: delay, region: canvas, disposal: .none, blend: .source)
        }
        info.delaysArePlayTimes = true
        self.info = info
        self.shown = shown
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try makeFrameReader(startingAt: 0, depth: depth)
    }

    /// Asks the base for the frames shown from written frame `start` on (a video seeks to the
    /// first and converts only those).
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let start = min(start, shown.count)
        return FoldedFrameReader(
            base: try base.frameReader(selecting: Array(shown[start...]), depth: depth), shown: shown,
            frames: info.frames, next: start)
    }
}

/// Reads the base's frames in order and hands out those that are shown, renumbered.
final class FoldedFrameReader: FrameReader {
    private let base: any FrameReader
    private let shown: [Int]
    private let frames: [FrameInfo]
    private var next = 0

    init(base: any FrameReader, shown: [Int], frames: [FrameInfo], next: Int = 0) {
        self.base = base
        self.shown = shown
        self.frames = frames
        self.next = next
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard next < shown.count else { return nil }
        while let frame = try base.nextFrame() {
            guard frame.index == shown[next] else {
                if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled at frame \(frame.index)") }
                continue
            }
            defer { next += 1 }
            return Frame(info: frames[next], image: frame.image)
        }
        throw ImgToolError(.truncated, "the data ends before frame \(shown[next])")
    }
}
