/// Frame durations in whole milliseconds, for writers of formats that store them so (AVIF, JPEG
/// XL): each frame ends where the running sum of the delays so far rounds to, so no frame drifts
/// however many there are, and lasts `minimum` at least (a frame of 0 is none in these formats).
struct MillisecondTimeline {
    let minimum: Int
    private var elapsed = Duration.zero
    private var written = 0

    init(minimum: Int = 1) {
        self.minimum = minimum
    }

    /// The duration of the next frame, whose delay is `delay`.
    mutating func duration(of delay: Duration) -> Int {
        elapsed += delay
        let end = Int((elapsed / .milliseconds(1)).rounded())
        let duration = max(end - written, minimum)
        written += duration
        return duration
    }
}
