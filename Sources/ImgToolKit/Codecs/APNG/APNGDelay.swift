/// A frame delay as APNG's fcTL stores it: `delay_num / delay_den` seconds, both 16-bit.
///
/// Most delays have an exact form (40 ms is 1/25, a GIF's 7 cs is 7/100, a third of a second
/// read from an APNG is 1/3); ``exact(_:)`` finds it. A delay with none (a merged timeline can
/// produce one) is written in milliseconds by ``APNGDelayWriter``, which carries the rounding
/// error into the next frame so that frame start times never drift.
struct APNGDelay: Sendable, Hashable {
    /// `delay_num`.
    var numerator: UInt16
    /// `delay_den`, never 0 here (a stored 0 means 100).
    var denominator: UInt16

    /// The delay as a duration (attosecond precision, as ``FCTLChunk/delay`` reads it back).
    var duration: Duration { .seconds(Int(numerator)) / Int(denominator) }

    /// The fraction with both terms at most 65535 that equals `delay` to within a picosecond,
    /// or `nil` when there is none (a negative delay has none).
    ///
    /// Durations hold attoseconds, so a delay read as 1/3 s is 333333333333333333 as; the best
    /// rational approximation (continued fractions) with 16-bit terms gives back 1/3.
    static func exact(_ delay: Duration) -> APNGDelay? {
        let (seconds, attoseconds) = delay.components
        guard seconds <= 65535 else { return nil }
        let value = Int128(seconds) * attosecondsPerSecond + Int128(attoseconds)
        guard value >= 0 else { return nil }
        guard value > 0 else { return APNGDelay(numerator: 0, denominator: 1) }
        // Convergents h/k of value / 10^18, kept while both terms fit in 16 bits.
        var (p, q) = (value, attosecondsPerSecond)
        var (h0, h1): (Int128, Int128) = (0, 1)
        var (k0, k1): (Int128, Int128) = (1, 0)
        var best: (Int128, Int128)?
        while q != 0 {
            let a = p / q
            let (h, k) = (a * h1 + h0, a * k1 + k0)
            guard h <= limit, k <= limit else { break }
            best = (h, k)
            (h0, h1, k0, k1) = (h1, h, k1, k)
            (p, q) = (q, p - a * q)
        }
        guard let (h, k) = best else { return nil }
        let error = h * attosecondsPerSecond - value * k  // (h/k - value/10^18) * 10^18 * k
        guard error.magnitude <= picosecondInAttoseconds * k.magnitude else { return nil }
        return APNGDelay(numerator: UInt16(h), denominator: UInt16(k))
    }

    /// The delay `milliseconds` stored in the finest unit whose numerator fits: 1/1000 s up to
    /// 65.535 s, then 1/100, 1/10 and whole seconds (rounding to that unit), at most 65535 s.
    static func milliseconds(_ milliseconds: Int) -> APNGDelay {
        var value = max(0, milliseconds)
        var denominator = 1000
        while value > Int(limit) && denominator > 1 {
            value = (value + 5) / 10
            denominator /= 10
        }
        return APNGDelay(numerator: UInt16(min(value, Int(limit))), denominator: UInt16(denominator))
    }

    private static let limit: Int128 = 65535
    private static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000
    private static let picosecondInAttoseconds: UInt128 = 1_000_000
}

/// Turns a sequence of frame delays into fcTL fractions whose running sum follows the exact
/// one: exact fractions where they exist, otherwise whole milliseconds chosen so that each
/// frame starts at its exact start time rounded to the millisecond (errors never add up).
struct APNGDelayWriter {
    /// The exact time at which the next frame starts.
    private var exactElapsed = Duration.zero
    /// The start time of the next frame as the written fractions give it.
    private var writtenElapsed = Duration.zero

    /// The fraction to write for the next frame's `delay`.
    mutating func next(_ delay: Duration) -> APNGDelay {
        let delay = max(delay, .zero)
        exactElapsed += delay
        let written: APNGDelay
        if let exact = APNGDelay.exact(delay), (exactElapsed - writtenElapsed - delay).isZeroish {
            written = exact
        } else {
            let target = exactElapsed - writtenElapsed
            // Clamped before the conversion: no fcTL delay reaches 65535 s anyway.
            let milliseconds = min(max((target / .milliseconds(1)).rounded(), 0), 65_535_000)
            written = .milliseconds(Int(milliseconds))
        }
        writtenElapsed += written.duration
        return written
    }
}

extension Duration {
    /// Within a picosecond of zero.
    fileprivate var isZeroish: Bool { abs(self / .nanoseconds(1)) < 0.001 }
}
