import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// An EXIF block larger than a JPEG APP1 segment, rebuilt to fit: bytes no tag points to and the
/// MakerNote go first, then the largest values; every other tag is kept at a valid new offset.
@Suite("EXIF rebuilt to fit a JPEG segment")
struct EXIFFittingTests {
    static let limit = JPEGEncoder.maxEXIFBytes

    /// The value bytes of entry `tag` in the directory at `base`, in line or out of line.
    static func value(_ tag: UInt16, in tiff: TIFFBytes, at base: Int?) -> [UInt8]? {
        guard let base, let entry = tiff.entry(tagged: tag, inIFDAt: base),
            let size = TIFFBytes.size(ofType: entry.type)
        else { return nil }
        let length = Int(entry.count) * size
        if length <= 4 { return Array(tiff.bytes[(entry.position + 8)..<(entry.position + 8 + length)]) }
        guard let range = tiff.outOfLineRange(of: entry), range.count == length else { return nil }
        return Array(tiff.bytes[range])
    }

    /// Checks that everything but the MakerNote (and, unless `userCommentKept`, the UserComment)
    /// is in `block` where its directories say, with the values `PhoneEXIF` wrote.
    static func expectKept(_ block: EXIFBlock, _ source: PhoneEXIF, userCommentKept: Bool) throws {
        let tiff = try #require(TIFFBytes(block.bytes))
        let layout = try #require(EXIFLayout(tiff))
        #expect(tiff.bigEndian == source.bigEndian)
        #expect(value(0x010F, in: tiff, at: layout.ifd0) == Array((PhoneEXIF.make + "\0").utf8))
        #expect(value(0x0110, in: tiff, at: layout.ifd0) == Array((PhoneEXIF.model + "\0").utf8))
        #expect(value(0x9003, in: tiff, at: layout.exif) == Array((PhoneEXIF.dateTimeOriginal + "\0").utf8))
        #expect(value(0x829A, in: tiff, at: layout.exif)?.count == 8)
        #expect(value(0x0001, in: tiff, at: layout.interop) == Array("R98\0".utf8))
        let latitude = try #require(value(0x0002, in: tiff, at: layout.gps))
        let source32 = try #require(TIFFBytes(source.bytes))
        let sourceLayout = try #require(EXIFLayout(source32))
        #expect(latitude == value(0x0002, in: source32, at: sourceLayout.gps))
        #expect(block.orientation == 1 && block.hasGPS && !block.hasThumbnailDirectory)
        #expect(tiff.entry(tagged: 0x927C, inIFDAt: try #require(layout.exif)) == nil)
        let comment = value(0x9286, in: tiff, at: layout.exif)
        #expect((comment != nil) == userCommentKept)
        if userCommentKept { #expect(comment == value(0x9286, in: source32, at: sourceLayout.exif)) }
        // The block ends with the last value: nothing else was carried.
        var end = 8
        for base in [layout.ifd0, layout.exif, layout.interop, layout.gps].compactMap({ $0 }) {
            tiff.forEachRange(ofIFDAt: base, includingImageData: false) { end = max(end, $0.upperBound) }
        }
        #expect(block.bytes.count - end <= 1)
    }

    @Test("A block that fits is written as it is")
    func fitting() {
        let small = PhoneEXIF(bigEndian: false, makerNote: 2000, userComment: 100)
        let fitted = EXIFBlock(tiff: small.bytes).fitted(within: Self.limit)
        #expect(fitted == EXIFBlock.Fitting(block: EXIFBlock(tiff: small.bytes), leftOut: []))
        #expect(fitted.note(original: small.bytes.count, limit: Self.limit, container: "a segment") == nil)
    }

    @Test("Bytes no tag points to and the MakerNote go first; the rest keeps valid offsets", arguments: [false, true])
    func makerNoteFirst(bigEndian: Bool) throws {
        let phone = PhoneEXIF(bigEndian: bigEndian, makerNote: 120_000, userComment: 3000, trailing: 50_001)
        let fitted = EXIFBlock(tiff: phone.bytes).fitted(within: Self.limit)
        let block = try #require(fitted.block)
        #expect(block.bytes.count <= Self.limit)
        #expect(
            fitted.leftOut == ["50,001 bytes no tag points to", "the MakerNote (120,000 bytes)"], "\(fitted.leftOut)")
        try Self.expectKept(block, phone, userCommentKept: true)
        #expect(
            fitted.note(original: phone.bytes.count, limit: Self.limit, container: "a JPEG APP1 segment")
                == "the EXIF block (\(EXIFBlock.Fitting.grouped(phone.bytes.count)) bytes) is larger than a JPEG APP1 segment holds (65,527): rebuilt in \(EXIFBlock.Fitting.grouped(block.bytes.count)) bytes without 50,001 bytes no tag points to, the MakerNote (120,000 bytes)"
        )
    }

    @Test("When the MakerNote is not enough, the largest values go next", arguments: [false, true])
    func largestNext(bigEndian: Bool) throws {
        let phone = PhoneEXIF(bigEndian: bigEndian, makerNote: 10_000, userComment: 70_000)
        let fitted = EXIFBlock(tiff: phone.bytes).fitted(within: Self.limit)
        let block = try #require(fitted.block)
        #expect(fitted.leftOut == ["the MakerNote (10,000 bytes)", "UserComment (0x9286) (70,000 bytes)"])
        try Self.expectKept(block, phone, userCommentKept: false)
    }

    @Test("Blocks that cannot be rebuilt small enough are left out whole, and said so")
    func leftOutWhole() {
        let garbage = [UInt8](repeating: 0x41, count: Self.limit + 1)
        #expect(EXIFBlock(tiff: garbage).fitted(within: Self.limit).block == nil)
        // IFD0 of 6,000 SHORT entries: its directory alone is 72,006 bytes.
        var crowded: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0x70, 0x17]
        for tag in 0..<6000 { crowded += [UInt8(tag & 0xFF), UInt8(tag >> 8), 3, 0, 1, 0, 0, 0, 1, 0, 0, 0] }
        crowded += [0, 0, 0, 0]
        let fitted = EXIFBlock(tiff: crowded).fitted(within: Self.limit)
        #expect(fitted.block == nil && fitted.leftOut == ["all of it"])
        #expect(
            fitted.note(original: crowded.count, limit: Self.limit, container: "a JPEG APP1 segment")
                == "the EXIF block (72,014 bytes) is larger than a JPEG APP1 segment holds (65,527): it is left out")
    }

    @Test("Values shared by thousands of tags are copied once, and the note names five of them")
    func overlappingValues() throws {
        // IFD0: 5,000 UNDEFINED entries whose 70,000-byte values all start at the same offset.
        let entries = 5000
        let valueAt = 8 + 2 + 12 * entries + 4
        var block: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, UInt8(entries & 0xFF), UInt8(entries >> 8)]
        for tag in 0..<entries {
            let offset = UInt32(valueAt)
            block += [UInt8(tag & 0xFF), UInt8(tag >> 8), 7, 0, 0x70, 0x11, 1, 0]
            block += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: offset >> $0) }
        }
        block += [0, 0, 0, 0] + [UInt8](repeating: 0x5A, count: 70_000)
        let fitted = EXIFBlock(tiff: block).fitted(within: Self.limit)
        let kept = try #require(fitted.block)
        #expect(kept.bytes.count == 8 + 2 + 4 && fitted.leftOut.count == entries)
        let note = try #require(fitted.note(original: block.count, limit: Self.limit, container: "a segment"))
        #expect(note.hasSuffix(", 4995 other tags"), "\(note)")
    }

    @Test("A JPEG written from a source with a 192 KB EXIF block carries the rebuilt one in one segment")
    func jpegSegment() async throws {
        let phone = PhoneEXIF(bigEndian: false, makerNote: 140_000, userComment: 100, trailing: 52_000)
        let image = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 90, 255] }
        let source = TaggedSource(image: StillImageSource(image), exif: phone.bytes, xmp: Array("<x/>".utf8))
        let output = ImageOutput(path: "out.jpg", codec: JPEGCodec())
        let options = ImageWriteOptions(metadata: .keepWithGPS)
        let notes = output.notes(for: source, options: options)
        #expect(
            notes.count == 1 && notes[0].contains("without 52,000 bytes no tag points to, the MakerNote"), "\(notes)")
        let jpeg = try await JPEGCodec().encode(source, options: options)
        let written = try #require(ImageSource(data: jpeg, name: "out.jpg").info.exif)
        try Self.expectKept(EXIFBlock(tiff: written), phone, userCommentKept: true)
        #expect(output.notes(for: source, options: ImageWriteOptions()).isEmpty)
        // An XMP packet larger than a segment is left out, and said so.
        let xmp = [UInt8](repeating: 0x20, count: 70_000)
        #expect(
            JPEGEncoder.metadataNotes(exif: nil, xmp: xmp) == [
                "the XMP packet (70,000 bytes) is larger than a JPEG APP1 segment holds (65,504): it is left out"
            ])
        #expect(JPEGEncoder.metadataNotes(exif: nil, xmp: Array(xmp.prefix(65_504))).isEmpty)
    }
}
