import Dispatch
import Foundation
import FuzzSupport
import ImgToolKit

/// `convert`'s operation words: the input is split into words at each NUL or newline byte and
/// parsed with ``ImageOperation/parse(words:background:suggesting:)``. When they parse, the
/// operations must come back equal from a JSON round trip, and applying them to a small 3-frame
/// animation and to a 16-bit still (every frame read) must succeed or throw, never trap; each
/// frame read must have the size its source declares. Every overlay is pointed at one tiny PNG,
/// and the limits keep every canvas small, so one input cannot slow the fuzzer down.
@main
enum FuzzOperationWords {
    static func main() { FuzzDriver.run(run) }

    /// Canvases of at most 4 Ki pixels, 16 frames, 16 Ki pixels over an animation.
    static let limits = DecodingLimits(maxPixels: 1 << 12, maxFrames: 16, maxTotalPixels: 1 << 14)

    /// A 6x4 RGBA animation of three frames, and a 16-bit 5x3 still, as APNG and PNG bytes.
    static let animation = png(width: 6, height: 4, frames: 3, depth: .eight)
    static let still = png(width: 5, height: 3, frames: 1, depth: .sixteen)
    /// A 2x2 overlay, written once to a temporary file.
    static let overlayPath: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-overlay-\(getpid()).png").path
        let overlay = Data(png(width: 2, height: 2, frames: 1, depth: .eight))
        _ = FileManager.default.createFile(atPath: path, contents: overlay)
        return path
    }()

    static func png(width: Int, height: Int, frames: Int, depth: SampleDepth) -> [UInt8] {
        do {
            let writer = try APNGWriter(width: width, height: height, frameCount: frames, plays: 0, depth: depth)
            for frame in 0..<frames {
                var samples: [UInt8] = []
                for y in 0..<height {
                    for x in 0..<width {
                        let value = UInt8(truncatingIfNeeded: 40 * x + 60 * y + 90 * frame)
                        samples += [value, 255 - value, 128, x == 0 ? 0 : 255]
                    }
                }
                let image =
                    depth == .eight
                    ? PixelBuffer(width: width, height: height, rgba8: samples)
                    : PixelBuffer(width: width, height: height, rgba16: samples.map { UInt16($0) * 257 })
                try writer.append(image, delay: .milliseconds(40 + 20 * frame))
            }
            try writer.finish()
            return writer.data
        } catch {
            fatalError("the fuzzer's own images do not write: \(error)")
        }
    }

    static func run(_ bytes: [UInt8]) {
        guard bytes.count <= 4096 else { return }
        var words = bytes.split(omittingEmptySubsequences: false) { $0 == 0 || $0 == 0x0A }.map {
            String(decoding: $0, as: UTF8.self)
        }
        if words.last == "" { words.removeLast() }
        let background = words.count % 2 == 0 ? nil : RGBAColor(red: 10, green: 20, blue: 30, alpha: 200)
        guard var operations = try? ImageOperation.parse(words: words, background: background) else { return }

        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(operations)
        } catch {
            preconditionFailure("parsed operations do not encode: \(error)")
        }
        do {
            let decoded = try JSONDecoder().decode([ImageOperation].self, from: encoded)
            precondition(decoded == operations, "operations differ after JSON: \(decoded) != \(operations)")
        } catch {
            preconditionFailure("encoded operations do not decode: \(error)")
        }

        operations = operations.map { operation in
            guard case .overlay(var overlay) = operation else { return operation }
            overlay.input = overlayPath
            return .overlay(overlay)
        }
        apply(operations, to: animation, name: "animation.png")
        apply(operations, to: still, name: "still.png")
    }

    /// Applies `operations` to the image in `bytes` and reads every frame.
    static func apply(_ operations: [ImageOperation], to bytes: [UInt8], name: String) {
        let limits = self.limits
        let outcome = blocking { () async -> Result<any FrameSource, ImgToolError> in
            do throws(ImgToolError) {
                let source = try ImageSource(data: bytes, name: name, limits: limits)
                let loader = ImageLoader(options: ImageLoader.Options(maxConcurrent: 1, limits: limits))
                return .success(
                    try await source.applying(operations, context: OperationContext(loader: loader, limits: limits)))
            } catch {
                return .failure(error)
            }
        }
        guard case .success(let result) = outcome else { return }
        do {
            let reader = try result.makeFrameReader(depth: nil)
            var count = 0
            while let frame = try reader.nextFrame() {
                precondition(frame.image.width == result.info.width && frame.image.height == result.info.height, "size")
                count += 1
            }
            precondition(count == result.info.frameCount, "\(count) frames read, \(result.info.frameCount) declared")
        } catch {
            return  // an ImgToolError (typed throws): a clear refusal is a fine outcome
        }
    }

    /// The result of `body`, run as a task while this thread waits, until the task has let go
    /// of everything it held: memory still being released on the task's thread when the harness
    /// returns is what LeakSanitizer, run by libFuzzer right then, would report as leaked.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let released = DispatchSemaphore(value: 0)
        Task { [sentinel = Sentinel(released)] in
            box.value = await body()
            _ = sentinel
        }
        released.wait()
        guard let value = box.value else { preconditionFailure("the task ended without a value") }
        return value
    }
}

/// Signals its semaphore when released: the task's closure, which alone holds it, is gone.
final class Sentinel: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.signal() }
}

/// A value handed from a task to the thread waiting on it (written before the semaphore is
/// signalled, read after the wait).
final class Box<T>: @unchecked Sendable {
    var value: T?
}
