import Foundation
import Testing

@testable import ImgToolKit

/// Plays `source` with a transform and a cache on a manual clock, collecting what was delivered.
@MainActor
private func recordCached<Content: Sendable>(
    _ source: some FrameSource, options: AnimationOptions = AnimationOptions(),
    transform: @escaping @Sendable (Frame) -> Content, cache: PlaybackCache<Content>
) async throws -> (AnimationReport, [AnimationFrame<Content>]) {
    let deliveries = CachedDeliveries<Content>()
    let report = try await AnimationScheduler(options: options, clock: ManualClock()).play(
        source, transform: transform, cache: cache
    ) { frame, _ in
        deliveries.frames.append(frame)
    }
    return (report, deliveries.frames)
}

@MainActor
private final class CachedDeliveries<Content: Sendable> {
    var frames: [AnimationFrame<Content>] = []
}

/// The first red sample of a frame: the fake source fills frame i with grey level i.
private let firstSample: @Sendable (Frame) -> Int = { frame in Int(frame.image.pixel8(x: 0, y: 0)[0]) }

@Suite("Playback cache: later plays without decoding", .timeLimit(.minutes(5)))
struct PlaybackCacheTests {
    @Test("once a play is stored, later plays are served from the cache with no reader")
    @MainActor func servesLaterPlays() async throws {
        let source = FakeFrameSource(delaysMs: [20, 30, 40], plays: 3)
        let cache = PlaybackCache<Int>(byteBudget: 1024, cost: { _ in 8 })
        let (report, frames) = try await recordCached(source, transform: firstSample, cache: cache)
        #expect(frames.map(\.index) == [0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(frames.map(\.play) == [0, 0, 0, 1, 1, 1, 2, 2, 2])
        #expect(frames.map(\.content) == [0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(frames.map(\.deadline.milliseconds) == [0, 20, 50, 90, 110, 140, 180, 200, 230])
        #expect(frames.map(\.info) == source.info.frames + source.info.frames + source.info.frames)
        #expect(report.delivered == 9)
        #expect(report.playsBegun == 3)
        let seen = source.recorder.snapshot
        #expect(seen.readersMade == 1, "only the first play decodes")
        #expect(seen.decoded == [0, 1, 2])
        #expect(seen.readersAlive == 0)
        #expect(cache.storedBytes == 24)
    }

    @Test("frames that do not fit the budget empty the cache and every play decodes")
    @MainActor func overBudget() async throws {
        let source = FakeFrameSource(delaysMs: [20, 30, 40], plays: 2)
        let cache = PlaybackCache<Int>(byteBudget: 20, cost: { _ in 8 })
        let (_, frames) = try await recordCached(source, transform: firstSample, cache: cache)
        #expect(frames.map(\.content) == [0, 1, 2, 0, 1, 2])
        #expect(source.recorder.snapshot.readersMade == 2)
        #expect(cache.isOverBudget)
        #expect(cache.storedBytes == 0)
    }

    @Test("stale content is decoded again, not shown")
    @MainActor func staleContent() async throws {
        let source = FakeFrameSource(delaysMs: [20, 30], plays: 3)
        // Content made in the first play (decode order 0 and 1) is stale; later content is current.
        let made = Locked(0)
        let cache = PlaybackCache<Int>(byteBudget: 1024, cost: { _ in 8 }, isCurrent: { $0 >= 2 })
        let (_, frames) = try await recordCached(
            source,
            transform: { _ in
                made.withLock { count in
                    defer { count += 1 }; return count
                }
            }, cache: cache)
        #expect(frames.map(\.content) == [0, 1, 2, 3, 2, 3], "play 3 shows play 2's current content")
        #expect(source.recorder.snapshot.readersMade == 2)
    }

    @Test("a start index: the skipped frames are stored in the second play, then the cache serves")
    @MainActor func startIndex() async throws {
        let source = FakeFrameSource(delaysMs: [20, 30, 40], plays: 3)
        let cache = PlaybackCache<Int>(byteBudget: 1024, cost: { _ in 8 })
        let (_, frames) = try await recordCached(
            source, options: AnimationOptions(startIndex: 2), transform: firstSample, cache: cache)
        #expect(frames.map(\.index) == [2, 0, 1, 2, 0, 1, 2])
        #expect(frames.map(\.content) == [2, 0, 1, 2, 0, 1, 2])
        #expect(source.recorder.snapshot.readersMade == 2)
    }

    @Test("forever with a stop flag: the cache keeps playing without readers until stopped")
    @MainActor func foreverStops() async throws {
        let source = FakeFrameSource(delaysMs: [10, 10], plays: 0)
        let cache = PlaybackCache<Int>(byteBudget: 1024, cost: { _ in 8 })
        var count = 0
        let report = try await AnimationScheduler(clock: ManualClock()).play(
            source, transform: firstSample, cache: cache
        ) { _, stop in
            count += 1
            stop = count == 11
        }
        #expect(report.delivered == 11)
        guard case .stopped = report.outcome else {
            Issue.record("expected a stopped outcome, got \(report.outcome)")
            return
        }
        #expect(source.recorder.snapshot.readersMade == 1)
        #expect(source.recorder.snapshot.readersAlive == 0)
    }
}
