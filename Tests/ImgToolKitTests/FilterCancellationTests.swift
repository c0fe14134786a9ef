import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Blur and sharpen stop when their task is cancelled", .timeLimit(.minutes(1)))
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

    /// Runs `body` in a task cancelled before `body` starts.
    private func inCancelledTask<Result: Sendable>(_ body: @escaping @Sendable () throws(ImgToolError) -> Result)
        async -> Swift.Result<Result, ImgToolError>
    {
        let task = Task { () -> Swift.Result<Result, ImgToolError> in
            while !Task.isCancelled { await Task.yield() }
            return Swift.Result { () throws(ImgToolError) in try body() }
        }
        task.cancel()
        return await task.value
    }

    @Test(
        "a cancelled task's blur or sharpen, exact kernel or boxes, one thread or two, stops at its first rows",
        arguments: [2.0, 40.0], [1, 2])
    func stopsWhenCancelled(sigma: Double, threads: Int) async {
        let picture = image(width: 64, height: 64)
        for mode in [GaussianFilter.Mode.blur, .sharpen(amount: 1)] {
            let result = await inCancelledTask { () throws(ImgToolError) in
                picture.gaussianFiltered(mode, sigma: sigma, threads: threads, stop: FilterStop())
            }
            // Without the checks the filter would finish and return an image.
            guard case .success(let filtered) = result else {
                Issue.record("the filter threw \(result)")
                continue
            }
            #expect(filtered == nil, "sigma \(sigma), \(threads) thread(s), \(mode): the filter ran to the end")
        }
        // Not cancelled, the same call finishes, and gives what the plain filter gives.
        let finished = picture.gaussianFiltered(.blur, sigma: sigma, threads: threads, stop: FilterStop())
        #expect(finished == picture.blurred(sigma: sigma))
    }

    @Test("--blur 1000 on a 1.6 MP frame, read through the operation, ends with `cancelled` once its task is cancelled")
    func operationEndsWhenCancelled() async throws {
        let source = StillImageSource(image(width: 1600, height: 1000))
        let blurred = try await FilterOperation.blur(sigma: 1000).apply(to: source, context: OperationContext())
        let started = Date()
        let task = Task { () async throws(ImgToolError) -> PixelBuffer in
            try blurred.frame(at: 0, depth: .eight).image
        }
        // Long enough for the filter to be at work (reading the still source takes no time);
        // the whole blur takes seconds in a debug build.
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let cancelled = Date()
        let result = await task.result
        let elapsed = Date().timeIntervalSince(started)
        let stopping = Date().timeIntervalSince(cancelled)
        // It stops within a few rows: milliseconds (the whole blur takes over 20 s in a debug build).
        #expect(stopping < 5, "\(stopping) s from the cancellation to the end")

        guard case .failure(let error) = result else {
            Issue.record("the blur finished in \(elapsed) s instead of stopping")
            return
        }
        #expect((error as? ImgToolError)?.code == .cancelled, "\(error)")
    }
}
