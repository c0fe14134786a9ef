/// How a source's frame delays become GIF delays (centiseconds).
///
/// A GIF source keeps every delay exactly as stored, 0 included, so a GIF converts to the same
/// GIF timing (players read it the same way). Any other timeline is first folded by
/// ``WrittenTiming`` (no frame under 20 ms, the rule every animated writer applies), then each
/// frame's start time is the running total of the delays before it rounded to centiseconds, so
/// rounding never drifts however many frames there are, and every frame shown lasts at least
/// 2 cs (a 20 ms slot rounds to 2 cs whatever its start). A delay past 655.35 s, the most 16 bits
/// of centiseconds hold, is written as 655.35 s (``AnimationLimits``, which
/// ``FrameSource/timedForWriting(as:)`` applies first).
public enum GIFTiming {
    /// The GIF delay of each frame, in centiseconds, or `nil` for a frame left out
    /// (``WrittenTiming/slots(for:minimum:)``: its time goes to the frame shown before it).
    /// - Parameters:
    ///   - delays: the source's delays, in order: stored GIF delays when `keepExactly` is set,
    ///     else the times the frames are meant to show.
    ///   - keepExactly: `true` for a GIF source: each delay (a whole number of centiseconds)
    ///     as it is.
    /// - Returns: one entry per delay; an entry is at most 65535 when `keepExactly` is set.
    public static func centiseconds(for delays: [Duration], keepExactly: Bool) -> [Int?] {
        if keepExactly {
            return delays.map { min(max(Int(centiseconds(of: $0).rounded()), 0), 0xFFFF) }
        }
        var result: [Int?] = Array(repeating: nil, count: delays.count)
        var written = 0
        var elapsed = Duration.zero
        for slot in WrittenTiming.slots(for: delays) {
            elapsed += slot.delay
            // Delays are clamped to 65535 cs before (``AnimationLimits``); a rounding step past it
            // is carried into the next frame, never wrapped.
            let end = Int(centiseconds(of: elapsed).rounded())
            let delay = min(end - written, 0xFFFF)
            result[slot.frame] = delay
            written += delay
        }
        return result
    }

    /// The GIF delay of each frame of `info`, or `nil` for a frame left out, as the GIF writer
    /// writes them: a GIF's stored delays exactly, any other timeline folded and rounded
    /// (``WrittenTiming``).
    public static func centiseconds(for info: ImageInfo) -> [Int?] {
        let (delays, asStored) = WrittenTiming.playTimes(of: info, writtenAs: .gif)
        return centiseconds(for: delays, keepExactly: asStored)
    }

    /// `duration` in centiseconds, fractional.
    static func centiseconds(of duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 100 + Double(attoseconds) / 1e16
    }
}
