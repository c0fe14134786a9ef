import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs with metadata that cannot be read or carried as it is: XMP that is not
/// well-formed XML, EXIF that is only a TIFF header, ICC segments out of order. Each convert
/// succeeds and says what it left out or changed.
@Suite("imgtool metadata it cannot carry as it is (end to end)", .serialized, .timeLimit(.minutes(5)))
struct MetadataDropCLITests {
    /// A JPEG of an opaque 8x8 image, with `segments` (whole marker segments) after its JFIF APP0.
    static func jpeg(with segments: [UInt8], profile: [UInt8]? = nil) async throws -> [UInt8] {
        let image = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 90, 255] }
        let plain = try await JPEGCodec().encode(Profiled(image: image, profile: profile), options: ImageWriteOptions())
        let at = 4 + (Int(plain[4]) << 8 | Int(plain[5]))
        return Array(plain[..<at]) + segments + plain[at...]
    }

    static func segment(_ marker: UInt8, _ data: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    @Test(
        "--keep-metadata drops XMP that is not well-formed, with one warning naming the input; info says so, gps null")
    func unparsableXMP() async throws {
        let folder = try makeTemporaryFolder("metadata-drop-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A place under a prefix bound to nothing: no reader can tell what it is. AVIF takes the
        // metadata the writers share; JPEG XL recompresses the JPEG, its segments edited.
        let packet = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><e:place>51,30.43N</e:place></x:xmpmeta>"#
        let xmp = Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8))
        try Self.write(try await Self.jpeg(with: xmp), "photo.jpg", in: folder)
        let problem = "the prefix of e:place is not bound to a namespace (byte 36)"

        let info = try CLIRunner.run(["info", "photo.jpg"], in: folder)
        #expect(info.stdout.contains("metadata XMP (cannot be parsed) GPS unknown"), "\(info.stdout)")
        #expect(info.lines.last == "  xmp: cannot be parsed as XML: " + problem, "\(info.stdout)")
        let json = try CLIRunner.run(["info", "--json", "photo.jpg"], in: folder)
        #expect(
            json.stdout.contains(#""gps":null"#) && json.stdout.contains(#""xmp":true,"xmp_problem":"\#(problem)""#))

        for output in ["out.avif", "out.jxl"] {
            let run = try CLIRunner.run(["convert", "photo.jpg", output, "--keep-metadata"], in: folder)
            #expect(run.status == 0)
            #expect(
                run.stderr == "warning: photo.jpg: the XMP packet cannot be parsed as XML (\(problem)): it is dropped,"
                    + " as a position in it could not be removed\n", "\(output)")
            let written = try CLIRunner.run(["info", "--json", output], in: folder)
            #expect(written.stdout.contains(#""gps":false"#) && written.stdout.contains(#""xmp":false"#), "\(output)")
        }
        // --keep-gps keeps everything as it is, this packet too.
        let all = try CLIRunner.run(["convert", "photo.jpg", "all.png", "--keep-gps"], in: folder)
        #expect(all.status == 0 && all.stderr.isEmpty, "\(all.stderr)")
        #expect(try CLIRunner.run(["info", "all.png"], in: folder).stdout.contains("XMP (cannot be parsed)"))
    }

    @Test(
        "A JPEG whose EXIF is only a TIFF header converts to AVIF with --keep-metadata, the block dropped with a warning"
    )
    func tiffHeaderOnlyEXIF() async throws {
        let folder = try makeTemporaryFolder("metadata-drop-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let exif = Self.segment(0xE1, Array("Exif".utf8) + [0, 0, 0x49, 0x49, 42, 0])
        try Self.write(try await Self.jpeg(with: exif), "photo.jpg", in: folder)
        for output in ["out.avif", "out.jxl"] {
            // libavif refused it: "libavif could not encode a frame (Invalid Exif payload)".
            let run = try CLIRunner.run(["convert", "photo.jpg", output, "--keep-metadata"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr
                    == "warning: photo.jpg: the EXIF block cannot be read (it is 4 bytes, shorter than a TIFF header): it is dropped\n"
            )
            let written = try CLIRunner.run(["info", "--json", output], in: folder)
            #expect(written.stdout.contains(#""exif":null"#), "\(output): \(written.stdout)")
        }
    }

    @Test("A JPEG whose ICC segments are swapped converts to JPEG XL losslessly, with a note")
    func swappedICCSegments() async throws {
        let folder = try makeTemporaryFolder("metadata-drop-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Display P3 with 70 KB more: two APP2 segments, then swapped.
        let base = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: MetadataCLITests.fixtures + "/color/display-p3.icc")))
        let profile = LargeICCProfile.padding(base, by: 70_000)
        let ordered = try await Self.jpeg(with: [], profile: profile)
        var segments: [Range<Int>] = []
        var at = 2
        while ordered[at + 1] != 0xDA {
            let end = at + 2 + (Int(ordered[at + 2]) << 8 | Int(ordered[at + 3]))
            if ordered[at + 1] == 0xE2 { segments.append(at..<end) }
            at = end
        }
        #expect(segments.count == 2 && segments[0].upperBound == segments[1].lowerBound)
        let swapped =
            Array(ordered[..<segments[0].lowerBound]) + ordered[segments[1]] + ordered[segments[0]]
            + ordered[segments[1].upperBound...]
        try Self.write(swapped, "swapped.jpg", in: folder)
        let run = try CLIRunner.run(["convert", "swapped.jpg", "out.jxl"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr
                == "note: out.jxl: the JPEG's ICC profile segments are out of order, which libjxl refuses: they are put in order, so the JPEG rebuilt from this file has them in order\n"
        )
        let info = try CLIRunner.run(["info", "out.jxl"], in: folder)
        #expect(info.stdout.contains("jpeg-recompression") && info.stdout.contains("Display P3"), "\(info.stdout)")
        // Back to JPEG: the file with its segments in order, the one our encoder wrote.
        let back = try CLIRunner.run(["convert", "out.jxl", "back.jpg"], in: folder)
        #expect(back.status == 0, "\(back.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/back.jpg"))) == ordered)
    }
}

/// A still image described by an ICC profile, as a decoder would describe it.
private struct Profiled: FrameSource {
    let image: StillImageSource
    let info: ImageInfo

    init(image: PixelBuffer, profile: [UInt8]?) {
        self.image = StillImageSource(image)
        var info = self.image.info
        if let profile {
            info.color.profile = ColorProfile(data: profile)
            info.color.hasICCProfile = true
        }
        self.info = info
    }

    var isOpaque: Bool { true }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try image.makeFrameReader(depth: depth)
    }
}
