import ImgToolKit

/// A clock on virtual time for scheduler tests.
///
/// `sleep(until:)` moves time forward to the deadline at once (time never goes back), so a
/// playback runs as fast as the machine allows while every deadline and lateness stays exact.
/// Tests (and fake sources) make time pass with ``advance(by:)`` or ``advance(to:)``, which
/// also only move forward: these operations commute, so concurrent decoders cannot make a
/// result depend on scheduling order.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Locked(Instant(offset: .zero))
    private let sleepCount = Locked(0)

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    /// How many times something slept on this clock.
    var sleeps: Int { sleepCount.withLock { $0 } }

    /// Time since the clock was made.
    var elapsed: Duration { now.offset }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        sleepCount.withLock { $0 += 1 }
        current.withLock { $0 = max($0, deadline) }
        await Task.yield()
        try Task.checkCancellation()
    }

    /// Moves time forward by `duration`.
    func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: duration) }
    }

    /// Moves time forward to `offset` since the start, unless it is already later.
    func advance(to offset: Duration) {
        current.withLock { $0 = max($0, Instant(offset: offset)) }
    }
}
