import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs of `--keep-metadata` on phone files: a HEIC turned by its container, an EXIF
/// block too large for a JPEG segment.
@Suite("imgtool metadata of phone files (end to end)", .serialized, .timeLimit(.minutes(5)))
struct MetadataCLITests {
    static let fixtures =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// The payloads of the JPEG's APP1 segments, in order.
    static func app1Segments(_ jpeg: [UInt8]) -> [[UInt8]] {
        var segments: [[UInt8]] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if jpeg[at + 1] == 0xE1 { segments.append(Array(jpeg[(at + 4)..<min(jpeg.count, at + 2 + length)])) }
            at += 2 + length
        }
        return segments
    }

    @Test("A phone HEIC written with --keep-metadata says orientation 1 on upright pixels; info says why")
    func rotatedHEIC() throws {
        guard HEIFCodec().isAvailable else { return }  // libheif1 is a run-time library; CI installs it
        let folder = try makeTemporaryFolder("metadata-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.fixtures + "/orientation/rotated.heic"
        let info = try CLIRunner.run(["info", input])
        #expect(
            info.stdout.contains("HEIF 16x32") && info.stdout.contains("EXIF orientation 6 (applied; stored 64x64)"))
        let run = try CLIRunner.run(["convert", input, "out.jpg", "--keep-metadata"], in: folder)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let out = try CLIRunner.run(["info", "out.jpg"], in: folder)
        #expect(
            out.stdout.contains("JPEG 16x32") && out.stdout.contains("EXIF orientation 1 (not applied"), "\(out.stdout)"
        )
    }

    @Test("EXIF too large for a JPEG segment is rebuilt: Make, Model and dates kept, a note on stderr")
    func largeEXIF() async throws {
        let folder = try makeTemporaryFolder("metadata-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A PNG carrying a 192 KB EXIF block with a 140 KB MakerNote and 52 KB after its values;
        // the GPS directory (66 bytes), removed in place, is among the bytes no tag points to.
        let phone = PhoneEXIF(bigEndian: false, makerNote: 140_000, userComment: 100, trailing: 52_000)
        let image = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 90, 255] }
        let png = try await PNGCodec().encode(
            EXIFCarrier(image: image, exif: phone.bytes), options: ImageWriteOptions(metadata: .keep))
        try Data(png).write(to: URL(fileURLWithPath: folder + "/phone.png"))

        let run = try CLIRunner.run(["convert", "phone.png", "out.jpg", "--keep-metadata"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let note = run.stderr.split(separator: "\n").map(String.init)
        #expect(
            note == [
                "note: out.jpg: the EXIF block (192,380 bytes) is larger than a JPEG APP1 segment holds (65,527): rebuilt in 302 bytes without 52,066 bytes no tag points to, the MakerNote (140,000 bytes)"
            ], "\(run.stderr)")
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/out.jpg")))
        let exifSegments = Self.app1Segments(jpeg).filter { $0.starts(with: Array("Exif\0\0".utf8)) }
        #expect(exifSegments.count == 1 && exifSegments[0].count <= 65_533)
        let written = try #require(ImageSource(data: jpeg, name: "out.jpg").info.exif)
        let text = String(decoding: written, as: UTF8.self)
        for value in [PhoneEXIF.make, PhoneEXIF.model, PhoneEXIF.dateTimeOriginal] {
            #expect(text.contains(value + "\0"), "\(value)")
        }
        let info = try CLIRunner.run(["info", "out.jpg"], in: folder)
        #expect(info.stdout.contains("metadata EXIF,") && !info.stdout.contains("GPS"), "\(info.stdout)")
    }
}

/// A still image described as carrying `exif` (TIFF bytes).
private struct EXIFCarrier: FrameSource {
    let image: StillImageSource
    let info: ImageInfo

    init(image: PixelBuffer, exif: [UInt8]) {
        self.image = StillImageSource(image)
        var info = self.image.info
        info.exif = exif
        info.hasEXIF = true
        self.info = info
    }

    var isOpaque: Bool { true }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try image.makeFrameReader(depth: depth)
    }
}
