/// The operations on an animation's timing: `--speed X`, `--reverse`, `--boomerang`,
/// `--frames A..B`, `--time A..B`, `--fps N` and `--loops N`. Pixels are not touched; frames are
/// read as composited.
public enum TimingOperation: FrameOperation, Hashable, Codable {
    /// Every delay divided by this factor (above 0). Delays read from a file are first read as
    /// players show them (``DelayPolicy/browser``: 10 ms or less is 100 ms), as `animate --speed`
    /// does, and the results are play times (``ImageInfo/delaysArePlayTimes``), which writers fold
    /// where shorter than 20 ms (``WrittenTiming``). Writers that round delays (GIF's
    /// centiseconds) carry the rounding from frame to frame, so the total does not drift.
    case speed(Double)
    /// The frames in the opposite order, each with its own delay.
    case reverse
    /// Frames `first` through `last` (0-based, inclusive); `last` `nil` is the last frame.
    case frames(first: Int, last: Int?)
    /// How many times the animation plays, 0 forever.
    case loops(Int)
    /// Forwards then backwards (`--boomerang`): frames 0, 1 ... n-1, then n-2 ... 1, each with
    /// its own delay; the two ends are not shown twice, so n frames make 2n - 2 (a still, or
    /// two frames, stay as they are: 1 and 2).
    case boomerang
    /// The frames on screen from `from` to `to` (`nil`: the end) of one play, as players show
    /// them (a file's stored delays read as `--speed` reads them): a frame on screen at `from`
    /// starts the result, its delay cut to start there, and the last frame's delay is cut to end
    /// at `to`, so the result lasts exactly `to - from`. A frame starting less than
    /// ``timeTolerance`` after a bound counts as starting at it. The delays are play times.
    case time(from: Duration, to: Duration?)
    /// The timeline resampled to this many frames a second: every ``tick(rate:)`` (1000 / N ms,
    /// to the nanosecond) shows the frame on screen at that instant (or starting less than
    /// ``timeTolerance`` after it); ticks showing the same frame are one frame of that many
    /// ticks, so a rate above the source's repeats no frame, and frames between ticks are left
    /// out. One play lasts a whole number of ticks: the last frame ends on the first tick at or
    /// after the end. A still, or an animation already on the ticks (stills joined at the same
    /// `--fps`), is unchanged. The delays are play times.
    case fps(Double)

    /// The longest delay a timing step may make: 2³¹ - 1 ms (24.8 days), the most a signed
    /// 32-bit millisecond count holds; no image format holds more.
    public static let longestDelayMilliseconds = Double(Int32.max)

    /// Parses `--speed X` (or `Xx`), a factor from 0.001 to 1000.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public static func speed(parsing text: String) throws(ImgToolError) -> TimingOperation {
        guard let factor = Double(text.hasSuffix("x") ? String(text.dropLast()) : text), factor.isFinite,
            factor >= 0.001, factor <= 1000
        else {
            throw ImgToolError(
                .invalidArgument,
                "--speed \(text): expected a factor from 0.001 to 1000 (2 plays twice as fast, 0.5 half as fast)")
        }
        return .speed(factor)
    }

    /// Parses `--frames A..B`, `A..` (to the last frame), `..B` (from the first) or a single
    /// frame `A`, as ``FrameSelection`` does.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public static func frames(parsing text: String) throws(ImgToolError) -> TimingOperation {
        guard let selection = FrameSelection(parsing: text) else {
            throw ImgToolError(
                .invalidArgument, "--frames \(text): expected A..B (0-based, A <= B), A.. (to the last) or ..B")
        }
        return .frames(first: selection.lower ?? 0, last: selection.upper)
    }

    /// Parses `--loops N`.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public static func loops(parsing text: String) throws(ImgToolError) -> TimingOperation {
        guard let plays = Int(text), plays >= 0 else {
            throw ImgToolError(.invalidArgument, "--loops \(text): expected 0 (forever) or a number of plays")
        }
        return .loops(plays)
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        var info = source.info
        info.framesAreDerived = true
        switch self {
        case .speed(let factor):
            guard factor.isFinite, factor > 0 else {
                throw ImgToolError(.invalidArgument, "--speed \(factor): expected a factor above 0")
            }
            let asStored = !info.delaysArePlayTimes && info.isAnimated
            func shown(_ frame: FrameInfo) -> Duration {
                asStored ? DelayPolicy.browser.effectiveDelay(frame.delay, format: info.format) : frame.delay
            }
            // Checked before dividing: a chain of slow-downs (--speed 0.001 seven times) must end
            // in a clear error, not a delay no integer holds.
            for frame in info.frames where shown(frame).milliseconds / factor > Self.longestDelayMilliseconds {
                throw ImgToolError(
                    .invalidArgument,
                    "--speed \(factor): frame \(frame.index) would be shown for \(Int((shown(frame).milliseconds / factor / 1000).rounded())) s, "
                        + "longer than any format holds (\(Int(Self.longestDelayMilliseconds) / 1000) s)")
            }
            info.frames = info.frames.map { frame in
                var frame = frame
                frame.delay = shown(frame) / factor
                return frame
            }
            info.delaysArePlayTimes = info.delaysArePlayTimes || info.isAnimated
            return RetimedFrameSource(base: source, info: info, order: .same)
        case .loops(let plays):
            info.plays = plays
            info.loopValue = plays
            return RetimedFrameSource(base: source, info: info, order: .same)
        case .frames(let first, let chosenLast):
            let last = chosenLast ?? info.frameCount - 1
            guard first <= last, last < info.frameCount else {
                throw ImgToolError(
                    .invalidArgument,
                    "--frames \(first)..\(chosenLast.map(String.init) ?? ""): the image has \(info.frameCount) frame\(info.frameCount == 1 ? "" : "s") (0..\(info.frameCount - 1))"
                )
            }
            info = info.withCanvas(PixelSize(width: info.width, height: info.height))
            info.frames = Array(info.frames[first...last]).enumerated().map { index, frame in
                var frame = frame
                frame.index = index
                return frame
            }
            return RetimedFrameSource(base: source, info: info, order: .range(first...last))
        case .reverse:
            let count = info.frameCount
            info = info.withCanvas(PixelSize(width: info.width, height: info.height))
            let delays = info.frames.map(\.delay)
            info.frames = info.frames.enumerated().map { index, frame in
                var frame = frame
                frame.delay = delays[count - 1 - index]
                return frame
            }
            return RetimedFrameSource(base: source, info: info, order: .reversed)
        case .boomerang:
            let count = info.frameCount
            guard count > 2 else { return source }
            try context.limits.checkAnimation(frames: 2 * count - 2, width: info.width, height: info.height)
            info = info.withCanvas(PixelSize(width: info.width, height: info.height))
            let forward = info.frames
            let backward = forward[1...(count - 2)].reversed()
            info.frames = (forward + backward).enumerated().map { index, frame in
                var frame = frame
                frame.index = index
                return frame
            }
            return RetimedFrameSource(base: source, info: info, order: .boomerang)
        case .time(let start, let end):
            return try selectTime(from: start, to: end, in: source, info: source.info)
        case .fps(let rate):
            guard rate.isFinite, rate >= 0.001, rate <= 1000 else {
                throw ImgToolError(.invalidArgument, "--fps \(rate): expected frames per second, 0.001 to 1000")
            }
            return resample(source, rate: rate, info: source.info)
        }
    }
}

/// A source whose frames are the base's composited frames, retimed, selected or in reverse.
struct RetimedFrameSource: FrameSource, FrameSkippingSource, FrameSelectingSource {
    enum Order: Sendable {
        case same
        case range(ClosedRange<Int>)
        case reversed
        /// Every frame, then frames n-2 down to 1.
        case boomerang
    }

    let base: any FrameSource
    let info: ImageInfo
    let order: Order
    /// Bytes of frames a reversed reader keeps at once (see ``ReversingFrameReader``).
    var reverseBudget = ReversingFrameReader.defaultBudget

    var isOpaque: Bool { base.isOpaque }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        switch order {
        case .same, .range:
            // A range starts where the base can start it (a video seeks to it).
            let first = if case .range(let range) = order { range.lowerBound } else { 0 }
            return SelectingFrameReader(
                base: try base.frameReader(from: first, depth: depth), order: order, frames: info.frames)
        case .reversed:
            return ReversingFrameReader(base: base, depth: depth, frames: info.frames, budget: reverseBudget)
        case .boomerang:
            let count = base.info.frameCount
            var middle = base.info
            middle.frames = base.info.frames[1...(count - 2)].enumerated().map { index, frame in
                var frame = frame
                frame.index = index
                return frame
            }
            let back = RetimedFrameSource(base: base, info: middle, order: .range(1...(count - 2)))
            return BoomerangFrameReader(
                forward: try base.makeFrameReader(depth: depth),
                backward: ReversingFrameReader(
                    base: back, depth: depth, frames: middle.frames, budget: reverseBudget),
                frames: info.frames)
        }
    }
}

extension RetimedFrameSource {
    /// Frames in the base's order start at the base's matching frame; others are read and dropped.
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let offset: Int
        switch order {
        case .same: offset = 0
        case .range(let range): offset = range.lowerBound
        case .reversed, .boomerang:
            let reader = try makeFrameReader(depth: depth)
            var read = 0
            while read < start, try reader.nextFrame() != nil { read += 1 }
            return reader
        }
        return SelectingFrameReader(
            base: try base.frameReader(from: start + offset, depth: depth), order: order, frames: info.frames)
    }

    /// Frames in the base's order are asked of the base; others are read and dropped.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let offset: Int
        switch order {
        case .same: offset = 0
        case .range(let range): offset = range.lowerBound
        case .reversed, .boomerang:
            return SelectedFrameReader(base: try makeFrameReader(depth: depth), frames: frames)
        }
        return SelectingFrameReader(
            base: try base.frameReader(selecting: frames.map { $0 + offset }, depth: depth), order: order,
            frames: info.frames)
    }
}

/// The base's frames in order, the ones outside a range skipped (they are still composited, as
/// the frames after them depend on them), each given its new information.
final class SelectingFrameReader: FrameReader {
    private let base: any FrameReader
    private let order: RetimedFrameSource.Order
    private let frames: [FrameInfo]

    init(base: any FrameReader, order: RetimedFrameSource.Order, frames: [FrameInfo]) {
        self.base = base
        self.order = order
        self.frames = frames
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        while let frame = try base.nextFrame() {
            switch order {
            case .range(let range):
                guard range.contains(frame.index) else {
                    if frame.index > range.upperBound { return nil }
                    continue
                }
                return Frame(info: frames[frame.index - range.lowerBound], image: frame.image)
            default:
                return Frame(info: frames[frame.index], image: frame.image)
            }
        }
        return nil
    }
}

/// The base's frames first to last, then from the last but one back to the second, each given
/// its new information.
final class BoomerangFrameReader: FrameReader {
    private let forward: any FrameReader
    private let backward: any FrameReader
    private let frames: [FrameInfo]
    private var next = 0

    init(forward: any FrameReader, backward: any FrameReader, frames: [FrameInfo]) {
        self.forward = forward
        self.backward = backward
        self.frames = frames
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard next < frames.count else { return nil }
        let half = (frames.count + 2) / 2
        guard let frame = try next < half ? forward.nextFrame() : backward.nextFrame() else {
            throw ImgToolError(.truncated, "the data ends before frame \(next < half ? next : frames.count - next)")
        }
        defer { next += 1 }
        return Frame(info: frames[next], image: frame.image)
    }
}

/// The base's frames last to first. A reader only goes forwards, so the frames are read in
/// segments from the end: as many frames as the budget's bytes hold are kept at a time, and each
/// segment is reached by reading the frames before it again. An animation that fits the budget
/// (a 480x270 clip of up to 1,000 frames) is read once; a larger one costs more decoding, never
/// more memory.
final class ReversingFrameReader: FrameReader {
    /// Bytes of composited frames kept at once, by default.
    static let defaultBudget = 512 << 20

    private let budget: Int
    private let base: any FrameSource
    private let depth: SampleDepth?
    private let frames: [FrameInfo]
    private var held: [PixelBuffer] = []
    private var segmentStart: Int
    private var next = 0

    init(base: any FrameSource, depth: SampleDepth?, frames: [FrameInfo], budget: Int) {
        self.budget = budget
        self.base = base
        self.depth = depth
        self.frames = frames
        segmentStart = frames.count
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard next < frames.count else { return nil }
        if held.isEmpty { try readSegment() }
        guard let image = held.popLast() else { return nil }
        defer { next += 1 }
        return Frame(info: frames[next], image: image)
    }

    /// Reads the segment of frames just before the last one read, keeping as many as the budget holds.
    private func readSegment() throws(ImgToolError) {
        let end = segmentStart
        let frameBytes = max(1, base.info.width * base.info.height * 4 * (depth == .sixteen ? 2 : 1))
        let length = max(1, min(end, budget / frameBytes))
        let start = end - length
        let reader = try base.makeFrameReader(depth: depth)
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while reversing at frame \(frame.index)") }
            if frame.index >= start { held.append(frame.image) }
            if frame.index == end - 1 { break }
        }
        guard held.count == length else {
            throw ImgToolError(.truncated, "the data ends before frame \(end - 1)")
        }
        segmentStart = start
    }
}
