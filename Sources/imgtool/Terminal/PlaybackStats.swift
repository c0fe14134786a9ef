import ImgToolKit

/// Timing measured while playing: lateness of each delivery, frame rate, time to first frame.
struct PlaybackStats {
    /// Lateness of each delivered frame, in milliseconds.
    private(set) var latenessMs: [Double] = []
    /// Delivery times of the last frames, for the frame rate shown while playing.
    private var recent: [ContinuousClock.Instant] = []
    private var firstDelivery: ContinuousClock.Instant?
    private var lastDelivery: ContinuousClock.Instant?
    /// When the command started, for the time to the first frame.
    let commandStart: ContinuousClock.Instant

    init(commandStart: ContinuousClock.Instant) {
        self.commandStart = commandStart
    }

    /// Records a delivery made now.
    mutating func record(lateness: Duration, at now: ContinuousClock.Instant = .now) {
        latenessMs.append(lateness.milliseconds)
        if firstDelivery == nil { firstDelivery = now }
        lastDelivery = now
        recent.append(now)
        if recent.count > 32 { recent.removeFirst(recent.count - 32) }
    }

    /// Frames per second over the last (up to 32) deliveries, or 0 before two.
    var recentFPS: Double {
        guard recent.count >= 2, let first = recent.first, let last = recent.last else { return 0 }
        let seconds = first.duration(to: last).milliseconds / 1000
        return seconds > 0 ? Double(recent.count - 1) / seconds : 0
    }

    /// Milliseconds from the command's start to the first delivery.
    var firstFrameMs: Double? {
        firstDelivery.map { commandStart.duration(to: $0).milliseconds }
    }

    /// The `p`-th percentile (0...100, nearest rank) of the lateness, in milliseconds.
    func latenessPercentile(_ p: Double) -> Double {
        guard !latenessMs.isEmpty else { return 0 }
        let sorted = latenessMs.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank - 1, 0), sorted.count - 1)]
    }

    /// One line for `--stats`: `key=value` pairs, easy to read and to parse.
    func summary(report: AnimationReport) -> String {
        let seconds = report.elapsed.milliseconds / 1000
        let fps = seconds > 0 ? Double(report.delivered) / seconds : 0
        let fields: [(String, String)] = [
            ("delivered", String(report.delivered)),
            ("dropped", String(report.dropped)),
            ("late", String(report.late)),
            ("fps", Self.format(fps)),
            ("lateness_p50_ms", Self.format(latenessPercentile(50))),
            ("lateness_p99_ms", Self.format(latenessPercentile(99))),
            ("lateness_max_ms", Self.format(latenessMs.max() ?? 0)),
            ("first_frame_ms", firstFrameMs.map(Self.format) ?? "none"),
            ("elapsed_ms", Self.format(report.elapsed.milliseconds)),
        ]
        return "stats: " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
