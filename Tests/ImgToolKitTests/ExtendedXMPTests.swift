import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// A JPEG's extended XMP (APP1 `http://ns.adobe.com/xmp/extension/` segments, named by the main
/// packet's `xmpNote:HasExtendedXMP`): read for `info`, kept as it is when it holds no location,
/// rewritten without its location under a new GUID when it does, dropped with a warning when it
/// cannot be reassembled or parsed.
@Suite("JPEG extended XMP", .timeLimit(.minutes(5)))
struct ExtendedXMPTests {
    static let latitude = "48,51.3456N"

    /// A main packet naming `guid` (nothing when `nil`); no location in it.
    static func mainPacket(naming guid: String?) -> [UInt8] {
        let note = guid.map { #" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmpNote:HasExtendedXMP="\#($0)""# } ?? ""
        return Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about=""\(note) xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:format>image/jpeg</dc:format>
             </rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    /// An extension packet, with a GPS latitude (under a prefix of its own, bound to the EXIF
    /// schema's URI) when `gps`.
    static func extensionPacket(gps: Bool) -> [UInt8] {
        let position =
            gps ? #"<pos:GPSLatitude>\#(latitude)</pos:GPSLatitude><pos:GPSLongitude>2,17.6E</pos:GPSLongitude>"# : ""
        return Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:pos="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
              \(position)<dc:description>\(String(repeating: "long text ", count: 40))</dc:description>
             </rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    /// The segments holding `text` under `guid` in two chunks, split at `split`; `length` is the
    /// full length each declares.
    static func extensionSegments(_ text: [UInt8], guid: String, split: Int, length: Int? = nil) -> [[UInt8]] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let head = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0] + Array(guid.utf8)
        return [(0, text[..<split]), (split, text[split...])].map { offset, chunk in
            MetadataDroppingTests.segment(0xE1, head + bigEndian(length ?? text.count) + bigEndian(offset) + chunk)
        }
    }

    /// A JPEG with the main packet, then `extensions` (whole segments).
    static func jpeg(main: [UInt8], extensions: [[UInt8]]) async throws -> [UInt8] {
        let plain = try await JPEGCodec().encode(MetadataDroppingTests.tagged(), options: ImageWriteOptions())
        let xmp = MetadataDroppingTests.segment(0xE1, JPEGMetadataEditor.xmpNamespace + main)
        return MetadataDroppingTests.inserting(xmp + extensions.flatMap { $0 }, into: plain)
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let pattern = Array(text.utf8)
        guard bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    @Test("MD5 gives RFC 1321's digests, as uppercase hex")
    func md5() {
        #expect(MD5.uppercaseHex([]) == "D41D8CD98F00B204E9800998ECF8427E")
        #expect(MD5.uppercaseHex(Array("abc".utf8)) == "900150983CD24FB0D6963F7D28E17F72")
        #expect(
            MD5.uppercaseHex(Array(String(repeating: "1234567890", count: 8).utf8))
                == "57EDF4A22BE3C955AC49DA2E2107B67A")
    }

    @Test("A two-chunk extension with a GPS latitude: info sees it; kept metadata has no trace of it anywhere")
    func locationInExtension() async throws {
        let text = Self.extensionPacket(gps: true)
        let guid = MD5.uppercaseHex(text)
        let jpeg = try await Self.jpeg(
            main: Self.mainPacket(naming: guid), extensions: Self.extensionSegments(text, guid: guid, split: 200))
        let info = try ImageSource(data: jpeg, name: "photo.jpg").info
        #expect(info.xmpExtension == text && info.xmpExtensionProblem == nil)
        #expect(info.hasGPS && !info.gpsIsUnknown && info.metadataWarnings(keeping: .keep).isEmpty)

        // Edited in place (JPEG XL recompression, and the JPEG it rebuilds): new segments, new GUID.
        let edited = try #require(JPEGMetadataEditor(choice: .keep).edited(jpeg))
        #expect(!Self.contains(edited, Self.latitude) && !Self.contains(edited, "GPS"))
        let stripped = XMPPacket(bytes: text).edited(orientation: nil, removingGPS: true).bytes
        let newGUID = MD5.uppercaseHex(stripped)
        #expect(newGUID != guid && Self.contains(edited, "xmpNote:HasExtendedXMP=\"\(newGUID)\""))
        let read = try ImageSource(data: edited, name: "edited.jpg").info
        #expect(read.xmpExtension == stripped && read.xmpExtensionProblem == nil && !read.hasGPS)
        #expect(JPEGMetadataEditor(choice: .keepWithGPS).edited(jpeg) == jpeg)

        let source = try ImageSource(data: jpeg, name: "photo.jpg")
        let jxl = try await JXLCodec().encode(source, options: ImageWriteOptions(metadata: .keep))
        let rebuilt = try JXLMetadataTests.rebuilt(jxl)
        #expect(rebuilt == edited)
        #expect(!(try ImageSource(data: jxl, name: "out.jxl").info.hasGPS))
        // The writers that decode the pixels carry the main packet only.
        for codec in MetadataDroppingTests.writers {
            for choice in [ImageWriteOptions.MetadataChoice.keep, .keepWithGPS] {
                var options = ImageWriteOptions(metadata: choice)
                if codec.format == .jxl { options.quality = 90 }
                let bytes = try await codec.encode(source, options: options)
                #expect(!Self.contains(bytes, Self.latitude), "\(codec.format.rawValue) \(choice)")
                let written = try ImageSource(data: bytes, name: "out").info
                #expect(!written.hasGPS && written.xmp != nil, "\(codec.format.rawValue) \(choice)")
            }
        }
    }

    @Test("An extension without location is kept byte for byte")
    func extensionWithoutLocation() async throws {
        let text = Self.extensionPacket(gps: false)
        let guid = MD5.uppercaseHex(text)
        let segments = Self.extensionSegments(text, guid: guid, split: 123)
        let jpeg = try await Self.jpeg(main: Self.mainPacket(naming: guid), extensions: segments)
        let info = try ImageSource(data: jpeg, name: "photo.jpg").info
        #expect(info.xmpExtension == text && !info.hasGPS && !info.gpsIsUnknown)
        #expect(JPEGMetadataEditor(choice: .keep).edited(jpeg) == jpeg)
        let jxl = try await JXLCodec().encode(
            try ImageSource(data: jpeg, name: "photo.jpg"), options: ImageWriteOptions(metadata: .keep))
        #expect(try JXLMetadataTests.rebuilt(jxl) == jpeg)
        // Without metadata it goes, with the rest.
        let none = try #require(JPEGMetadataEditor(choice: .none).edited(jpeg))
        #expect(!Self.contains(none, "http://ns.adobe.com/xmp/extension/"))
    }

    @Test(
        "An extension with a part missing, a wrong length, another GUID or no main packet naming it is dropped with a warning",
        arguments: [
            (0, "cannot be reassembled (bytes from 0 are missing)"),
            (1, "cannot be reassembled (it ends at byte 788 of 800)"),
            (2, "has 2 segments with another GUID than the main XMP packet names"),
            (3, "is not named by a main XMP packet (xmpNote:HasExtendedXMP)"),
            (4, "cannot be parsed as XML (an end tag is not closed (byte 766))"),
        ])
    func brokenExtension(index: Int, problem: String) async throws {
        var text = Self.extensionPacket(gps: true)
        let guid = MD5.uppercaseHex(text)
        var main = Self.mainPacket(naming: guid)
        var segments = Self.extensionSegments(text, guid: guid, split: 300)
        switch index {
        case 0: segments.removeFirst()
        case 1: segments = Self.extensionSegments(text, guid: guid, split: 300, length: 800)
        case 2: segments = Self.extensionSegments(text, guid: String(guid.reversed()), split: 300)
        case 3: main = Self.mainPacket(naming: nil)
        default:
            text.removeLast(14)
            segments = Self.extensionSegments(text, guid: guid, split: 300)
        }
        let jpeg = try await Self.jpeg(main: main, extensions: segments)
        let info = try ImageSource(data: jpeg, name: "photo.jpg").info
        #expect(info.xmpExtension == nil && info.xmpExtensionProblem == problem)
        #expect(info.metadataWarnings(keeping: .keep) == ["the extended XMP \(problem): it is dropped"])
        #expect(info.metadataWarnings(keeping: .keepWithGPS).isEmpty)
        // No position is seen, but one may be there.
        #expect(!info.hasGPS && info.gpsIsUnknown)
        let edited = try #require(JPEGMetadataEditor(choice: .keep).edited(jpeg))
        #expect(!Self.contains(edited, "http://ns.adobe.com/xmp/extension/") && !Self.contains(edited, Self.latitude))
        #expect(Self.contains(edited, "<dc:format>image/jpeg</dc:format>"))
    }

    @Test("A main packet that cannot be parsed is dropped with the extension it names, with a warning for each")
    func unparsableMainPacket() async throws {
        let text = Self.extensionPacket(gps: false)
        let guid = MD5.uppercaseHex(text)
        let main = Self.mainPacket(naming: guid).dropLast(12)  // without </x:xmpmeta>
        let jpeg = try await Self.jpeg(
            main: Array(main), extensions: Self.extensionSegments(text, guid: guid, split: 9))
        let info = try ImageSource(data: jpeg, name: "photo.jpg").info
        #expect(info.xmpExtension == text && info.xmpParseProblem != nil && info.gpsIsUnknown)
        #expect(
            info.metadataWarnings(keeping: .keep).last == "the extended XMP the XMP packet names is dropped with it")
        let edited = try #require(JPEGMetadataEditor(choice: .keep).edited(jpeg))
        #expect(!Self.contains(edited, "http://ns.adobe.com/xmp/extension/") && !Self.contains(edited, "xap/1.0"))
    }
}
