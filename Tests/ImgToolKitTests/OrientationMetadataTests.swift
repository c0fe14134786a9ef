import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// The orientation that written EXIF and XMP carry: 1 once the frames are upright (the decoder
/// applied an orientation, or the format turns its image itself), the tag as it was otherwise,
/// for every input and output format that carries metadata.
@Suite("Orientation in written metadata", .timeLimit(.minutes(5)))
struct OrientationMetadataTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/orientation").standardized.path

    /// The formats written with metadata, when their library is there (JPEG XL and AVIF are).
    static let outputs = ["jpeg", "png", "webp", "avif", "jxl"].filter {
        CodecRegistry.standard.codec(named: $0)?.isAvailable == true
    }

    /// What a written file says: its EXIF orientation, whether its EXIF still names the maker,
    /// its XMP orientation, and its displayed size.
    struct Written: Equatable, CustomStringConvertible {
        var exif: Int?
        var make: Bool
        var xmp: String?
        var size: PixelSize

        var description: String { "EXIF \(exif.map(String.init) ?? "-") make \(make) XMP \(xmp ?? "-") \(size)" }
    }

    static func written(_ source: any FrameSource, as format: String) async throws -> Written {
        let codec = try #require(CodecRegistry.standard.codec(named: format))
        let bytes = try await codec.encode(source, options: ImageWriteOptions(metadata: .keep))
        let info = try ImageSource(data: bytes, name: "out.\(format)").info
        // JPEG XL's boxes are read from the container here: what was written, whatever the reader reads.
        let (written, xmp) = format == "jxl" ? jxlBoxes(bytes) : (info.exif, info.xmp)
        let exif = try #require(written.flatMap { EXIFBlock(app1OrTIFF: $0) }, "\(format) wrote no EXIF")
        let make = exif.bytes.indices.contains { exif.bytes[$0...].starts(with: Array("imgtool\0".utf8)) }
        return Written(
            exif: exif.orientation, make: make, xmp: xmp.flatMap(xmpOrientation),
            size: PixelSize(width: info.width, height: info.height))
    }

    /// The TIFF bytes of a JPEG XL container's `Exif` box and its `xml ` box.
    static func jxlBoxes(_ file: [UInt8]) -> (exif: [UInt8]?, xmp: [UInt8]?) {
        let boxes = ISOBMFF(file).boxes()
        func body(_ type: String) -> [UInt8]? { boxes.first { $0.type == type }.map { Array(file[$0.body]) } }
        return (body("Exif").map(ISOBMFF.tiff(fromExifItem:)), body("xml "))
    }

    /// The value of the packet's `tiff:Orientation` attribute.
    static func xmpOrientation(_ packet: [UInt8]) -> String? {
        let text = String(decoding: packet, as: UTF8.self)
        guard let start = text.range(of: "tiff:Orientation=\"") else { return nil }
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }

    /// Checks `path`, a file whose container turns its 32x16 coded image to 16x32 (`irot` 3) and
    /// whose EXIF and XMP say 6: read upright, written everywhere with orientation 1.
    func containerTurned(_ path: String) async throws {
        let source = try ImageSource(contentsOf: path)
        let info = source.info
        #expect(info.width == 16 && info.height == 32 && info.appliedOrientation == .right)
        #expect(info.exifOrientation == 6 && info.exifOrientationIsInformational)
        #expect(info.xmp.flatMap(Self.xmpOrientation) == "6")
        // Shown turned a quarter clockwise: the coded left column is the top row.
        let image = try source.frame(at: 0, depth: .eight).image
        let corners: [(x: Int, y: Int, rgb: [Int])] = [
            (4, 4, [0, 0, 255]), (12, 4, [255, 0, 0]), (4, 28, [255, 255, 0]), (12, 28, [0, 255, 0]),
        ]
        for corner in corners {
            let pixel = Array(pixelSamples(image, corner.x, corner.y)[0..<3])
            #expect(zip(pixel, corner.rgb).allSatisfy { abs($0 - $1) <= 4 }, "\(corner) is \(pixel)")
        }
        for format in Self.outputs {
            let written = try await Self.written(source, as: format)
            #expect(
                written == Written(exif: 1, make: true, xmp: "1", size: PixelSize(width: 16, height: 32)), "\(format)")
        }
    }

    @Test("A phone HEIC (irot, EXIF and XMP orientation 6) is read upright and written with orientation 1")
    func heic() async throws {
        guard HEIFCodec().isAvailable else { return }  // libheif1 is a run-time library; CI installs it
        try await containerTurned(Self.fixtures + "/rotated.heic")
    }

    @Test("An AVIF turned by irot, its EXIF and XMP saying 6, is written with orientation 1")
    func avif() async throws {
        try await containerTurned(Self.fixtures + "/rotated.avif")
    }

    /// An 8x4 image whose EXIF (Make `imgtool`, Orientation 6) and XMP say orientation 6.
    static func tagged(exifOrientationType type: UInt16 = 3) -> TaggedSource {
        let image = TestImages.make8(width: 8, height: 4) { x, y in [UInt8(x * 30), UInt8(y * 60), 90, 255] }
        return TaggedSource(
            image: StillImageSource(image), exif: EXIFBytes.block(orientation: 6, type: type),
            xmp: Array(
                #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></x:xmpmeta>"#
                    .utf8))
    }

    @Test("Each format the writers make, read back: upright ones write 1, the others keep the tag")
    func everyInputFormat() async throws {
        let wide = PixelSize(width: 8, height: 4)
        let tall = PixelSize(width: 4, height: 8)
        // A source whose orientation nobody applied keeps it wherever it goes. Read back, JPEG
        // applies it, and so does AVIF: libavif turns an EXIF orientation into irot and imir.
        func asStored(_ output: String) -> Written {
            Written(exif: 6, make: true, xmp: "6", size: ["jpeg", "avif"].contains(output) ? tall : wide)
        }
        for format in Self.outputs {
            #expect(try await Self.written(Self.tagged(), as: format) == asStored(format), "\(format)")
        }
        // Each written file read back as an input, then written again in every format: JPEG
        // applies the tag and AVIF its irot, so their frames are upright; JPEG XL shows its image
        // as decoded whatever the tag says; PNG's and WebP's tag is not applied and stays.
        let upright: [String: PixelSize?] = ["jpeg": tall, "avif": tall, "jxl": wide, "png": nil, "webp": nil]
        for input in Self.outputs {
            let codec = try #require(CodecRegistry.standard.codec(named: input))
            let bytes = try await codec.encode(Self.tagged(), options: ImageWriteOptions(metadata: .keep))
            let source = try ImageSource(data: bytes, name: "in.\(input)")
            // JPEG XL's reader does not carry its Exif and xml boxes yet: nothing to check then.
            if input == "jxl" && source.info.exif == nil { continue }
            // A JPEG read as it is becomes a recompressed JPEG XL, its markers compressed in
            // `brob` boxes (not read here); its codestream is turned as the EXIF said.
            for output in Self.outputs where !(input == "jpeg" && output == "jxl") {
                let written = try await Self.written(source, as: output)
                let expected = upright[input].flatMap { $0 }.map { Written(exif: 1, make: true, xmp: "1", size: $0) }
                #expect(written == expected ?? asStored(output), "\(input) to \(output)")
            }
        }
        // A JPEG read with autoOrient off is as stored: the tag still describes it.
        let jpeg = try await JPEGCodec().encode(Self.tagged(), options: ImageWriteOptions(metadata: .keep))
        let stored = try ImageSource(data: jpeg, name: "in.jpg", options: DecodingOptions(autoOrient: false))
        #expect(stored.info.width == 8 && stored.info.appliedOrientation == .up)
        #expect(try await Self.written(stored, as: "png") == asStored("png"))
    }

    @Test("Every Orientation tag of IFD0 becomes 1: SHORT, LONG, SSHORT, SLONG, repeated, out of line")
    func everyOrientationTag() {
        for type: UInt16 in [3, 4, 8, 9] {
            let block = EXIFBlock(tiff: EXIFBytes.block(orientation: 6, type: type))
            #expect(block.orientation == 6)
            let edited = block.edited(orientation: 1, removingGPS: false, removingThumbnail: false)
            #expect(edited.orientation == 1, "type \(type)")
            #expect(edited.bytes.count == block.bytes.count)
        }
        // Two Orientation entries, the second holding three SHORTs out of line.
        let twice = EXIFBytes.block(orientation: 6, type: 3, repeatedOutOfLine: true)
        let edited = EXIFBlock(tiff: twice).edited(orientation: 1, removingGPS: false, removingThumbnail: false)
        let values = EXIFBytes.orientationValues(edited.bytes)
        #expect(values == [1, 1, 1, 1], "\(values)")
        #expect(EXIFBytes.orientationValues(twice) == [6, 6, 6, 6])
    }
}

/// A still image with the EXIF and XMP given, as a decoder would describe it.
struct TaggedSource: FrameSource {
    let image: StillImageSource
    var info: ImageInfo

    init(image: StillImageSource, exif: [UInt8], xmp: [UInt8]) {
        self.image = image
        var info = image.info
        info.exif = exif
        info.hasEXIF = true
        info.exifOrientation = EXIFReader.orientation(inTIFF: exif[...])
        info.xmp = xmp
        self.info = info
    }

    var isOpaque: Bool { true }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try image.makeFrameReader(depth: depth)
    }
}

/// Little-endian EXIF blocks built byte by byte.
enum EXIFBytes {
    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] { u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16)) }

    /// IFD0 with Make `imgtool` and Orientation `orientation` of `type` (3 SHORT, 4 LONG,
    /// 8 SSHORT, 9 SLONG); with `repeatedOutOfLine`, a second Orientation entry of three SHORTs
    /// stored after the directory.
    static func block(orientation: UInt16, type: UInt16, repeatedOutOfLine: Bool = false) -> [UInt8] {
        let count = repeatedOutOfLine ? 3 : 2
        let valuesAt = 8 + 2 + 12 * count + 4
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + u32(8) + u16(UInt16(count))
        bytes += u16(0x010F) + u16(2) + u32(8) + u32(UInt32(valuesAt))
        let value = [3, 8].contains(type) ? u16(orientation) + [0, 0] : u32(UInt32(orientation))
        bytes += u16(0x0112) + u16(type) + u32(1) + value
        if repeatedOutOfLine { bytes += u16(0x0112) + u16(3) + u32(3) + u32(UInt32(valuesAt + 8)) }
        bytes += u32(0) + Array("imgtool\0".utf8)
        if repeatedOutOfLine { bytes += (0..<3).flatMap { _ in u16(orientation) } }
        return bytes
    }

    /// Every value of every Orientation entry of IFD0 in a block made by ``block(orientation:type:repeatedOutOfLine:)``.
    static func orientationValues(_ bytes: [UInt8]) -> [Int] {
        func read16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        var values: [Int] = []
        for index in 0..<read16(8) {
            let entry = 10 + 12 * index
            guard read16(entry) == 0x0112 else { continue }
            let count = read16(entry + 4)
            let at = count > 2 ? read16(entry + 8) : entry + 8
            values += (0..<count).map { read16(at + 2 * $0) }
        }
        return values
    }
}
