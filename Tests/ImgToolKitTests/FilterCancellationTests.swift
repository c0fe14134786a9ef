import Dispatch
import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Blur and sharpen stop when their task is cancelled", .timeLimit(.minutes(5)))
struct FilterCancellationTests {
    /// An opaque image of `width` x `height` with some texture.
    private func image(width: Int, height: Int) -> PixelBuffer {
        var samples = [UInt8](repeating: 255, count: width * height * 4)
        for index in stride(from: 0, to: samples.count, by: 4) {
            samples[index] = UInt8(truncatingIfNeeded: index / 4)
            samples[index + 1] = UInt8(truncatingIfNeeded: index / 4 / width)
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    @Test(
        "told to stop, a blur or sharpen, exact kernel or boxes, one thread or two, stops at its first rows",
        arguments: [2.0, 40.0], [1, 2])
    func stopsWhenTold(sigma: Double, threads: Int) {
        let picture = image(width: 64, height: 64)
        for mode in [GaussianFilter.Mode.blur, .sharpen(amount: 1)] {
            let asked = Locked(0)
            let stop = FilterStop(isCancelled: {
                asked.withLock { $0 += 1 }
                return true
            })
            // Without the checks the filter would finish and return an image.
            let filtered = picture.gaussianFiltered(mode, sigma: sigma, threads: threads, stop: stop)
            #expect(filtered == nil, "sigma \(sigma), \(threads) thread(s), \(mode): the filter ran to the end")
            #expect(asked.withLock { $0 } >= 1)
        }
        // Not told to stop, the same call finishes, and gives what the plain filter gives.
        let finished = picture.gaussianFiltered(.blur, sigma: sigma, threads: threads, stop: FilterStop())
        #expect(finished == picture.blurred(sigma: sigma))
    }

    @Test("--blur 1000 on a 1.6 MP frame, read through the operation, ends with `cancelled` once its task is cancelled")
    func operationEndsWhenCancelled() async throws {
        let source = StillImageSource(image(width: 1600, height: 1000))
        let blurred = try await FilterOperation.blur(sigma: 1000).apply(to: source, context: OperationContext())
        // When the task's body started and ended, measured on its own thread: the test's own
        // resumption may wait long for a thread when other suites hold the cooperative pool.
        let times = Locked<(start: Date?, end: Date?)>((nil, nil))
        let task = Task { () async throws(ImgToolError) -> PixelBuffer in
            times.withLock { $0.start = Date() }
            defer { times.withLock { $0.end = Date() } }
            return try blurred.frame(at: 0, depth: .eight).image
        }
        // Cancelled from a thread outside the cooperative pool, which the blur (and other suites'
        // runs) may hold: 50 ms in, the filter is at work (reading the still takes no time).
        let cancelled = Locked<Date?>(nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
            cancelled.withLock { $0 = Date() }
            task.cancel()
        }
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the blur finished instead of stopping")
            return
        }
        #expect((error as? ImgToolError)?.code == .cancelled, "\(error)")
        // It stops within a few rows of the cancellation (or of its start, when it started
        // later): milliseconds, where the whole blur takes over 20 s in a debug build.
        let (start, end) = times.withLock { $0 }
        if let start, let end, let cancelled = cancelled.withLock({ $0 }) {
            let stopping = end.timeIntervalSince(max(start, cancelled))
            #expect(stopping < 5, "\(stopping) s from the cancellation to the end")
        }
    }
}
