import Foundation
import Testing

@testable import ImgToolKit

/// Plays `source` on `clock`, collecting deliveries; `onFrame` runs in the handler first.
@MainActor
func record(
    _ source: some FrameSource, options: AnimationOptions = AnimationOptions(), clock: ManualClock,
    onFrame: @escaping @MainActor @Sendable (AnimationFrame<PixelBuffer>, inout Bool) -> Void = { _, _ in }
) async throws -> (AnimationReport, [AnimationFrame<PixelBuffer>]) {
    let deliveries = Deliveries()
    let report = try await AnimationScheduler(options: options, clock: clock).play(source) { frame, stop in
        MainActor.assertIsolated("frames are delivered on the main actor")
        deliveries.frames.append(frame)
        onFrame(frame, &stop)
    }
    return (report, deliveries.frames)
}

@Suite("Animation scheduler on virtual time", .timeLimit(.minutes(5)))
struct AnimationSchedulerTests {
    @Test("frames come at start + the sum of the delays before them")
    @MainActor func deadlinesAccumulate() async throws {
        // Given three frames of 20, 30 and 40 ms that play once
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: [20, 30, 40])
        // When played
        let (report, frames) = try await record(source, clock: clock)
        // Then each is due at the sum of the delays before it, on time, and playback lasts 90 ms
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames.map(\.deadline) == [.zero, .milliseconds(20), .milliseconds(50)])
        #expect(frames.allSatisfy { $0.lateness == .zero })
        #expect(frames.map(\.content.rgba8?.first) == [0, 1, 2])
        #expect(report.elapsed == .milliseconds(90))
        #expect(report.status == .ok)
        #expect(report.delivered == 3 && report.dropped == 0 && report.late == 0)
    }

    @Test("the start index skips earlier frames in the first play only, still compositing them")
    @MainActor func startIndex() async throws {
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: [100, 100, 100, 100])
        let (_, frames) = try await record(source, options: AnimationOptions(startIndex: 2, plays: 2), clock: clock)
        #expect(frames.map(\.index) == [2, 3, 0, 1, 2, 3])
        #expect(frames.map(\.play) == [0, 0, 1, 1, 1, 1])
        #expect(frames.map(\.deadline.milliseconds) == [0, 100, 200, 300, 400, 500])
        // Frames 0 and 1 of the first play were decoded (composited) though not shown.
        #expect(source.recorder.snapshot.decoded == [0, 1, 2, 3, 0, 1, 2, 3])
    }

    @Test("a start index past the last frame is a parameter error")
    @MainActor func startIndexOutOfRange() async throws {
        let source = FakeFrameSource(delaysMs: [100, 100])
        let error = await #expect(throws: ImgToolError.self) {
            _ = try await record(source, options: AnimationOptions(startIndex: 2), clock: ManualClock())
        }
        #expect(error?.code == .invalidArgument)
        #expect(error.map { AnimationStatus($0) } == .parameterError)
    }

    @Test("a delay override replaces every delay and is not clamped")
    @MainActor func delayOverride() async throws {
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: [0, 500, 70])
        let (report, frames) = try await record(
            source, options: AnimationOptions(delayTime: .milliseconds(5)), clock: clock)
        #expect(frames.map(\.deadline.milliseconds) == [0, 5, 10])
        #expect(report.elapsed == .milliseconds(15))
    }

    @Test("the file's plays count, and the loop count overrides it; each play gets a new reader")
    @MainActor func plays() async throws {
        let filePlays = FakeFrameSource(delaysMs: [50, 50], plays: 2)
        let (report, frames) = try await record(filePlays, clock: ManualClock())
        #expect(frames.map(\.play) == [0, 0, 1, 1])
        #expect(report.playsBegun == 2)
        #expect(filePlays.recorder.snapshot.readersMade == 2)

        let overridden = FakeFrameSource(delaysMs: [50, 50], plays: 2)
        let (_, three) = try await record(overridden, options: AnimationOptions(plays: 3), clock: ManualClock())
        #expect(three.map(\.index) == [0, 1, 0, 1, 0, 1])
        #expect(overridden.recorder.snapshot.readersMade == 3)
        #expect(overridden.recorder.snapshot.readersAlive == 0)
    }

    @Test("setting the stop flag delivers no further frame, even when looping forever")
    @MainActor func stopFlag() async throws {
        let source = FakeFrameSource(delaysMs: [40, 40, 40], plays: 0)
        let (report, frames) = try await record(source, clock: ManualClock()) { frame, stop in
            if frame.play == 1 && frame.index == 1 { stop = true }
        }
        #expect(frames.map(\.index) == [0, 1, 2, 0, 1])
        if case .stopped = report.outcome {} else { Issue.record("outcome \(report.outcome), expected stopped") }
        #expect(report.status == .ok)
    }

    @Test("a late consumer: drop skips frames whose slot has passed and keeps time")
    @MainActor func dropPolicy() async throws {
        // Given six 100 ms frames, and a handler that takes 250 ms (virtual) on frame 1
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: Array(repeating: 100, count: 6))
        let (report, frames) = try await record(source, options: AnimationOptions(latePolicy: .drop), clock: clock) {
            frame, _ in
            if frame.index == 1 { clock.advance(by: .milliseconds(250)) }
        }
        // Then frame 2 (due 200-300, ready at 350) is dropped, frame 3 comes 50 ms late, 4 and 5 on time
        #expect(frames.map(\.index) == [0, 1, 3, 4, 5])
        #expect(frames.map(\.lateness.milliseconds) == [0, 0, 50, 0, 0])
        #expect(frames.map(\.droppedBefore) == [0, 0, 1, 0, 0])
        #expect(report.dropped == 1 && report.late == 1 && report.delivered == 5)
        #expect(report.elapsed == .milliseconds(600))
    }

    @Test("a late consumer: wait shows every frame late, and later deadlines do not move")
    @MainActor func waitPolicy() async throws {
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: Array(repeating: 100, count: 6))
        let (report, frames) = try await record(source, options: AnimationOptions(latePolicy: .wait), clock: clock) {
            frame, _ in
            if frame.index == 1 { clock.advance(by: .milliseconds(250)) }
        }
        #expect(frames.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(frames.map(\.lateness.milliseconds) == [0, 0, 150, 50, 0, 0])
        #expect(frames.map(\.deadline.milliseconds) == [0, 100, 200, 300, 400, 500])
        #expect(report.dropped == 0 && report.late == 2)
    }

    @Test("a slow decoder: frames ready after their slot are dropped, the last frame never")
    @MainActor func slowSource() async throws {
        // Given five 100 ms frames where frame 2 is ready only at 1000 ms
        let clock = ManualClock()
        let source = FakeFrameSource(
            delaysMs: Array(repeating: 100, count: 5), readyAt: [2: .milliseconds(1000)], clock: clock)
        let (report, frames) = try await record(source, clock: clock)
        // Then frames 2 and 3 (slots ending at 300 and 400) are dropped and the last is shown
        #expect(frames.map(\.index) == [0, 1, 4])
        #expect(report.dropped == 2)
        #expect(frames.last?.droppedBefore == 2)
    }

    @Test("speed divides every delay")
    @MainActor func speed() async throws {
        let source = FakeFrameSource(delaysMs: [100, 200, 300])
        let (report, frames) = try await record(source, options: AnimationOptions(speed: 2), clock: ManualClock())
        #expect(frames.map(\.deadline.milliseconds) == [0, 50, 150])
        #expect(report.elapsed == .milliseconds(300))
    }

    @Test("frames are delivered on the main actor and decoded off it, at most one frame ahead")
    @MainActor func isolation() async throws {
        let source = FakeFrameSource(delaysMs: Array(repeating: 30, count: 10))
        let (_, frames) = try await record(source, clock: ManualClock()) { frame, _ in
            MainActor.assertIsolated()
            // Frame 0 comes before the file is decoded: at most this frame and the next one are.
            #expect(source.recorder.snapshot.decoded.count <= frame.index + 2)
        }
        #expect(frames.count == 10)
        // No frame was decoded on the main thread. (Thread ids are no evidence beyond that on Linux:
        // the main actor's queue is drained by dispatch worker threads whose ids the cooperative
        // pool's threads reuse, so a decode thread's id can match one that ran the handler earlier.)
        #expect(source.recorder.snapshot.decodedOnMainThread == 0)
        #expect(source.recorder.snapshot.decoded.count == 10)
    }

    @Test("a frame that fails after frame 0 ends playback with its status; frame 0 failing throws")
    @MainActor func failingSource() async throws {
        let later = FakeFrameSource(delaysMs: [20, 20, 20, 20, 20], failAt: 3)
        let (report, frames) = try await record(later, clock: ManualClock())
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(report.status == .corruptInputImage)
        #expect(later.recorder.snapshot.readersAlive == 0)

        var truncated = FakeFrameSource(delaysMs: [20, 20], failAt: 0)
        truncated.failure = ImgToolError(.truncated, "fake cut")
        let error = await #expect(throws: ImgToolError.self) {
            _ = try await record(truncated, clock: ManualClock())
        }
        #expect(error.map { AnimationStatus($0) } == .incompleteInputImage)
    }

    @Test("an input cut short plays its frames and reports incomplete input")
    @MainActor func incompleteInput() async throws {
        let source = FakeFrameSource(delaysMs: [20, 20], isComplete: false)
        let (report, frames) = try await record(source, clock: ManualClock())
        #expect(frames.count == 2)
        #expect(report.status == .incompleteInputImage)
    }

    @Test("cancelling the playing task ends playback and frees the reader")
    @MainActor func cancellation() async throws {
        let clock = ManualClock()
        let source = FakeFrameSource(delaysMs: [40, 40], plays: 0)
        let task = Task { @MainActor in
            try await record(source, clock: clock) { frame, _ in
                if frame.play == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let (report, frames) = try await task.value
        if case .cancelled = report.outcome {} else { Issue.record("outcome \(report.outcome), expected cancelled") }
        #expect(frames.last?.play == 3)
        #expect(source.recorder.snapshot.readersAlive == 0)
    }
}

@Suite("Delay policies and plans", .timeLimit(.minutes(5)))
struct AnimationPlanTests {
    @Test(
        "effective delays",
        arguments: [
            (DelayPolicy.browser, ImageFormat.gif, 0, 100), (.browser, .gif, 10, 100), (.browser, .gif, 11, 11),
            (.browser, .apng, 5, 100), (.imageio, .gif, 20, 100), (.imageio, .gif, 150, 150),
            (.imageio, .apng, 20, 50), (.imageio, .apng, 60, 60), (.imageio, .png, 0, 0), (.raw, .gif, 0, 0),
            (.raw, .gif, 7, 7), (.minimum(.milliseconds(30)), .gif, 20, 30),
            (.minimum(.milliseconds(30)), .gif, 40, 40),
        ])
    func effectiveDelay(policy: DelayPolicy, format: ImageFormat, storedMs: Int, expectedMs: Int) {
        #expect(policy.effectiveDelay(.milliseconds(storedMs), format: format) == .milliseconds(expectedMs))
    }

    @Test("policies parse as --delay-policy spells them")
    func parsing() {
        #expect(DelayPolicy(parsing: "browser") == .browser)
        #expect(DelayPolicy(parsing: "imageio") == .imageio)
        #expect(DelayPolicy(parsing: "raw") == .raw)
        #expect(DelayPolicy(parsing: "min=20") == .minimum(.milliseconds(20)))
        #expect(DelayPolicy(parsing: "min=2.5") == .minimum(.microseconds(2500)))
        #expect(DelayPolicy(parsing: "min=-1") == nil)
        #expect(DelayPolicy(parsing: "fast") == nil)
        #expect(DelayPolicy.minimum(.milliseconds(20)).description == "min=20")
    }

    @Test("a forever animation of zero-length frames plays once")
    func zeroForever() throws {
        let info = FakeFrameSource(delaysMs: [0, 0], plays: 0).info
        #expect(try AnimationPlan(info: info, options: AnimationOptions(delayPolicy: .raw)).plays == 1)
        #expect(try AnimationPlan(info: info, options: AnimationOptions()).plays == 0)
    }

    @Test("the timeline of all plays, starting at the start index")
    func entries() throws {
        let info = FakeFrameSource(delaysMs: [5, 50, 70], plays: 2).info
        let plan = try AnimationPlan(info: info, options: AnimationOptions(startIndex: 1))
        let entries = plan.entries()
        #expect(entries.map(\.frame.index) == [1, 2, 0, 1, 2])
        #expect(entries.map(\.start.milliseconds) == [0, 50, 120, 220, 270])
        #expect(entries.map(\.duration.milliseconds) == [50, 70, 100, 50, 70])
    }

    @Test("the timeline of ten million plays is made as it is walked, not held")
    func lazyTimeline() throws {
        let info = FakeFrameSource(delaysMs: [40, 60], plays: 10_000_000).info
        let plan = try AnimationPlan(info: info, options: AnimationOptions(startIndex: 1))
        // The first entries come at once: nothing of the twenty million is made ahead.
        let first = Array(plan.timeline().prefix(5))
        #expect(first.map(\.frame.index) == [1, 0, 1, 0, 1])
        #expect(first.map(\.play) == [0, 1, 1, 2, 2])
        #expect(first.map(\.start.milliseconds) == [0, 60, 100, 160, 200])
        #expect(Array(plan.timeline(plays: 3)) == plan.entries(plays: 3))
        #expect(Array(plan.timeline(plays: 0)).isEmpty)
    }

    @Test(
        "options out of range",
        arguments: [
            AnimationOptions(speed: 0), AnimationOptions(speed: .infinity),
            AnimationOptions(delayTime: .milliseconds(-1)),
            AnimationOptions(plays: -1), AnimationOptions(startIndex: -1),
        ])
    func invalidOptions(options: AnimationOptions) {
        #expect(throws: ImgToolError.self) { try options.validate() }
    }
}
