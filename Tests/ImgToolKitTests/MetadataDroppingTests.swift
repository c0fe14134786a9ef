import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Metadata that cannot be read or carried whole: XMP that is not well-formed XML, EXIF with no
/// readable TIFF structure, an ICC profile larger than a JPEG holds, and a JPEG's ICC segments out
/// of order on their way into JPEG XL. Nothing is dropped or changed without a word, and no
/// convert fails for it.
@Suite("Metadata that cannot be read or carried whole", .timeLimit(.minutes(5)))
struct MetadataDroppingTests {
    /// A packet as XMP writers make them: a byte-order mark, the packet wrapper, namespaces bound
    /// where used, references, a comment, a CDATA section, padding; a GPS latitude.
    static let wellFormed = """
        \u{FEFF}<?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:dc='http://purl.org/dc/elements/1.1/' exif:GPSLatitude="51,30.43N" exif:ExposureTime="1/100">
           <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Tom &amp; Jerry &#x263A; &#9786;</rdf:li></rdf:Alt></dc:title>
           <!-- <not a tag> --><![CDATA[ a < b ]]>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        \(String(repeating: " ", count: 100))
        <?xpacket end="w"?>
        """

    /// ``wellFormed`` without its closing `</x:xmpmeta>`.
    static let unclosedWrapper = Array(wellFormed.replacingOccurrences(of: "</x:xmpmeta>", with: "").utf8)

    /// An opaque 8x8 still whose information carries `exif`, `xmp` and `icc`, as a decoder would give it.
    static func tagged(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, icc: [UInt8]? = nil) -> Tagged {
        let image = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 90, 255] }
        let base = StillImageSource(image)
        var info = base.info
        info.exif = exif
        info.hasEXIF = exif != nil
        info.xmp = xmp
        if let icc {
            info.color.profile = ColorProfile(data: icc)
            info.color.hasICCProfile = true
        }
        return Tagged(info: info, base: base)
    }

    /// An opaque source shown with other information (metadata) than its base's.
    struct Tagged: FrameSource {
        let info: ImageInfo
        let base: StillImageSource
        var isOpaque: Bool { true }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            try base.makeFrameReader(depth: depth)
        }
    }

    /// Every writer that carries metadata (GIF carries none).
    static let writers: [any ImageCodec] = [JPEGCodec(), PNGCodec(), WebPCodec(), AVIFCodec(), JXLCodec()]

    static func written(
        _ source: any FrameSource, by codec: any ImageCodec, _ options: ImageWriteOptions
    ) async throws -> ImageInfo {
        let bytes = try await codec.encode(source, options: options)
        return try ImageSource(data: bytes, name: "out." + codec.format.rawValue).info
    }

    @Test("Well-formed XMP has no parse problem: wrapper, byte-order mark, references, CDATA, NUL padding, Latin-1")
    func wellFormedXMP() {
        #expect(XMPPacket(bytes: Array(Self.wellFormed.utf8)).parseProblem == nil)
        #expect(XMPPacket(bytes: Array(Self.wellFormed.utf8) + [0, 0]).parseProblem == nil)  // NUL padding
        // Latin-1 text (as pillow_heif's L_xmp_latin1.heic has it): the markup is what matters.
        #expect(XMPPacket(bytes: Array("<r>Aim".utf8) + [0xE9] + Array("</r>".utf8)).parseProblem == nil)
        #expect(XMPPacket(bytes: Array(#"<r xmlns:e="u" e:a='1'><e:b/>text</r>"#.utf8)).parseProblem == nil)
    }

    @Test("XMP that is not well-formed XML says why: unclosed value, missing wrapper end, garbage, unbound prefix")
    func malformedXMP() {
        let cases: [([UInt8], String)] = [
            (Self.unclosedWrapper, "the element <x:xmpmeta> is not closed"),
            (
                Array(#"<r xmlns:e="http://ns.adobe.com/exif/1.0/" e:GPSLatitude="51,30.43N/>"#.utf8),
                "the value of e:GPSLatitude is not closed (byte 57)"
            ),
            (Array(#"<r xmlns:e="u" e:a="1>2"/><e:b/>"#.utf8), "a second root element (byte 26)"),
            (Array("not xml at all".utf8), "text outside the root element (byte 0)"),
            (Array("<<>>\"'".utf8), "a < that starts no tag (byte 0)"),
            ([], "it holds no element"),
            (Array("<a><b></a></b>".utf8), "</a> closes <b> (byte 6)"),
            (
                Array(#"<r exif:GPSLatitude="1"/>"#.utf8),
                "the prefix of exif:GPSLatitude is not bound to a namespace (byte 0)"
            ),
            (Array(#"<r a="1" a="2"/>"#.utf8), "the attribute a appears twice (byte 9)"),
            (Array("<r>Tom & Jerry</r>".utf8), "an & that starts no reference (byte 7)"),
            (Array("<\u{0}r\u{0}/\u{0}>\u{0}".utf8), "a < that starts no tag (byte 0)"),  // UTF-16
            (Array("<r><!-- open</r>".utf8), "a comment is not closed (byte 3)"),
            (Array("<!DOCTYPE r><r/>".utf8), "a document type declaration, which XMP does not allow (byte 0)"),
        ]
        for (bytes, problem) in cases {
            #expect(XMPPacket(bytes: bytes).parseProblem == problem, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("Every writer leaves out XMP that is not well-formed under .keep, and keeps it under .keepWithGPS")
    func writersDropUnparsableXMP() async throws {
        let broken = Self.tagged(xmp: Self.unclosedWrapper)
        #expect(broken.info.xmpParseProblem == "the element <x:xmpmeta> is not closed")
        #expect(broken.info.hasGPS && !broken.info.gpsIsUnknown)  // the latitude is seen in the text
        #expect(
            broken.info.metadataWarnings(keeping: .keep) == [
                "the XMP packet cannot be parsed as XML (the element <x:xmpmeta> is not closed): it is dropped, as a position in it could not be removed"
            ])
        #expect(broken.info.metadataWarnings(keeping: .keepWithGPS).isEmpty)
        #expect(broken.info.metadataWarnings(keeping: .none).isEmpty)
        let good = Self.tagged(xmp: Array(Self.wellFormed.utf8))
        #expect(good.info.metadataWarnings(keeping: .keep).isEmpty)
        for codec in Self.writers {
            let name = codec.format.rawValue
            #expect(try await Self.written(broken, by: codec, ImageWriteOptions(metadata: .keep)).xmp == nil, "\(name)")
            let kept = try await Self.written(broken, by: codec, ImageWriteOptions(metadata: .keepWithGPS))
            #expect(kept.xmp == Self.unclosedWrapper, "\(name)")
            let edited = try await Self.written(good, by: codec, ImageWriteOptions(metadata: .keep))
            #expect(edited.xmp != nil && edited.xmpParseProblem == nil && !edited.hasGPS, "\(name)")
        }
        // Unparsable and with no position to be seen: info cannot say there is none.
        let hidden = Self.tagged(xmp: Array(#"<r xmlns:e="u"><e:place>51,30.43N</e:place>"#.utf8))
        #expect(!hidden.info.hasGPS && hidden.info.gpsIsUnknown)
    }

    @Test(
        "A JPEG recompressed into JPEG XL drops unparsable XMP and unreadable EXIF under .keep; .keepWithGPS keeps the file as it is"
    )
    func recompressedJPEGDropsUnreadableBlocks() async throws {
        let plain = try await JPEGCodec().encode(Self.tagged(), options: ImageWriteOptions())
        let xmp = Self.segment(0xE1, JPEGMetadataEditor.xmpNamespace + Self.unclosedWrapper)
        let exif = Self.segment(0xE1, Array("Exif".utf8) + [0, 0, 0x49, 0x49, 42, 0])
        let jpeg = Self.inserting(exif + xmp, into: plain)
        let source = try ImageSource(data: jpeg, name: "photo.jpg")
        #expect(source.info.xmpParseProblem != nil && source.info.exifReadProblem != nil)
        let keep = ImageWriteOptions(metadata: .keep)
        let jxl = try await JXLCodec().encode(source, options: keep)
        let info = try ImageSource(data: jxl, name: "photo.jxl").info
        #expect(info.compression == .jpegRecompression && info.exif == nil)
        #expect(try JXLMetadataTests.rebuilt(jxl) == plain)
        let output = try ImageOutput(path: "photo.jxl")
        #expect(output.metadataWarnings(for: source, options: keep).count == 2)
        // Every marker kept: the rebuilt JPEG is the original, and nothing is said to be dropped.
        let all = ImageWriteOptions(metadata: .keepWithGPS)
        #expect(try JXLMetadataTests.rebuilt(try await JXLCodec().encode(source, options: all)) == jpeg)
        #expect(output.metadataWarnings(for: source, options: all).isEmpty)
        #expect(try ImageOutput(path: "photo.png").metadataWarnings(for: source, options: all).count == 1)
    }

    @Test(
        "An EXIF block with no readable TIFF structure is left out by every writer, with a warning; an empty IFD0 is kept"
    )
    func writersDropUnreadableEXIF() async throws {
        let signature: [UInt8] = [0x49, 0x49, 42, 0]
        let header = signature + [8, 0, 0, 0]
        let cases: [([UInt8], String)] = [
            (signature, "it is 4 bytes, shorter than a TIFF header"),
            (header, "its first directory (IFD0) would be at byte 8, past its end (8 bytes)"),
            (signature + [0, 0, 0, 0], "its first directory (IFD0) would be at byte 0, inside the TIFF header"),
            (Array("JFIF".utf8), "it does not start with a TIFF header"),
        ]
        for (block, problem) in cases {
            let source = Self.tagged(exif: block)
            for choice in [ImageWriteOptions.MetadataChoice.keep, .keepWithGPS] {
                #expect(
                    source.info.metadataWarnings(keeping: choice) == [
                        "the EXIF block cannot be read (\(problem)): it is dropped"
                    ])
                for codec in Self.writers {
                    // libavif refused the 4-byte block: "Invalid Exif payload".
                    let info = try await Self.written(source, by: codec, ImageWriteOptions(metadata: choice))
                    #expect(info.exif == nil, "\(codec.format.rawValue) \(problem)")
                }
            }
        }
        let empty = header + [0, 0, 0, 0, 0, 0]
        let source = Self.tagged(exif: empty)
        #expect(source.info.metadataWarnings(keeping: .keep).isEmpty)
        for codec in Self.writers {
            let info = try await Self.written(source, by: codec, ImageWriteOptions(metadata: .keep))
            #expect(info.exif == empty, "\(codec.format.rawValue)")
        }
    }

    /// `display-p3.icc` with a private tag of `extra` bytes: a usable profile of any size.
    static func largeProfile(extra: Int) throws -> [UInt8] {
        LargeICCProfile.padding(try ColorManagementTests.fixture("display-p3.icc"), by: extra)
    }

    /// The APP2 `ICC_PROFILE` segments of `jpeg`.
    static func iccSegments(_ jpeg: [UInt8]) throws -> [JPEGSegmentLayout.Segment] {
        try #require(JPEGSegmentLayout(jpeg)).segments.filter {
            $0.marker == 0xE2 && jpeg[$0.payload].starts(with: Array("ICC_PROFILE".utf8) + [0])
        }
    }

    @Test("A 150 KB ICC profile goes into APP2 segments of 65,519 bytes numbered 1-3 of 3, read back byte for byte")
    func largeProfileSplits() async throws {
        let icc = try Self.largeProfile(extra: 150_000)
        #expect(ColorProfile(data: icc).isUsable && icc.count == 150_000 + 2_668)
        let jpeg = try await JPEGCodec().encode(Self.tagged(icc: icc), options: ImageWriteOptions())
        let segments = try Self.iccSegments(jpeg)
        #expect(
            segments.map { [jpeg[$0.payload.lowerBound + 12], jpeg[$0.payload.lowerBound + 13]] } == [
                [1, 3], [2, 3], [3, 3],
            ])
        #expect(segments.map { $0.payload.count - 14 } == [65_519, 65_519, icc.count - 2 * 65_519])
        // Joined in the order of their numbers, as libjpeg's jpeg_read_icc_profile joins them.
        #expect(segments.flatMap { jpeg[$0.payload.dropFirst(14)] } == icc)
        #expect(try ImageSource(data: jpeg, name: "wide.jpg").info.color.profile?.data == icc)
    }

    @Test("An ICC profile past 255 APP2 segments: kept, the JPEG's pixels are sRGB with a note; asked for, an error")
    func profileTooLargeForJPEG() async throws {
        let icc = try Self.largeProfile(extra: JPEGEncoder.maxProfileBytes)
        #expect(JPEGEncoder.maxProfileBytes == 16_707_345 && icc.count > JPEGEncoder.maxProfileBytes)
        let source = Self.tagged(icc: icc)
        let output = ImageOutput(path: "out.jpg", codec: JPEGCodec())
        #expect(
            output.notes(for: source, options: ImageWriteOptions()) == [
                "the ICC profile (16,710,016 bytes) is larger than a JPEG's 255 APP2 segments hold (16,707,345): the pixels are converted to sRGB"
            ])
        let jpeg = try await JPEGCodec().encode(source, options: ImageWriteOptions())
        #expect(try Self.iccSegments(jpeg).isEmpty)
        #expect(try await jpeg == JPEGCodec().encode(source, options: ImageWriteOptions(profile: .sRGB)))
        // PNG holds it: no note, the profile kept.
        #expect(
            ImageOutput(path: "out.png", codec: PNGCodec()).notes(for: source, options: ImageWriteOptions()).isEmpty)
        let asked = ImageWriteOptions(profile: .convert(ColorProfile(data: icc)))
        do {
            _ = try await JPEGCodec().encode(Self.tagged(), options: asked)
            Issue.record("a profile larger than a JPEG holds was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(
                error.message
                    == "the output profile is 16,710,016 bytes; this format holds at most 16,707,345: use a smaller profile, or --profile srgb"
            )
        }
    }

    /// `jpeg` with its first two ICC segments swapped, or, when `dropping`, its second left out.
    static func disordered(_ jpeg: [UInt8], dropping: Bool = false) throws -> [UInt8] {
        let segments = try Self.iccSegments(jpeg)
        let first = segments[0].whole
        let second = segments[1].whole
        #expect(first.upperBound == second.lowerBound)
        let middle = dropping ? Array(jpeg[first]) : Array(jpeg[second]) + jpeg[first]
        return Array(jpeg[..<first.lowerBound]) + middle + jpeg[second.upperBound...]
    }

    @Test("A JPEG whose ICC segments are out of order is recompressed into JPEG XL with them in order, and a note")
    func swappedICCSegmentsRecompress() async throws {
        let icc = try Self.largeProfile(extra: 70_000)
        let ordered = try await JPEGCodec().encode(Self.tagged(icc: icc), options: ImageWriteOptions())
        let swapped = try Self.disordered(ordered)
        #expect(JPEGICCSegments.order(of: ordered) == .inOrder)
        #expect(JPEGICCSegments.order(of: swapped) == .reordered(ordered))
        let source = try ImageSource(data: swapped, name: "swapped.jpg")
        #expect(source.info.color.profile?.data == icc)
        #expect(
            ImageOutput(path: "out.jxl", codec: JXLCodec()).notes(for: source, options: ImageWriteOptions()) == [
                "the JPEG's ICC profile segments are out of order, which libjxl refuses: they are put in order, so the JPEG rebuilt from this file has them in order"
            ])
        let jxl = try await JXLCodec().encode(source, options: ImageWriteOptions())
        let info = try ImageSource(data: jxl, name: "out.jxl").info
        #expect(info.compression == .jpegRecompression && info.color.profile?.data == icc)
        #expect(try JXLMetadataTests.rebuilt(jxl) == ordered)
    }

    @Test("A JPEG whose ICC segments do not make one profile is written to JPEG XL from its pixels, with a note")
    func brokenICCSegmentsEncodePixels() async throws {
        let ordered = try await JPEGCodec().encode(
            Self.tagged(icc: try Self.largeProfile(extra: 70_000)), options: ImageWriteOptions())
        let missing = try Self.disordered(ordered, dropping: true)
        #expect(JPEGICCSegments.order(of: missing) == .broken)
        let source = try ImageSource(data: missing, name: "missing.jpg")
        #expect(
            ImageOutput(path: "out.jxl", codec: JXLCodec()).notes(for: source, options: ImageWriteOptions()) == [
                "the JPEG's ICC profile segments do not make one profile (a number missing or repeated), which libjxl refuses: the image is encoded from its pixels, not recompressed"
            ])
        let jxl = try await JXLCodec().encode(source, options: ImageWriteOptions())
        let info = try ImageSource(data: jxl, name: "out.jxl").info
        #expect(info.compression != .jpegRecompression && info.width == 8)
    }

    /// A marker segment.
    static func segment(_ marker: UInt8, _ data: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
    }

    /// `jpeg` with `segments` after its SOI and JFIF APP0.
    static func inserting(_ segments: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        return Array(jpeg[..<at]) + segments + jpeg[at...]
    }
}
