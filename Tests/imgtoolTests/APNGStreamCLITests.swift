import Foundation
import ImgToolKit
import TestSupport
import Testing

/// An APNG streamed through a pipe, as `ffmpeg -f apng -` writes it: acTL's num_frames left at
/// 0xFFFFFFFF because a pipe cannot go back to fill it in (issue 41).
@Suite("imgtool and a streamed APNG (end to end)", .timeLimit(.minutes(5)))
struct APNGStreamCLITests {
    /// Frame i of 4x3 pixels, one colour each.
    static func image(_ index: Int) -> PixelBuffer {
        PixelBuffer(
            width: 4, height: 3, rgba8: Array((0..<12).flatMap { _ in [UInt8(index * 50), 200, 40, 255] as [UInt8] }))
    }

    /// An APNG of `count` 100 ms frames whose acTL declares num_frames `declared` (its CRC redone).
    static func streamedAPNG(frames count: Int, declared: UInt32) throws -> [UInt8] {
        let writer = try APNGWriter(width: 4, height: 3, frameCount: count, plays: 0, hasAlpha: false)
        for index in 0..<count { try writer.append(Self.image(index), delay: .milliseconds(100)) }
        try writer.finish()
        var bytes = writer.data
        let type = Array("acTL".utf8)
        let at = try #require((8..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == type })
        bytes.replaceSubrange(at + 4..<at + 8, with: Self.bigEndian(declared))
        bytes.replaceSubrange(at + 12..<at + 16, with: Self.bigEndian(Self.crc32(Array(bytes[at..<at + 12]))))
        return bytes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// CRC-32 (ISO 3309, as PNG uses), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("convert - out.gif reads every frame of a piped APNG whose num_frames is 0xFFFFFFFF, with a warning")
    func pipedToGIF() throws {
        let folder = try makeTemporaryFolder("apng-stream")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.streamedAPNG(frames: 5, declared: 0xFFFF_FFFF)
        let run = try CLIRunner.run(["convert", "-", "out.gif"], in: folder, stdin: bytes)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.hasPrefix("warning: -: acTL at offset ")
                && run.stderr.contains("declares num_frames 4294967295")
                && run.stderr.contains("reading the 5 frames that are there"), "\(run.stderr)")
        let written = try ImageSource(contentsOf: folder + "/out.gif")
        #expect(written.info.frameCount == 5)
        #expect(written.info.frames.map(\.delayMilliseconds) == [100, 100, 100, 100, 100])
        let reader = try written.makeFrameReader(depth: .eight)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        #expect(frames == (0..<5).map(Self.image))

        let info = try CLIRunner.run(["info", "-"], in: folder, stdin: bytes)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("5 frames"), "\(info.stdout)")
    }
}
