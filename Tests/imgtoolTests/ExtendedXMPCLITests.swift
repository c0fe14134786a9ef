import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs with a JPEG whose XMP goes on in extended XMP segments (APP1
/// `http://ns.adobe.com/xmp/extension/`) holding a GPS position.
@Suite("imgtool JPEG extended XMP (end to end)", .serialized, .timeLimit(.minutes(5)))
struct ExtendedXMPCLITests {
    static let latitude = "48,51.3456N"
    /// The GUID the main packet names (any 32 hex digits are read; writers use the MD5 of the text).
    static let guid = "0123456789ABCDEF0123456789ABCDEF"

    /// `photo.jpg`'s XMP: a main packet naming ``guid``, and an extension holding a latitude, split
    /// over two segments (the second one's offset changed by `skew`).
    static func photo(skew: Int = 0) async throws -> [UInt8] {
        let main = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" \
            xmpNote:HasExtendedXMP="\(guid)"/></rdf:RDF></x:xmpmeta>
            """
        let text = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" \
            exif:GPSLatitude="\(latitude)" exif:GPSLongitude="2,17.6E"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let head = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0] + Array(guid.utf8) + bigEndian(text.count)
        let segments =
            MetadataDropCLITests.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(main.utf8))
            + MetadataDropCLITests.segment(0xE1, head + bigEndian(0) + text[..<100])
            + MetadataDropCLITests.segment(0xE1, head + bigEndian(100 + skew) + text[100...])
        return try await MetadataDropCLITests.jpeg(with: segments)
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let pattern = Array(text.utf8)
        return (0...(bytes.count - pattern.count)).contains { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    @Test(
        "info sees GPS in the extension; --keep-metadata leaves no trace of it in any output, JPEG XL's rebuilt JPEG too"
    )
    func locationInExtension() async throws {
        let folder = try makeTemporaryFolder("extended-xmp-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MetadataDropCLITests.write(try await Self.photo(), "photo.jpg", in: folder)
        let info = try CLIRunner.run(["info", "--json", "photo.jpg"], in: folder)
        #expect(info.stdout.contains(#""gps":true"#), "\(info.stdout)")
        let text = try CLIRunner.run(["info", "photo.jpg"], in: folder)
        #expect(text.stdout.contains("metadata XMP extended XMP GPS position"), "\(text.stdout)")

        for output in ["out.jxl", "out.png", "out.webp", "out.jpg"] {
            let run = try CLIRunner.run(["convert", "photo.jpg", output, "--keep-metadata"], in: folder)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(output): \(run.stderr)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + output)))
            #expect(!Self.contains(bytes, Self.latitude), "\(output)")
            let written = try CLIRunner.run(["info", "--json", output], in: folder)
            #expect(written.stdout.contains(#""gps":false"#), "\(output): \(written.stdout)")
        }
        // The JPEG XL gives back the JPEG it recompressed (as it is, with --keep-gps): its extension
        // rewritten without the position.
        let back = try CLIRunner.run(["convert", "out.jxl", "back.jpg", "--keep-gps"], in: folder)
        #expect(back.status == 0, "\(back.stderr)")
        let rebuilt = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/back.jpg")))
        #expect(!Self.contains(rebuilt, Self.latitude) && Self.contains(rebuilt, "http://ns.adobe.com/xmp/extension/"))
        #expect(try CLIRunner.run(["info", "--json", "back.jpg"], in: folder).stdout.contains(#""gps":false"#))
    }

    @Test("An extension with a part missing is dropped under --keep-metadata with one warning naming the input")
    func brokenExtension() async throws {
        let folder = try makeTemporaryFolder("extended-xmp-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MetadataDropCLITests.write(try await Self.photo(skew: 4), "photo.jpg", in: folder)
        #expect(try CLIRunner.run(["info", "--json", "photo.jpg"], in: folder).stdout.contains(#""gps":null"#))
        let info = try CLIRunner.run(["info", "photo.jpg"], in: folder)
        #expect(info.stdout.contains("metadata XMP GPS unknown"), "\(info.stdout)")
        #expect(
            info.lines.last == "  extended xmp: cannot be reassembled (bytes from 100 are missing)", "\(info.stdout)")
        let run = try CLIRunner.run(["convert", "photo.jpg", "out.jxl", "--keep-metadata"], in: folder)
        #expect(run.status == 0)
        #expect(
            run.stderr
                == "warning: photo.jpg: the extended XMP cannot be reassembled (bytes from 100 are missing): it is dropped\n"
        )
        let back = try CLIRunner.run(["convert", "out.jxl", "back.jpg", "--keep-gps"], in: folder)
        #expect(back.status == 0, "\(back.stderr)")
        let rebuilt = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/back.jpg")))
        #expect(!Self.contains(rebuilt, Self.latitude) && !Self.contains(rebuilt, "http://ns.adobe.com/xmp/extension/"))
    }
}
