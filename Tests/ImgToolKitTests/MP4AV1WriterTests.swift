import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// MP4 output as AV1 (libaom, loaded at run time), the coding written when libavcodec has no libx264 encoder:
/// the boxes as the AV1-in-ISOBMFF binding says, read back by imgtool's own MP4 reader (libavcodec,
/// which CI installs, decodes AV1 with dav1d).
@Suite("MP4 writer (AV1)", .enabled(if: MP4Codec().isAvailable), .serialized, .timeLimit(.minutes(5)))
struct MP4AV1WriterTests {
    typealias Frames = WebMWriterTests.Frames

    static func write(_ source: any FrameSource, to folder: String, options: ImageWriteOptions = .init())
        throws -> (String, [UInt8])
    {
        var sink = ByteSink()
        try MP4Writer(options: options, codec: .av1).encode(source, into: &sink, progress: nil)
        let bytes = sink.bytes
        let path = folder + "/out.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// The box at `path` under the file's top level (`stsd` and a visual sample entry have
    /// fields before their children).
    static func box(_ file: ISOBMFF, _ path: [String]) -> ISOBMFF.Box? {
        var boxes = file.boxes()
        var found: ISOBMFF.Box?
        for type in path {
            guard let box = boxes.first(where: { $0.type == type }) else { return nil }
            found = box
            let skip =
                switch type {
                case "stsd": 8
                case "av01", "avc1": 78
                default: 0
                }
            boxes = file.children(of: box, skipping: skip)
        }
        return found
    }

    /// The 32-bit integers of a full box's table: its entry count, then the entries.
    static func table(_ file: ISOBMFF, _ box: ISOBMFF.Box, offset: Int = 0) -> [Int] {
        let start = box.body.lowerBound + 4 + offset
        let count = Int(file.integer(at: start, bytes: 4) ?? 0)
        return (0..<count).map { Int(file.integer(at: start + 4 + $0 * 4, bytes: 4) ?? 0) }
    }

    @Test("A GIF to AV1 MP4: av01 with av1C, moov before mdat, no temporal delimiters, key frames in stss, delays kept")
    func gifToAV1() async throws {
        let folder = try makeTemporaryFolder("mp4-av1")
        let delays = [100, 50, 200, 100, 70, 130, 100, 250]
        let images = (0..<8).map { WebMWriterTests.screen(step: $0) }
        let gif = try await GIFCodec().encode(Frames(images, delaysMs: delays))
        let source = try ImageSource(data: gif, name: "screen.gif")
        let (path, bytes) = try Self.write(source, to: folder)
        let file = ISOBMFF(bytes)
        #expect(file.boxes().map(\.type) == ["ftyp", "moov", "mdat"])
        #expect(Array(bytes[16..<32]) == Array("isomiso2av01mp41".utf8))
        let stbl = ["moov", "trak", "mdia", "minf", "stbl"]
        let configuration = try #require(Self.box(file, stbl + ["stsd", "av01", "av1C"]))
        let record = Array(bytes[configuration.body])
        // Version 1, profile 0 (main), 8 bits, not monochrome, 4:2:0, chroma position unknown.
        #expect(record.count > 4 && record[0] == 0x81 && record[1] >> 5 == 0 && record[2] & 0x7F == 0x0C)
        let colr = try #require(Self.box(file, stbl + ["stsd", "av01", "colr"]))
        #expect(Array(bytes[colr.body]) == Array("nclx".utf8) + [0, 1, 0, 1, 0, 1, 0])
        let header = Array(record[4...])
        #expect(MP4Muxer.obus(header)?.map(\.type) == [1])

        // Every sample: well-formed OBUs, no temporal delimiter; the first is a key frame that
        // repeats the sequence header.
        let sizes = Self.table(file, try #require(Self.box(file, stbl + ["stsz"])), offset: 4)
        var offset = Self.table(file, try #require(Self.box(file, stbl + ["stco"])))[0]
        var samples: [[UInt8]] = []
        for size in sizes {
            samples.append(Array(bytes[offset..<offset + size]))
            offset += size
        }
        #expect(samples.count == 8)
        for sample in samples {
            let types = try #require(MP4Muxer.obus(sample)).map(\.type)
            #expect(!types.contains(2) && types.contains { $0 == 6 || $0 == 3 }, "\(types)")
        }
        let first = try #require(MP4Muxer.obus(samples[0])?.first { $0.type == 1 })
        #expect(Array(samples[0][first.range]) == header)
        let keys = Self.table(file, try #require(Self.box(file, stbl + ["stss"])))
        // One key frame: libaom places the next after 240 frames at most.
        #expect(keys == [1], "\(keys)")

        var expected: [[UInt8]] = []
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() { expected.append(frame.image.rgba8 ?? []) }
        let (info, frames) = try VideoCodecTests.frames(path)
        #expect(info.format == .mp4 && info.frameCount == 8 && info.width == 64 && info.height == 48)
        #expect(info.frames.map(\.delay) == delays.map { .milliseconds($0) })
        // Measured 37.5 dB at the default quality (60, cq-level 25; H.264 at its default: 33.3).
        let measured = WebMWriterTests.psnr(expected, frames.map { $0.image.rgba8 ?? [] })
        #expect(measured >= 34, "\(measured)")
    }

    /// The writer's colour against imgtool's reader, as ``MP4WriterTests/colourChartRoundTrip()``
    /// does for H.264: the same conversion (CVPX's), so the same tolerance (measured 1).
    @Test("A colour chart comes back from imgtool's reader within 6 levels: BT.709, limited range, chroma in place")
    func colourChartRoundTrip() throws {
        let folder = try makeTemporaryFolder("mp4-av1")
        let source = Frames([MP4WriterTests.colourChart(), MP4WriterTests.colourChart()], delaysMs: [100, 100])
        let (path, _) = try Self.write(source, to: folder, options: ImageWriteOptions(quality: 90))
        let (_, frames) = try VideoCodecTests.frames(path)
        #expect(frames.count == 2)
        for frame in frames {
            let error = MP4WriterTests.chartError(frame.image.rgba8 ?? [])
            #expect(error <= 6, "largest difference \(error)")
        }
    }

    @Test("Higher quality, larger file; an odd size is padded to even; the level picks libaom's speed and mode")
    func qualityOddAndLevel() throws {
        let folder = try makeTemporaryFolder("mp4-av1")
        let images = (0..<4).map { WebMWriterTests.screen(step: $0) }
        let source = Frames(images, delaysMs: [100, 100, 100, 100], playTimes: true)
        var sizes: [Int] = []
        for quality in [10, 40, 70, 95] {
            var sink = ByteSink()
            try MP4Writer(options: ImageWriteOptions(quality: quality), codec: .av1).encode(
                source, into: &sink, progress: nil)
            sizes.append(sink.bytes.count)
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 4, "\(sizes)")
        #expect(MP4Writer.av1CQLevel(forQuality: 60) == 25 && MP4Writer.av1CQLevel(forQuality: 100) == 0)
        #expect(MP4Writer.av1Speed(forLevel: 4) == (6, false) && MP4Writer.av1Speed(forLevel: 0) == (10, true))
        let odd = Frames([WebMWriterTests.screen(width: 33, height: 25, step: 1)], delaysMs: [0])
        let (path, _) = try Self.write(odd, to: folder, options: ImageWriteOptions(compressionLevel: 0))
        let (info, frames) = try VideoCodecTests.frames(path)
        #expect(info.width == 34 && info.height == 26 && frames.count == 1)
    }
}
