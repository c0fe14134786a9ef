import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// AVIF sequences, frame by frame. Lossy: each decoded frame must stay close to its source, from
/// the first to the last (issue 41: libaom's row-based multithreading mis-encoded frames, and the
/// frames predicted from them drifted until the end); the encoder runs with two threads whatever
/// the machine has, as on the two-core machines the issue was seen on. With a colour profile:
/// every frame is written, the profile once.
@Suite("AVIF sequences", .timeLimit(.minutes(5)))
struct AVIFSequenceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/avif-lossy").standardized.path

    /// `source` written as a lossy AVIF at the default quality and level, with `threads`
    /// threads, and read back frame by frame.
    static func roundTrip(_ source: any FrameSource, threads: Int = 2) throws -> [PixelBuffer] {
        var writer = AVIFWriter(options: ImageWriteOptions(lossless: false), source: source.info)
        writer.threads = threads
        var sink = ByteSink()
        try writer.encode(source, into: &sink, progress: nil)
        return try AVIFCodecTests.decode(sink.bytes).1
    }

    /// Every frame of `source`, at 8 bits.
    static func frames(of source: any FrameSource) throws -> [PixelBuffer] {
        let reader = try source.makeFrameReader(depth: .eight)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return frames
    }

    /// The PSNR of `actual`'s red, green and blue against `expected`'s, in dB (99 when equal),
    /// and the largest alpha difference.
    static func compare(_ expected: PixelBuffer, _ actual: PixelBuffer) -> (psnr: Double, alphaError: Int) {
        guard let a = expected.rgba8, let b = actual.rgba8, a.count == b.count else { return (0, 255) }
        var squared = 0
        var alphaError = 0
        for index in a.indices {
            let difference = Int(a[index]) - Int(b[index])
            if index % 4 == 3 {
                alphaError = max(alphaError, abs(difference))
            } else {
                squared += difference * difference
            }
        }
        guard squared > 0 else { return (99, alphaError) }
        let mean = Double(squared) / Double(a.count / 4 * 3)
        return (10 * log10(255 * 255 / mean), alphaError)
    }

    /// The frames whose PSNR is under `threshold` dB or whose alpha differs, as "index: dB".
    static func badFrames(_ expected: [PixelBuffer], _ actual: [PixelBuffer], threshold: Double) -> [String] {
        zip(expected, actual).enumerated().compactMap { index, pair in
            let (psnr, alphaError) = compare(pair.0, pair.1)
            guard psnr < threshold || alphaError > 0 else { return nil }
            return "\(index): \(String(format: "%.1f", psnr)) dB, alpha off by \(alphaError)"
        }
    }

    @Test("issue 41's clip (screen content from a GIF) keeps every frame above 38 dB")
    func issueClip() throws {
        // Given the 20 frames of the issue's clip on which libaom's row-based multithreading
        // mis-encoded from the fifth frame on (about 21 dB, the counter's digits in blocks)
        let source = try ImageSource(contentsOf: Self.fixtures + "/testsrc-counter.gif")
        let expected = try Self.frames(of: source)
        #expect(expected.count == 20)

        // When it is written lossy with two threads and read back
        let decoded = try Self.roundTrip(source)

        // Then every frame is as close as the first (about 42 dB)
        #expect(decoded.count == expected.count)
        let bad = Self.badFrames(expected, decoded, threshold: 38)
        #expect(bad.isEmpty, "frames under 38 dB: \(bad.joined(separator: "; "))")
    }

    /// 64 frames of 64x48: a gradient, a square that moves two pixels a frame and a binary
    /// counter of the frame number; with alpha, a ramp from 64 to 255 and a hole.
    static func movingPattern(alpha: Bool) -> [PixelBuffer] {
        (0..<64).map { index in
            TestImages.make8(width: 64, height: 48) { x, y in
                var pixel: [UInt8] = [UInt8(x * 4), UInt8(y * 5), UInt8(255 - x * 2 - y), 255]
                let left = (index * 2) % 52
                if (left..<left + 12).contains(x), (18..<30).contains(y) { pixel = [250, 240, 20, 255] }
                // The counter: bit b of the frame number as a white or black 8x6 block.
                if y < 6 { pixel = index >> (x / 8) & 1 == 1 ? [255, 255, 255, 255] : [0, 0, 0, 255] }
                if alpha {
                    pixel[3] = UInt8(64 + (x + y) * 191 / 110)
                    if (40..<48).contains(x), (36..<44).contains(y) { pixel[3] = 0 }
                }
                return pixel
            }
        }
    }

    @Test("a 64-frame moving pattern keeps every frame above 35 dB, alpha exact", arguments: [false, true])
    func movingPattern(alpha: Bool) throws {
        let images = Self.movingPattern(alpha: alpha)
        let source = AVIFCodecTests.Frames(images, delays: Array(repeating: .milliseconds(40), count: 64))
        let decoded = try Self.roundTrip(source)
        #expect(decoded.count == 64)
        let bad = Self.badFrames(images, decoded, threshold: 35)
        #expect(bad.isEmpty, "frames under 35 dB or with alpha changed: \(bad.joined(separator: "; "))")
    }

    @Test("a sequence with an ICC profile keeps every frame and the profile")
    func profile() async throws {
        // Given three frames converted to Adobe RGB, the profile to embed
        let path = URL(fileURLWithPath: Self.fixtures + "/../color/adobe-rgb.icc").standardized.path
        let profile = ColorProfile(data: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let images = Array(Self.movingPattern(alpha: false).prefix(3))
        let source = AVIFCodecTests.Frames(images, delays: Array(repeating: .milliseconds(40), count: 3))

        // When it is written (libavif refused the second frame when only the first said
        // "unspecified" code points)
        let bytes = try await AVIFCodecTests.write(source, options: ImageWriteOptions(profile: .convert(profile)))

        // Then every frame is there, with the profile
        let (info, frames) = try AVIFCodecTests.decode(bytes)
        #expect(frames.count == 3)
        #expect(info.color.profile?.data == profile.data)
    }
}
