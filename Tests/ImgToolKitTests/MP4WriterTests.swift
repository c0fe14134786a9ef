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

    /// A 64x48 colour chart: eleven 16x16 patches (the primaries and secondaries at full
    /// strength, white, black, grey and two mixed colours), and in the last one 2-pixel columns of
    /// red and blue starting at even x, so that each 2x2 block of 4:2:0 holds one colour.
    static func colourChart() -> PixelBuffer {
        let patches: [[UInt8]] = [
            [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255],
            [255, 255, 255], [0, 0, 0], [128, 128, 128], [200, 120, 80], [60, 90, 160],
        ]
        return TestImages.make8(width: 64, height: 48) { x, y in
            let patch = (y / 16) * 4 + x / 16
            if patch < patches.count { return patches[patch] + [255] }
            return (x / 2) % 2 == 0 ? [255, 0, 0, 255] : [0, 0, 255, 255]
        }
    }

    /// The largest difference of a colour sample of `decoded` (64x48 RGBA) from the chart's.
    static func chartError(_ decoded: [UInt8]) -> Int {
        let expected = colourChart().rgba8 ?? []
        guard decoded.count == expected.count else { return .max }
        return expected.indices.filter { $0 % 4 != 3 }.map { abs(Int(expected[$0]) - Int(decoded[$0])) }.max() ?? 0
    }

    /// The writer's colour conversion against imgtool's own reader: the matrix (BT.709), the range
    /// (limited) and where each chroma sample sits. Each patch and each 2x2 block is one colour, so
    /// near-lossless H.264 gives every pixel back within a level (measured 1). Measured with the
    /// writer broken on purpose: BT.601 coefficients 39 levels off, full-range levels 13, the
    /// chroma one sample to the right 255 (a filter across 2x2 blocks, as a left-sited [1 2 1],
    /// would mix the stripes' red and blue by half).
    @Test("A colour chart comes back from imgtool's reader within 6 levels: BT.709, limited range, chroma in place")
    func colourChartRoundTrip() async throws {
        let folder = try makeTemporaryFolder("mp4")
        let source = Frames([Self.colourChart(), Self.colourChart()], delaysMs: [100, 100])
        let (path, _) = try await Self.write(source, to: folder, options: ImageWriteOptions(quality: 90))
        let (_, frames) = try VideoCodecTests.frames(path)
        #expect(frames.count == 2)
        for frame in frames {
            let error = Self.chartError(frame.image.rgba8 ?? [])
            #expect(error <= 6, "largest difference \(error)")
        }
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
