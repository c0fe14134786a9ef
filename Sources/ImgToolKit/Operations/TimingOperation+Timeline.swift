/// `--time A..B` and `--fps N`: the operations that work on an animation's timeline (when each
/// frame is on screen) rather than on its list of frames.
extension TimingOperation {
    /// How close a frame's start may come after a time and still count as starting at it: half
    /// a millisecond. Container timestamps are rounded (WebM's to the millisecond: the third frame
    /// of a 30 fps clip, meant for 66.667 ms, is stored at 67 ms), and a tick of `--fps 30` at
    /// 66.667 ms must still find that frame.
    public static let timeTolerance = Duration.microseconds(500)

    /// One tick of `--fps rate`: 1000 / `rate` ms, to the nanosecond. A still joined at `--fps N`
    /// lasts exactly one tick, so resampling such a join at N changes nothing.
    public static func tick(rate: Double) -> Duration {
        .nanoseconds(Int64((1e9 / rate).rounded()))
    }

    /// Parses `--time A..B`, `A..` (to the end) or `..B` (from the start). A time is seconds
    /// (`1.5s`, or a bare number: `90`), milliseconds (`1500ms`), or minutes and seconds
    /// (`1:30`, `1:02:03.5`).
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value: a side that
    ///   is not a time, no `..`, or B not after A.
    public static func time(parsing text: String) throws(ImgToolError) -> TimingOperation {
        let usage = "expected A..B, A.. or ..B, each 1.5s, 1500ms, 90 (seconds) or 1:30"
        guard let dots = text.firstRange(of: "..") else {
            throw ImgToolError(.invalidArgument, "--time \(text): \(usage)")
        }
        let (lower, upper) = (text[..<dots.lowerBound], text[dots.upperBound...])
        guard !(lower.isEmpty && upper.isEmpty) else {
            throw ImgToolError(.invalidArgument, "--time \(text): \(usage)")
        }
        guard let start = lower.isEmpty ? .zero : Self.time(lower) else {
            throw ImgToolError(.invalidArgument, "--time \(text): \"\(lower)\" is not a time; \(usage)")
        }
        let end: Duration?
        if upper.isEmpty {
            end = nil
        } else {
            guard let parsed = Self.time(upper) else {
                throw ImgToolError(.invalidArgument, "--time \(text): \"\(upper)\" is not a time; \(usage)")
            }
            end = parsed
        }
        if let end, end <= start {
            throw ImgToolError(.invalidArgument, "--time \(text): the end must come after the start")
        }
        return .time(from: start, to: end)
    }

    /// Parses `--fps N`, frames per second from 0.001 to 1000 (as a join's `--fps` takes it).
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public static func fps(parsing text: String) throws(ImgToolError) -> TimingOperation {
        guard let rate = Double(text), rate.isFinite, rate >= 0.001, rate <= 1000 else {
            throw ImgToolError(.invalidArgument, "--fps \(text): expected frames per second, 0.001 to 1000")
        }
        return .fps(rate)
    }

    /// One time: `1.5s`, `1500ms`, `90` (seconds), `1:30` or `1:02:03.5`; `nil` when it is not
    /// one, negative, or longer than a delay can be in all (2³¹ - 1 ms, ~24.8 days).
    static func time(_ text: Substring) -> Duration? {
        var number = text
        var unit = 1000.0  // milliseconds per unit
        if text.hasSuffix("ms") {
            number = text.dropLast(2)
            unit = 1
        } else if text.hasSuffix("s") {
            number = text.dropLast()
        }
        let parts = number.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), unit == 1000 || parts.count == 1 else { return nil }
        var value = 0.0
        for (position, part) in parts.enumerated() {
            // Only digits and at most one point, in the last part: no sign, exponent, nan or inf.
            let points = part.filter { $0 == "." }.count
            guard part.contains(where: \.isNumber), part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                points == 0 || (points == 1 && position == parts.count - 1), let number = Double(part),
                position == 0 || number < 60
            else { return nil }
            value = value * 60 + number
        }
        let milliseconds = value * unit
        guard milliseconds.isFinite, milliseconds <= longestDelayMilliseconds else { return nil }
        return .nanoseconds(Int64((milliseconds * 1e6).rounded()))
    }

    /// `duration` as a `--time` value: `3s`, `2.5s`, `66.667ms`.
    static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        if milliseconds == milliseconds.rounded() {
            let whole = Int(milliseconds)
            return whole % 1000 == 0 ? "\(whole / 1000)s" : whole > 1000 ? "\(Double(whole) / 1000)s" : "\(whole)ms"
        }
        return "\(Double(Int((milliseconds * 1000).rounded())) / 1000)ms"
    }

    /// `--time`'s step: the frames on screen between `start` and `end` (`nil`: the end), the first
    /// one's delay cut to start at `start` and the last one's to end at `end`.
    func selectTime(
        from start: Duration, to chosenEnd: Duration?, in source: any FrameSource, info: ImageInfo
    ) throws(ImgToolError) -> any FrameSource {
        let written = "--time \(Self.describe(start))..\(chosenEnd.map(Self.describe) ?? "")"
        guard info.isAnimated || info.delaysArePlayTimes else {
            throw ImgToolError(.invalidArgument, "\(written): the image is a still, with no timeline")
        }
        let timeline = Timeline(info)
        let total = timeline.total
        let tolerance = Self.timeTolerance
        guard start < total else {
            throw ImgToolError(
                .invalidArgument,
                "\(written): the range starts after the end (the animation lasts \(Self.describe(total)), 0s..\(Self.describe(total)))"
            )
        }
        var end = chosenEnd ?? total
        guard end <= total + tolerance else {
            throw ImgToolError(
                .invalidArgument,
                "\(written): the range ends after the end (the animation lasts \(Self.describe(total)); \(Self.describe(start)).. runs to it)"
            )
        }
        end = min(end, total)
        let first = timeline.frame(at: start + tolerance)
        let last = max(first, timeline.frame(before: end - tolerance))
        var info = info.withCanvas(PixelSize(width: info.width, height: info.height))
        info.frames = (first...last).map { index in
            var frame = info.frames[index]
            frame.index = index - first
            let from = max(timeline.starts[index], start)
            let to = index == last ? end : timeline.starts[index + 1]
            frame.delay = to - from
            return frame
        }
        info.delaysArePlayTimes = true
        return RetimedFrameSource(base: source, info: info, order: .range(first...last))
    }

    /// `--fps`'s step: the timeline sampled every ``tick(rate:)``, each tick showing the frame on
    /// screen at it; ticks that show the same frame make one frame of as many ticks (a rate above
    /// the source's repeats no frame). Frames no tick falls on are left out.
    func resample(_ source: any FrameSource, rate: Double, info: ImageInfo) -> any FrameSource {
        guard info.frameCount > 1 else { return source }
        let tick = Self.tick(rate: rate)
        let timeline = Timeline(info)
        let period = tick.wholeNanoseconds
        // A tick counts a frame that starts just after it (at most a quarter of a tick, for
        // rates above 500).
        let tolerance = min(Self.timeTolerance.wholeNanoseconds, period / 4)
        func ceilingTicks(_ time: Int128) -> Int128 {
            time >= 0 ? (time + period - 1) / period : -(-time / period)
        }
        // The ticks before the end (a tick within the tolerance of the end starts nothing).
        let ticks = max(1, ceilingTicks(timeline.total.wholeNanoseconds - tolerance))
        var shown: [Int] = []
        var delays: [Duration] = []
        for index in 0..<info.frameCount {
            // Frame `index` is on screen at tick k when starts[index] <= k P + tolerance < starts[index + 1].
            let low = min(ticks, max(0, ceilingTicks(timeline.starts[index].wholeNanoseconds - tolerance)))
            let high =
                index == info.frameCount - 1
                ? ticks : min(ticks, max(0, ceilingTicks(timeline.starts[index + 1].wholeNanoseconds - tolerance)))
            guard high > low else { continue }
            shown.append(index)
            delays.append(tick * Int(high - low))
        }
        if shown.count == info.frameCount && zip(info.frames, delays).allSatisfy({ $0.delay == $1 }) {
            return source
        }
        return FoldedFrameSource(base: source, shown: shown, delays: delays)
    }
}

/// When each frame of a source is on screen, as players show it: a file's stored delays read by
/// ``DelayPolicy/browser`` (as `--speed` reads them), play times as they are.
struct Timeline {
    /// Each frame's start, and the total last: `frameCount + 1` times, never decreasing.
    let starts: [Duration]

    init(_ info: ImageInfo) {
        let asStored = !info.delaysArePlayTimes && info.isAnimated
        var starts: [Duration] = [.zero]
        starts.reserveCapacity(info.frameCount + 1)
        for frame in info.frames {
            let shown = asStored ? DelayPolicy.browser.effectiveDelay(frame.delay, format: info.format) : frame.delay
            starts.append(starts[starts.count - 1] + max(shown, .zero))
        }
        self.starts = starts
    }

    /// How long one play lasts.
    var total: Duration { starts[starts.count - 1] }

    /// The frame on screen at `time`: the last one starting at or before it (a frame of no
    /// duration is replaced at once by the next); the first frame before 0.
    func frame(at time: Duration) -> Int {
        lastFrame { $0 <= time }
    }

    /// The last frame starting before `time`; the first when none does.
    func frame(before time: Duration) -> Int {
        lastFrame { $0 < time }
    }

    /// The last frame whose start satisfies `test` (which holds for a prefix of the starts).
    private func lastFrame(where test: (Duration) -> Bool) -> Int {
        var (low, high) = (0, starts.count - 1)  // frames 0..<count: the answer is in low..<high
        while high - low > 1 {
            let middle = (low + high) / 2
            if test(starts[middle]) { low = middle } else { high = middle }
        }
        return low
    }
}

extension Duration {
    /// This duration in whole nanoseconds (rounded toward zero), wide enough for any sum of delays.
    var wholeNanoseconds: Int128 {
        let (seconds, attoseconds) = components
        return Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000)
    }
}
