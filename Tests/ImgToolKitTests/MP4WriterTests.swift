import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// MP4 output (H.264 by x264 through the libavcodec loaded at run time, imgtool's own muxer, moov
/// first), read back by ffprobe and ffmpeg and by imgtool's own MP4 reader.
@Suite(
    "MP4 writer",
    .enabled(
        if: MP4Writer.isAvailable && VideoClips.ffmpeg != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")),
    .serialized, .timeLimit(.minutes(5)))
struct MP4WriterTests {
    typealias Frames = WebMWriterTests.Frames

    static func write(_ source: any FrameSource, to folder: String, options: ImageWriteOptions = .init())
        async throws -> (String, [UInt8])
    {
        let path = folder + "/out.mp4"
        let bytes = try await MP4Codec().encode(source, options: options)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test("A GIF made here to MP4: H.264 yuv420p BT.709, moov before mdat, 8 frames, timestamps from the delays")
    func gifToMP4() async throws {
        let folder = try makeTemporaryFolder("mp4")
        let delays = [100, 50, 200, 100, 70, 130, 100, 250]
        let images = (0..<8).map { WebMWriterTests.screen(step: $0) }
        let gif = try await GIFCodec().encode(Frames(images, delaysMs: delays))
        let source = try ImageSource(data: gif, name: "screen.gif")
        let (path, bytes) = try await Self.write(source, to: folder)
        #expect(ISOBMFF(bytes).boxes().map(\.type) == ["ftyp", "moov", "mdat"])
        let probed = try WebMWriterTests.probe(path)
        #expect(probed["codec_name"] == "h264" && probed["pix_fmt"] == "yuv420p", "\(probed)")
        #expect(probed["width"] == "64" && probed["height"] == "48" && probed["nb_read_frames"] == "8")
        #expect(probed["color_space"] == "bt709" && probed["color_range"] == "tv")
        #expect(probed["duration"] == "1.000000", "\(probed)")
        #expect(try WebMWriterTests.times(path) == [0, 100, 150, 350, 450, 520, 650, 750])

        var expected: [[UInt8]] = []
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() { expected.append(frame.image.rgba8 ?? []) }
        let decoded = try WebMWriterTests.decode(path, width: 64, height: 48)
        // Measured 33.2 dB (ffmpeg) and 33.3 dB (imgtool) at the default quality (55, crf 23): red on white and 1-pixel text lines
        // lose colour to 4:2:0.
        let measured = WebMWriterTests.psnr(expected, decoded)
        #expect(decoded.count == 8 && measured >= 31, "\(measured)")
        let (info, frames) = try VideoCodecTests.frames(path)
        #expect(info.format == .mp4 && info.frameCount == 8)
        #expect(info.frames.map(\.delay) == delays.map { .milliseconds($0) })
        #expect(WebMWriterTests.psnr(expected, frames.map { $0.image.rgba8 ?? [] }) >= 31)
    }

    @Test("Higher quality, larger file; an odd size is padded to even; transparency is flattened onto white")
    func qualityOddAndAlpha() async throws {
        let folder = try makeTemporaryFolder("mp4")
        let images = (0..<4).map { WebMWriterTests.screen(step: $0) }
        let source = Frames(images, delaysMs: [100, 100, 100, 100], playTimes: true)
        var sizes: [Int] = []
        for quality in [10, 40, 70, 95] {
            sizes.append(try await MP4Codec().encode(source, options: ImageWriteOptions(quality: quality)).count)
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 4, "\(sizes)")
        #expect(MP4Writer.crf(forQuality: 55) == 23 && MP4Writer.crf(forQuality: 100) == 0)
        let odd = Frames([WebMWriterTests.screen(width: 33, height: 25, step: 1, alpha: 0)], delaysMs: [0])
        let (path, _) = try await Self.write(odd, to: folder)
        let probed = try WebMWriterTests.probe(path)
        #expect(probed["width"] == "34" && probed["height"] == "26" && probed["nb_read_frames"] == "1")
        let frame = try WebMWriterTests.decode(path, width: 34, height: 26)[0]
        // The transparent border is white now, the padding too.
        for (x, y) in [(0, 0), (33, 12), (33, 25)] {
            #expect((0..<3).allSatisfy { frame[(y * 34 + x) * 4 + $0] >= 245 }, "\(x),\(y)")
        }
    }
}
