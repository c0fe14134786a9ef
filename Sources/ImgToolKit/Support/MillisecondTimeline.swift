/// Frame durations in whole milliseconds, for writers of formats that store them so (AVIF, JPEG
/// XL): each frame ends where the running sum of the delays so far rounds to, so no frame drifts
/// however many there are, and lasts `minimum` at least (a frame of 0 is none in these formats)
/// and `maximum` at most (what the format's field holds: a rounding step past it is carried into
/// the next frame, never wrapped).
struct MillisecondTimeline {
    let minimum: Int
    let maximum: Int
    /// The unit of the durations, a millisecond by default.
    let unit: Duration
    private var elapsed = Duration.zero
    private var written = 0

    init(minimum: Int = 1, maximum: Int = .max, unit: Duration = .milliseconds(1)) {
        self.minimum = minimum
        self.maximum = maximum
        self.unit = unit
    }

    /// The duration of the next frame, whose delay is `delay`, in ``unit``s.
    mutating func duration(of delay: Duration) -> Int {
        elapsed += delay
        let end = Int((elapsed / unit).rounded())
        let duration = min(max(end - written, minimum), maximum)
        written += duration
        return duration
    }
}
