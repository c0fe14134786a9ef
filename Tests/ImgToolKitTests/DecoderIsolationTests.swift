import Foundation
import Testing

@testable import ImgToolKit

/// A HEIF decoded through ``DecoderIsolation`` when the child misbehaves: real processes that
/// die of a signal, exit without answering, never answer, or are cancelled. Each turns into one
/// error, and no child is left behind. (The child that decodes for real is the `imgtool`
/// executable: DecoderIsolationCLITests.)
@Suite("Decoder isolation", .timeLimit(.minutes(5)))
struct DecoderIsolationTests {
    static let heic = Array(
        (try? Data(contentsOf: URL(fileURLWithPath: HEIFCodecTests.fixtures + "/heif/gradient.heic"))) ?? Data())

    static func describe(through executable: String, _ arguments: [String], timeout: Duration = .seconds(10))
        -> ImgToolError?
    {
        let isolation = DecoderIsolation(executable: executable, arguments: arguments, timeout: timeout)
        do {
            _ = try HEIFSource(data: heic, limits: .default, isolation: isolation)
            return nil
        } catch {
            return error
        }
    }

    @Test("a child that dies of SIGSEGV or SIGABRT is an error naming libheif and the signal")
    func crash() {
        let segv = Self.describe(through: "/bin/sh", ["-c", "kill -SEGV $$"])
        #expect(segv?.code == .corrupt && segv?.message == "libheif crashed decoding it (SIGSEGV)")
        let abort = Self.describe(through: "/bin/sh", ["-c", "kill -ABRT $$"])
        #expect(abort?.message == "libheif crashed decoding it (SIGABRT)", "\(String(describing: abort))")
    }

    @Test("a child that exits without answering, and a program that cannot start")
    func noAnswer() {
        let silent = Self.describe(through: "/bin/sh", ["-c", "exit 7"])
        #expect(silent?.message == "the libheif decoder process ended without an answer (exit status 7)")
        let missing = Self.describe(through: "/nonexistent/imgtool", [])
        #expect(missing?.code == .unsupportedFormat && missing?.message.contains("No such file") == true)
    }

    @Test("a child that never answers is killed at the timeout")
    func timeout() {
        let start = ContinuousClock.now
        let error = Self.describe(through: "/bin/sleep", ["30"], timeout: .milliseconds(300))
        #expect(error?.message == "libheif took too long to decode it (its process is killed)")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("cancelling the task kills the child")
    func cancellation() async {
        // Cancelled at once: a test that slept before cancelling would need a free thread of the
        // cooperative pool to wake up, and the decode blocks one while it waits for the child.
        // Timed inside the task: waiting for a pool thread to run it is not the decode's time.
        let task = Task {
            let start = ContinuousClock.now
            return (Self.describe(through: "/bin/sleep", ["30"]), ContinuousClock.now - start)
        }
        task.cancel()
        let (error, elapsed) = await task.value
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }

    @Test("a description survives the wire; a cut one is refused")
    func descriptionWire() {
        var description = HEIFDescription(
            width: 40, height: 24, bits: 10, hasAlpha: true, storedSize: PixelSize(width: 48, height: 32),
            icc: [1, 2, 3], exif: nil, xmp: Array("<x/>".utf8))
        #expect(HEIFDescription(decoding: description.encoded) == description)
        description.icc = []
        #expect(HEIFDescription(decoding: description.encoded) == description)
        let bytes = description.encoded
        for length in 0..<bytes.count { #expect(HEIFDescription(decoding: Array(bytes.prefix(length))) == nil) }
    }
}
