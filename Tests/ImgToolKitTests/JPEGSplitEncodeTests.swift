import TestSupport
import Testing

@testable import ImgToolKit

/// A large baseline JPEG is encoded as two parts (each by its own libjpeg compressor, with a
/// restart marker every MCU row) joined with Huffman tables built from both; these check that
/// the file is libjpeg's own one-piece optimized encode with that restart interval, byte for byte,
/// that it decodes exactly as today's one-piece file without restart markers, and that the bytes
/// do not depend on the number of processors.
@Suite("JPEG split encode", .timeLimit(.minutes(5)))
struct JPEGSplitEncodeTests {
    struct Layout: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        var quality: Int
        /// 8-bit with translucent pixels (flattened onto the background), or 16-bit.
        var content = Content.opaque
        /// The chroma subsampling; `nil` chooses by quality.
        var chroma: JPEGEncoder.ChromaSubsampling?

        enum Content: Sendable { case opaque, translucent, sixteenBit }

        var testDescription: String { "\(width)x\(height) q\(quality) \(content) \(chroma?.rawValue ?? "")" }

        var image: PixelBuffer {
            let photo = JPEGSplitDecodeTests.photo(width: width, height: height)
            switch content {
            case .opaque:
                return photo
            case .translucent:
                guard var samples = photo.rgba8 else { return photo }
                for index in stride(from: 3, to: samples.count, by: 4) { samples[index] = UInt8(index / 4 % 256) }
                return PixelBuffer(width: width, height: height, rgba8: samples)
            case .sixteenBit:
                return photo.converted(to: .sixteen)
            }
        }
    }

    /// 4:4:4 and 4:2:0 above the threshold (the second with partial MCUs at both edges), 4:2:2; small
    /// images split by force: a second part one pixel high (9 rows of 4:4:4, 17 of 4:2:0), one
    /// pixel wide, two MCU rows, the extreme qualities; translucent and 16-bit pixels.
    static let layouts: [Layout] = [
        Layout(width: 1024, height: 1024, quality: 85, chroma: .full),
        Layout(width: 1100, height: 1003, quality: 70),
        Layout(width: 33, height: 9, quality: 85, chroma: .full),
        Layout(width: 33, height: 17, quality: 70),
        Layout(width: 1, height: 17, quality: 90),
        Layout(width: 17, height: 31, quality: 79),
        Layout(width: 250, height: 40, quality: 100),
        Layout(width: 64, height: 48, quality: 1),
        Layout(width: 301, height: 77, quality: 85, content: .translucent),
        Layout(width: 301, height: 77, quality: 60, content: .sixteenBit),
        Layout(width: 1030, height: 530, quality: 80, chroma: .halfAcross),
        Layout(width: 33, height: 9, quality: 95, chroma: .halfAcross),
    ]

    static func encoder(_ layout: Layout, _ policy: JPEGEncoder.SplitPolicy, processors: Int = availableProcessors)
        -> JPEGEncoder
    {
        var encoder = JPEGEncoder(quality: layout.quality, chroma: layout.chroma)
        encoder.splitPolicy = policy
        encoder.processors = processors
        return encoder
    }

    static func decode(_ bytes: [UInt8]) throws -> PixelBuffer {
        try JPEGCodecTests.decode(bytes).image
    }

    /// Whether `bytes` has the marker `0xFF marker` before its scan data (a DRI, 0xDD).
    static func hasMarker(_ marker: UInt8, in bytes: [UInt8]) -> Bool {
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            if bytes[at + 1] == marker { return true }
            if bytes[at + 1] == 0xDA { return false }
            at += 2 + (Int(bytes[at + 2]) << 8) + Int(bytes[at + 3])
        }
        return false
    }

    static func mcuRows(_ layout: Layout) -> Int {
        let size = JPEGEncoder(quality: layout.quality, chroma: layout.chroma).chromaSubsampling == .half ? 16 : 8
        return (layout.height + size - 1) / size
    }

    /// The split file is what libjpeg writes in one piece with optimize_coding and a restart
    /// marker every MCU row: the same counts, so the same tables, markers and data.
    @Test(arguments: layouts)
    func equalsOnePieceWithARestartMarkerEveryMCURow(layout: Layout) throws {
        let image = layout.image
        let encoder = Self.encoder(layout, .always)
        #expect(encoder.splitRow(width: layout.width, height: layout.height) != nil)
        let split = try encoder.encode(image)
        var reference = Self.encoder(layout, .never)
        let mcuWidth = encoder.subsamplesChroma ? 16 : 8
        reference.restartInterval = (layout.width + mcuWidth - 1) / mcuWidth
        let onePiece = try reference.encode(image)
        #expect(split == onePiece, "\(split.count) bytes split, \(onePiece.count) in one piece")
        #expect(Self.hasMarker(0xDD, in: split))
    }

    /// The pixels decode exactly as today's one-piece file (no restart markers) does.
    @Test(arguments: layouts)
    func decodesAsOnePiece(layout: Layout) throws {
        let image = layout.image
        let split = try Self.encoder(layout, .always).encode(image)
        let onePiece = try Self.encoder(layout, .never).encode(image)
        #expect(!Self.hasMarker(0xDD, in: onePiece))
        let difference = firstDifference(try Self.decode(onePiece), try Self.decode(split))
        #expect(difference == nil, "\(difference ?? "")")
    }

    /// The same bytes on one processor (parts one after the other) as on two, and whether the
    /// symbols counted are kept for re-coding or decoded again (as they are anyway past 16 a
    /// block, as quality 100 gives this picture's noise).
    @Test(arguments: [layouts[0], layouts[1], layouts[6], layouts[8]])
    func sameBytesOnOneProcessorOrTwo(layout: Layout) throws {
        let image = layout.image
        let one = try Self.encoder(layout, .always, processors: 1).encode(image)
        let two = try Self.encoder(layout, .always, processors: 2).encode(image)
        #expect(one == two)
        var decodedTwice = Self.encoder(layout, .always, processors: 2)
        decodedTwice.keepsSymbols = false
        #expect(try decodedTwice.encode(image) == two)
    }

    /// The restart markers are all the file gains over one piece: two bytes each, the padding
    /// of an MCU row's last byte, and DC values coded afresh at each row's start; measured, about
    /// 2.5 bytes an MCU row.
    @Test(arguments: [layouts[0], layouts[1]])
    func costsAboutTheRestartMarkers(layout: Layout) throws {
        let image = layout.image
        let split = try Self.encoder(layout, .automatic).encode(image)
        let onePiece = try Self.encoder(layout, .never).encode(image)
        let rows = Self.mcuRows(layout)
        let markers = 2 * (rows - 1) + 6  // RSTn between the rows, and the DRI segment
        #expect(split.count > onePiece.count)
        #expect(split.count <= onePiece.count + markers + 2 * rows, "\(split.count - onePiece.count) bytes more")
    }

    /// From 512x512 pixels up, and only for baseline Huffman files.
    @Test func splitsFromTheThresholdUpAndOnlyBaseline() throws {
        let above = Layout(width: 512, height: 512, quality: 85)
        let below = Layout(width: 512, height: 511, quality: 85)
        #expect(above.width * above.height == JPEGEncoder.splitThreshold)
        for (layout, splits) in [(above, true), (below, false)] {
            let image = layout.image
            let encoder = Self.encoder(layout, .automatic)
            #expect((encoder.splitRow(width: layout.width, height: layout.height) != nil) == splits)
            let bytes = try encoder.encode(image)
            #expect(Self.hasMarker(0xDD, in: bytes) == splits)
            let onePiece = try Self.encoder(layout, .never).encode(image)
            #expect(try Self.decode(bytes) == Self.decode(onePiece))
        }
        #expect(JPEGEncoder(quality: 85).splitRow(width: 512, height: 512) == 256)
        #expect(JPEGEncoder(quality: 70).splitRow(width: 1100, height: 1003) == 512)
        var always = JPEGEncoder(quality: 85, chroma: .full)
        always.splitPolicy = .always
        #expect(always.splitRow(width: 512, height: 8) == nil)  // one MCU row
        #expect(always.splitRow(width: 512, height: 9) == 8)
        #expect(always.splitRow(width: 512, height: 17) == 16)  // three MCU rows: two, then one
        always.chroma = .half
        #expect(always.splitRow(width: 512, height: 16) == nil)  // one MCU row of 4:2:0
        #expect(always.splitRow(width: 512, height: 17) == 16)
        always.chroma = .halfAcross
        #expect(always.splitRow(width: 512, height: 9) == 8)  // 4:2:2's MCU rows are 8 high
        #expect(JPEGEncoder(quality: 85, progressive: true).splitRow(width: 2048, height: 2048) == nil)
        var arithmetic = JPEGEncoder(quality: 85)
        arithmetic.arithmeticCoding = true
        #expect(arithmetic.splitRow(width: 2048, height: 2048) == nil)
        var restarts = JPEGEncoder(quality: 85)
        restarts.restartInterval = 4
        #expect(restarts.splitRow(width: 2048, height: 2048) == nil)
        let progressive = try JPEGEncoder(quality: 85, progressive: true).encode(above.image)
        #expect(!Self.hasMarker(0xDD, in: progressive) && Self.hasMarker(0xC2, in: progressive))
    }

    /// A cancelled task stops before the first band, on one processor and on two.
    @Test(arguments: [1, 2])
    func cancellationStopsASplitEncode(processors: Int) async {
        let layout = Layout(width: 1024, height: 1024, quality: 85)
        let encoder = Self.encoder(layout, .always, processors: processors)
        let image = layout.image
        let task = Task { () -> ImgToolError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(ImgToolError) {
                _ = try encoder.encode(image)
                return nil
            } catch {
                return error
            }
        }
        let error = await task.value
        #expect(error?.code == .cancelled)
    }
}
