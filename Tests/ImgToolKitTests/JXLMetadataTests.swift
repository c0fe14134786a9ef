import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// JPEG XL metadata: the `Exif` and `xml ` boxes (Brotli-compressed `brob` boxes too) are read
/// into the image's information, and a JPEG moved into JPEG XL and back losslessly keeps only the
/// metadata the options keep, in the boxes and in the JPEG the file rebuilds alike.
@Suite("JPEG XL metadata", .timeLimit(.minutes(5)))
struct JXLMetadataTests {
    /// `gps-exif.jpg`: EXIF with Make "imgtool", Orientation 6 and a GPS position; 48x32 stored.
    static func gpsJPEG() throws -> [UInt8] {
        try ColorManagementTests.fixture("gps-exif.jpg")
    }

    static func transcode(_ jpeg: [UInt8], _ metadata: ImageWriteOptions.MetadataChoice) async throws -> [UInt8] {
        let source = try ImageSource(data: jpeg, name: "photo.jpg")
        #expect(source.info.format == .jpeg)
        return try await JXLCodecTests.write(source, options: ImageWriteOptions(metadata: metadata))
    }

    /// The JPEG a JPEG XL rebuilds, as libjxl gives it back.
    static func rebuilt(_ jxl: [UInt8]) throws -> [UInt8] {
        let jpeg = try JXLSource(data: jxl, limits: .default).jpegBitstream()
        return try #require(jpeg)
    }

    /// The container's top-level box types, a `brob` box named by the type it holds
    /// (`brob:Exif`).
    static func boxTypes(_ jxl: [UInt8]) -> [String] {
        ISOBMFF(jxl).boxes().map { box in
            guard box.type == "brob", box.body.count >= 4 else { return box.type }
            return "brob:" + String(decoding: jxl[box.body.prefix(4)], as: UTF8.self)
        }
    }

    /// The EXIF block of a JPEG's first APP1 `Exif` segment, or `nil`.
    static func exif(inJPEG jpeg: [UInt8]) throws -> EXIFBlock? {
        let layout = try #require(JPEGSegmentLayout(jpeg))
        let prefix = Array("Exif".utf8) + [0, 0]
        return layout.segments.lazy.filter { $0.marker == 0xE1 }.map { Array(jpeg[$0.payload]) }
            .first { $0.starts(with: prefix) }.flatMap { EXIFBlock(app1OrTIFF: $0) }
    }

    @Test("By default a JPEG recompressed into JPEG XL keeps no EXIF and no GPS, in the boxes or in what it rebuilds")
    func defaultDropsMetadata() async throws {
        let jpeg = try Self.gpsJPEG()
        let jxl = try await Self.transcode(jpeg, .none)
        let info = try ImageSource(data: jxl, name: "photo.jxl").info
        // The pixels are stored unturned, so the orientation alone survives: Make and GPS are gone.
        #expect(info.compression == .jpegRecompression && info.width == 32 && info.height == 48)
        #expect(!info.hasGPS)
        let boxed = try #require(info.exif.map(EXIFBlock.init(tiff:)))
        #expect(boxed == EXIFBlock.minimal(bigEndian: boxed.bytes.starts(with: [0x4D]), orientation: 6))
        let back = try Self.rebuilt(jxl)
        #expect(try Self.exif(inJPEG: back) == boxed)
        let namesCamera = back.contains(subsequence: Array("imgtool".utf8))  // the Make tag's value
        #expect(!namesCamera)
        // Decoded, the rebuilt JPEG shows what the JPEG XL shows.
        let shown = try ImageSource(data: back, name: "back.jpg").info
        #expect(shown.width == 32 && shown.height == 48)

        // A JPEG with no orientation to keep leaves no Exif box at all.
        let upright = try Self.withOrientation(1, jpeg)
        let plain = try await Self.transcode(upright, .none)
        #expect(!Self.boxTypes(plain).contains { $0.hasSuffix("Exif") })
        #expect(try Self.exif(inJPEG: Self.rebuilt(plain)) == nil)
        #expect(try ImageSource(data: plain, name: "plain.jxl").info.exif == nil)
    }

    @Test("--keep-metadata keeps the EXIF without GPS or thumbnail; --keep-gps rebuilds the JPEG byte for byte")
    func keepChoices() async throws {
        let jpeg = try Self.gpsJPEG()
        let kept = try await Self.transcode(jpeg, .keep)
        let keptInfo = try ImageSource(data: kept, name: "kept.jxl").info
        #expect(keptInfo.hasEXIF && !keptInfo.hasGPS)
        let keptBack = try Self.rebuilt(kept)
        let keptEXIF = try #require(try Self.exif(inJPEG: keptBack))
        #expect(!keptEXIF.hasGPS && keptEXIF.orientation == 6)
        let namesCamera = keptBack.contains(subsequence: Array("imgtool".utf8))
        #expect(namesCamera)

        let all = try await Self.transcode(jpeg, .keepWithGPS)
        #expect(try Self.rebuilt(all) == jpeg)
        let allInfo = try ImageSource(data: all, name: "all.jxl").info
        #expect(allInfo.hasEXIF && allInfo.hasGPS)
        // libjxl stores the JPEG's EXIF Brotli-compressed: the `brob` box is read through.
        #expect(Self.boxTypes(all).contains("brob:Exif"))
    }

    @Test("The JPEG a JPEG XL rebuilds is written with the metadata the options keep")
    func rebuildingKeepsChoice() async throws {
        let jpeg = try Self.gpsJPEG()
        let jxl = try await Self.transcode(jpeg, .keepWithGPS)
        func written(_ metadata: ImageWriteOptions.MetadataChoice) async throws -> [UInt8] {
            var sink = ByteSink()
            try await JPEGCodec().write(
                try ImageSource(data: jxl, name: "all.jxl"), into: &sink,
                options: ImageWriteOptions(metadata: metadata),
                progress: nil)
            return sink.bytes
        }
        #expect(try await written(.keepWithGPS) == jpeg)
        let stripped = try await written(.none)
        #expect(try Self.exif(inJPEG: stripped)?.hasGPS == false)
        let namesCamera = stripped.contains(subsequence: Array("imgtool".utf8))
        #expect(!namesCamera)
        let kept = try await written(.keep)
        #expect(try Self.exif(inJPEG: kept)?.hasGPS == false)
    }

    @Test("Pixels written as JPEG XL carry EXIF and XMP in plain boxes, read back as written")
    func plainBoxes() async throws {
        let jpeg = try Self.gpsJPEG()
        let exif = try #require(try Self.exif(inJPEG: jpeg))
        let xmp = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.4N"/></rdf:RDF>\
            </x:xmpmeta>
            """.utf8)
        var info = AVIFCodecTests.Frames([TestImages.gradient(width: 8, height: 8)], delays: [.zero]).info
        info.exif = exif.bytes
        info.hasEXIF = true
        info.xmp = xmp
        let source = Described(
            info: info, base: AVIFCodecTests.Frames([TestImages.gradient(width: 8, height: 8)], delays: [.zero]))
        let jxl = try await JXLCodecTests.write(source, options: ImageWriteOptions(metadata: .keepWithGPS))
        #expect(Self.boxTypes(jxl).contains("Exif") && Self.boxTypes(jxl).contains("xml "))
        let read = try ImageSource(data: jxl, name: "tagged.jxl").info
        let written = exif.edited(orientation: nil, removingGPS: false, removingThumbnail: true)
        #expect(read.exif == written.bytes && read.xmp == xmp && read.hasGPS)
        // Without --keep-gps, neither block keeps the position.
        let private_ = try await JXLCodecTests.write(source, options: ImageWriteOptions(metadata: .keep))
        let privateInfo = try ImageSource(data: private_, name: "private.jxl").info
        #expect(privateInfo.hasEXIF && privateInfo.xmp != nil && !privateInfo.hasGPS)
    }

    @Test("The JPEG editor: what each choice keeps of comments, IPTC, MPF and what follows the image")
    func editorSegments() throws {
        let jpeg = try Self.gpsJPEG()
        let layout = try #require(JPEGSegmentLayout(jpeg))
        #expect(layout.end == jpeg.count)
        func segment(_ marker: UInt8, _ text: String) -> [UInt8] {
            let data = Array(text.utf8)
            return [0xFF, marker, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
        }
        // After APP0: a comment, a Photoshop IPTC segment and an MPF index; a second image after EOI.
        let extra =
            segment(0xFE, "taken at home") + segment(0xED, "Photoshop 3.0\u{0}8BIM city")
            + segment(0xE2, "MPF\u{0}II*\u{0}")
        let afterAPP0 = layout.segments[0].whole.upperBound
        let tail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        let busy = Array(jpeg[..<afterAPP0]) + extra + Array(jpeg[afterAPP0...]) + tail
        func markers(_ bytes: [UInt8]?) -> [UInt8] {
            bytes.flatMap(JPEGSegmentLayout.init)?.segments.map(\.marker) ?? []
        }
        #expect(markers(busy) == [0xE0, 0xFE, 0xED, 0xE2, 0xE1, 0xDB, 0xDB, 0xC0, 0xC4, 0xC4, 0xC4, 0xC4])
        #expect(JPEGMetadataEditor(choice: .keepWithGPS).edited(busy) == busy)
        // Kept: everything but the MPF index (its images go) and the GPS; none: what decoding needs.
        let kept = JPEGMetadataEditor(choice: .keep).edited(busy)
        #expect(markers(kept) == [0xE0, 0xFE, 0xED, 0xE1, 0xDB, 0xDB, 0xC0, 0xC4, 0xC4, 0xC4, 0xC4])
        #expect(kept.map { Array($0.suffix(4)) } != tail && kept.map { Array($0.suffix(2)) } == [0xFF, 0xD9])
        let none = JPEGMetadataEditor(choice: .none).edited(busy)
        #expect(markers(none) == [0xE0, 0xE1, 0xDB, 0xDB, 0xC0, 0xC4, 0xC4, 0xC4, 0xC4])
        // Markers that cannot be followed are not edited: nil, so the caller decodes instead.
        #expect(JPEGMetadataEditor(choice: .none).edited(Array(jpeg.prefix(40))) == nil)
        #expect(JPEGMetadataEditor(choice: .none).edited([0xFF, 0xD8, 0x00, 0x11]) == nil)
    }

    /// `jpeg` with its EXIF orientation set to `value` (the same bytes otherwise).
    static func withOrientation(_ value: Int, _ jpeg: [UInt8]) throws -> [UInt8] {
        let layout = try #require(JPEGSegmentLayout(jpeg))
        let segment = try #require(layout.segments.first { $0.marker == 0xE1 })
        let block = try #require(EXIFBlock(app1OrTIFF: Array(jpeg[segment.payload])))
        let edited = block.edited(orientation: value, removingGPS: false, removingThumbnail: false)
        #expect(edited.bytes.count == block.bytes.count)
        var copy = jpeg
        copy.replaceSubrange(
            segment.payload.upperBound - block.bytes.count..<segment.payload.upperBound, with: edited.bytes)
        return copy
    }

    /// A source shown with other information (metadata) than its base's.
    struct Described: FrameSource {
        let info: ImageInfo
        let base: any FrameSource

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            try base.makeFrameReader(depth: depth)
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the array.
    fileprivate func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
