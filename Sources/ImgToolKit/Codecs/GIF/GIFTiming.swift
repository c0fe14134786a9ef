/// How a source's frame delays become GIF delays (centiseconds).
///
/// A GIF source keeps every delay exactly as stored, 0 included, so a GIF converts to the same
/// GIF timing. Any other timeline is in milliseconds (or finer): each frame's start time is the
/// running total of the delays before it rounded to centiseconds, so rounding never drifts
/// however many frames there are. A frame that would then show for 0 or 1 cs, which browsers
/// stretch to 100 ms, is folded into the next one (that frame starts where it would have); a
/// short last frame shows for 2 cs.
public enum GIFTiming {
    /// The GIF delay of each frame, in centiseconds, or `nil` for a frame folded into the next.
    /// - Parameters:
    ///   - delays: the source's delays, in order.
    ///   - keepExactly: `true` for a GIF source: each delay (a whole number of centiseconds)
    ///     as it is.
    /// - Returns: one entry per delay; an entry is at most 65535 when `keepExactly` is set.
    public static func centiseconds(for delays: [Duration], keepExactly: Bool) -> [Int?] {
        if keepExactly {
            return delays.map { min(max(Int(centiseconds(of: $0).rounded()), 0), 0xFFFF) }
        }
        guard delays.count > 1 else { return delays.map { Int(max(centiseconds(of: $0), 0).rounded()) } }
        var result: [Int?] = []
        result.reserveCapacity(delays.count)
        var total = 0.0
        var segmentStart = 0
        for (position, delay) in delays.enumerated() {
            total += max(centiseconds(of: delay), 0)
            let end = Int(total.rounded())
            let length = end - segmentStart
            if length >= 2 {
                result.append(length)
                segmentStart = end
            } else if position == delays.count - 1 {
                result.append(2)
            } else {
                result.append(nil)
            }
        }
        return result
    }

    /// `duration` in centiseconds, fractional.
    static func centiseconds(of duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 100 + Double(attoseconds) / 1e16
    }
}
