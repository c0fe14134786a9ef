import Foundation
import Observation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("animateImage, ImageFrameScheduler, ImageAnimator, AnimationFrames", .timeLimit(.minutes(5)))
struct AnimationAPITests {
    @Test("a still PNG delivers its one frame on the main actor and returns ok")
    @MainActor func stillPNG() async throws {
        let png = try StillPNG.make(rgba: [10, 20, 30, 255])
        let seen = Deliveries()
        let status = await animateImage(data: png, clock: ManualClock()) { index, image, _ in
            MainActor.assertIsolated()
            seen.frames.append(
                AnimationFrame(
                    info: FrameInfo(
                        index: index, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 0, height: 0),
                        disposal: .none, blend: .source),
                    play: 0, content: image, deadline: .zero, lateness: .zero, duration: .zero, droppedBefore: 0))
        }
        #expect(status == .ok)
        #expect(seen.indices == [0])
        #expect(seen.frames.first?.image.pixel8(x: 2, y: 1) == [10, 20, 30, 255])
    }

    @Test("a file URL plays; the loop count repeats a still")
    @MainActor func fileURL() async throws {
        let url = URL(fileURLWithPath: try makeTemporaryFile(try StillPNG.make(), name: "still.png"))
        defer { try? FileManager.default.removeItem(at: url) }
        let counter = Deliveries()
        let clock = ManualClock()
        let status = await animateImage(at: url, options: AnimationOptions(plays: 3), clock: clock) {
            index, image, _ in
            counter.frames.append(
                AnimationFrame(
                    info: FrameInfo(
                        index: index, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 3, height: 2),
                        disposal: .none, blend: .source), play: 0, content: image, deadline: .zero, lateness: .zero,
                    duration: .zero, droppedBefore: 0))
        }
        #expect(status == .ok)
        #expect(counter.indices == [0, 0, 0])
        // A still's delay of 0 plays as 100 ms under the browser policy.
        #expect(clock.elapsed == .milliseconds(300))
    }

    static let badInputs: [(String, [UInt8], AnimationStatus)] = [
        ("unknown bytes", Array("hello, not an image".utf8), .unsupportedFormat),
        ("empty", [], .unsupportedFormat),
        (
            "damaged PNG signature", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x0A, 0x00] + Array(repeating: 0, count: 40),
            .corruptInputImage
        ),
    ]

    @Test("errors found up front return their status before any frame", arguments: badInputs)
    @MainActor func badData(name: String, bytes: [UInt8], expected: AnimationStatus) async {
        let seen = Deliveries()
        let status = await animateImage(data: bytes, clock: ManualClock()) { _, _, _ in
            seen.frames.append(
                AnimationFrame(
                    info: FrameInfo(
                        index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 0, height: 0), disposal: .none,
                        blend: .source), play: 0, content: PixelBuffer(width: 0, height: 0), deadline: .zero,
                    lateness: .zero, duration: .zero, droppedBefore: 0))
        }
        #expect(status == expected, "\(name)")
        #expect(seen.frames.isEmpty)
    }

    @Test("a corrupt PNG (bad IHDR checksum) is corrupt input")
    @MainActor func corruptPNG() async throws {
        var png = try StillPNG.make()
        png[29] ^= 0xFF  // a byte of IHDR's CRC
        let status = await animateImage(data: png, clock: ManualClock()) { _, _, _ in }
        #expect(status == .corruptInputImage)
    }

    @Test("a PNG cut short is incomplete input")
    @MainActor func truncatedPNG() async throws {
        let png = try StillPNG.make(width: 64, height: 64)
        let cut = Array(png.prefix(png.count - 20))
        let status = await animateImage(data: cut, clock: ManualClock()) { _, _, _ in }
        #expect(status == .incompleteInputImage)
        let errors = #expect(throws: ImgToolError.self) {
            let source = try ImageSource(data: cut, name: "cut.png")
            _ = try source.frame(at: 0)
        }
        #expect(errors?.input == "cut.png")
    }

    @Test("a missing file is a parameter error, as ImageIO reports an unusable URL")
    @MainActor func missingFile() async {
        let url = URL(fileURLWithPath: "/nonexistent/imgtool/missing.gif")
        let status = await animateImage(at: url, clock: ManualClock()) { _, _, _ in }
        #expect(status == .parameterError)
        let scheduler = ImageFrameScheduler(url: url, clock: ManualClock())
        let started = scheduler.start(frameHandler: { _, _, _ in })
        #expect(started)
        #expect(await scheduler.waitUntilFinished() == .parameterError)
        #expect(scheduler.error?.code == .notFound)
        #expect(scheduler.error?.input == "/nonexistent/imgtool/missing.gif")
        // Preparation failed once: a later start says so at once.
        let restarted = scheduler.start(frameHandler: { _, _, _ in })
        #expect(restarted == false)
    }

    @Test("bad options and URL schemes are parameter errors")
    @MainActor func parameterErrors() async throws {
        let png = try StillPNG.make()
        #expect(
            await animateImage(data: png, options: AnimationOptions(speed: -1), clock: ManualClock()) { _, _, _ in }
                == .parameterError)
        #expect(
            await animateImage(data: png, options: AnimationOptions(startIndex: 1), clock: ManualClock()) { _, _, _ in }
                == .parameterError)
        let ftp = try #require(URL(string: "ftp://127.0.0.1/a.gif"))
        #expect(await animateImage(at: ftp, clock: ManualClock()) { _, _, _ in } == .parameterError)
    }

    @Test("http URLs go through the fetcher; a 404 is a parameter error")
    @MainActor func httpFetch() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/anim.png"))
        let fetcher = FakeFetcher([url.absoluteString: try StillPNG.make()])
        #expect(await animateImage(at: url, clock: ManualClock(), fetcher: fetcher) { _, _, _ in } == .ok)
        #expect(fetcher.requests == 1)
        let missing = try #require(URL(string: "http://127.0.0.1:1/missing.png"))
        #expect(
            await animateImage(at: missing, clock: ManualClock(), fetcher: fetcher) { _, _, _ in } == .parameterError)
    }

    @Test("ImageFrameScheduler: start twice is harmless, the image is prepared once, stop then start restarts")
    @MainActor func frameScheduler() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/anim.png"))
        let fetcher = FakeFetcher([url.absoluteString: try StillPNG.make()])
        let scheduler = ImageFrameScheduler(
            url: url, options: AnimationOptions(plays: 0), clock: ManualClock(), fetcher: fetcher)
        let seen = Deliveries()
        let handler: @MainActor @Sendable (Int, PixelBuffer, inout Bool) -> Void = { index, image, _ in
            seen.frames.append(
                AnimationFrame(
                    info: FrameInfo(
                        index: index, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 3, height: 2),
                        disposal: .none, blend: .source), play: 0, content: image, deadline: .zero, lateness: .zero,
                    duration: .zero, droppedBefore: 0))
            if seen.frames.count == 5 { scheduler.stop() }
        }
        let first = scheduler.start(frameHandler: handler)
        let second = scheduler.start(frameHandler: handler)  // harmless while running
        #expect(first && second)
        #expect(await scheduler.waitUntilFinished() == .ok)
        // stop() took effect before the next frame, though the animation loops forever
        #expect(seen.frames.count == 5)
        #expect(!scheduler.isRunning)
        let again = scheduler.start(frameHandler: handler)
        #expect(again)
        try await yieldUntil { seen.frames.count >= 8 }
        scheduler.stop()
        let countAtStop = seen.frames.count
        for _ in 0..<50 { await Task.yield() }
        #expect(seen.frames.count == countAtStop)
        #expect(fetcher.requests == 1)
    }

    @Test("ImageFrameScheduler plays a prepared source and calls the completion handler")
    @MainActor func schedulerCompletion() async throws {
        let source = FakeFrameSource(delaysMs: [20, 20, 20])
        let scheduler = ImageFrameScheduler(source: source, name: "fake", clock: ManualClock())
        let seen = Deliveries()
        let statuses = StatusBox()
        scheduler.start(
            frameHandler: { index, image, _ in
                seen.frames.append(
                    AnimationFrame(
                        info: source.info.frames[index], play: 0, content: image, deadline: .zero, lateness: .zero,
                        duration: .zero, droppedBefore: 0))
            },
            completionHandler: { statuses.values.append($0) })
        #expect(await scheduler.waitUntilFinished() == .ok)
        #expect(seen.indices == [0, 1, 2])
        #expect(statuses.values == [.ok])
        #expect(source.recorder.snapshot.readersAlive == 0)
    }

    @Test("ImageAnimator publishes the current frame through Observation")
    @MainActor func animator() async throws {
        let source = FakeFrameSource(delaysMs: [20, 20, 20])
        let animator = ImageAnimator(source: source, name: "fake", clock: ManualClock())
        let changes = StatusBox()
        withObservationTracking {
            _ = animator.currentIndex
        } onChange: {
            Task { @MainActor in changes.values.append(.ok) }
        }
        #expect(animator.startAnimating())
        #expect(animator.isAnimating)
        #expect(await animator.waitUntilFinished() == .ok)
        #expect(animator.currentIndex == 2)
        #expect(animator.framesShown == 3)
        #expect(animator.currentFrame?.pixel8(x: 0, y: 0) == [2, 2, 0, 255])
        #expect(!animator.isAnimating)
        try await yieldUntil { !changes.values.isEmpty }
        animator.stopAnimating()
        #expect(animator.status == .ok)
    }

    @Test("AnimationFrames: leaving the loop stops playback and frees the decoder")
    func framesBreak() async throws {
        let source = FakeFrameSource(delaysMs: [30, 30, 30], plays: 0)
        var indices: [Int] = []
        for try await frame in AnimationFrames(source: source, clock: ManualClock()) {
            indices.append(frame.index)
            if indices.count == 4 { break }
        }
        #expect(indices.count == 4)
        try await yieldUntil { source.recorder.snapshot.readersAlive == 0 && source.recorder.snapshot.readersMade > 0 }
    }

    @Test("AnimationFrames: cancelling the consuming task stops playback and frees the decoder")
    func framesCancel() async throws {
        let source = FakeFrameSource(delaysMs: [30, 30, 30], plays: 0)
        let consumer = Task {
            var count = 0
            for try await _ in AnimationFrames(source: source, clock: ManualClock()) {
                count += 1
                if count == 5 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        let count = try await consumer.value
        #expect(count >= 5)
        try await yieldUntil { source.recorder.snapshot.readersAlive == 0 }
        let decodedAfterStop = source.recorder.snapshot.decoded.count
        for _ in 0..<50 { await Task.yield() }
        #expect(source.recorder.snapshot.decoded.count == decodedAfterStop)
    }

    @Test("AnimationFrames throws the up-front error from the first next()")
    func framesError() async {
        let error = await #expect(throws: ImgToolError.self) {
            for try await _ in AnimationFrames(data: Array("nope".utf8), name: "nope.gif", clock: ManualClock()) {}
        }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.input == "nope.gif")
    }
}

/// Collected statuses, on the main actor.
@MainActor
final class StatusBox {
    var values: [AnimationStatus] = []
}

/// Yields until `condition` holds (at most 100,000 yields: virtual time, no wall clock).
func yieldUntil(_ condition: @escaping @MainActor () -> Bool) async throws {
    for _ in 0..<100_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never held")
}
