import Foundation
import Testing

@testable import ImgToolKit

/// ``EXIFSummary``: the fields of IFD0, the Exif and the GPS directories, in both byte orders, from
/// a block built here and from the `gps-exif.jpg` fixture; damaged blocks give what can be read.
@Suite("EXIF summary")
struct EXIFSummaryTests {
    /// A camera's block: IFD0 (make, model, orientation, resolution), Exif (date with offset and
    /// sub-seconds, exposure, aperture, ISO, bias, focal lengths, lens) and GPS (south, west, below
    /// sea level).
    static func cameraBlock(bigEndian: Bool, latitudeRef: String = "S", longitudeRef: String = "W") -> [UInt8] {
        var builder = TIFFBuilder(bigEndian: bigEndian)
        builder.ifd0 = [
            .init(0x010F, .ascii("Canon")), .init(0x0110, .ascii("Canon EOS R5")), .init(0x0112, .shorts([8])),
            .init(0x011A, .rationals([(300, 1)])), .init(0x011B, .rationals([(600, 2)])),
            .init(0x0128, .shorts([2])),
        ]
        builder.exif = [
            .init(0x829A, .rationals([(1, 250)])), .init(0x829D, .rationals([(28, 10)])),
            .init(0x8827, .shorts([400])), .init(0x9003, .ascii("2024:05:01 12:34:56")),
            .init(0x9011, .ascii("+02:00")), .init(0x9204, .srationals([(-2, 3)])),
            .init(0x920A, .rationals([(50, 1)])), .init(0x9291, .ascii("25")), .init(0xA405, .shorts([80])),
            .init(0xA433, .ascii("Canon")), .init(0xA434, .ascii("RF24-105mm F4 L IS USM")),
        ]
        builder.gps = [
            .init(0x0000, .bytes([2, 3, 0, 0])), .init(0x0001, .ascii(latitudeRef)),
            .init(0x0002, .rationals([(33, 1), (51, 1), (3060, 100)])), .init(0x0003, .ascii(longitudeRef)),
            .init(0x0004, .rationals([(151, 1), (12, 1), (3600, 100)])), .init(0x0005, .bytes([1])),
            .init(0x0006, .rationals([(125, 10)])),
        ]
        return builder.bytes
    }

    @Test("Every field is read, in both byte orders", arguments: [false, true])
    func cameraFields(bigEndian: Bool) throws {
        let summary = try #require(EXIFSummary(tiff: Self.cameraBlock(bigEndian: bigEndian)))
        #expect(summary.make == "Canon")
        #expect(summary.model == "Canon EOS R5")
        #expect(summary.lensMake == "Canon")
        #expect(summary.lensModel == "RF24-105mm F4 L IS USM")
        #expect(summary.orientation == 8)
        #expect(summary.xResolution == 300 && summary.yResolution == 300 && summary.resolutionUnit == .inch)
        #expect(summary.dateTaken == "2024-05-01T12:34:56.25")
        #expect(summary.dateTakenOffset == "+02:00")
        #expect(summary.exposureTime == 0.004 && summary.exposureTimeText == "1/250")
        #expect(summary.fNumber == 2.8)
        #expect(summary.iso == 400)
        #expect(summary.exposureBias == -2.0 / 3.0)
        #expect(summary.focalLength == 50 && summary.focalLength35mm == 80)
        // 33° 51' 30.6" S and 151° 12' 36" W, 12.5 m below sea level (GPSAltitudeRef 1).
        let latitude: Double = -(33 + 51 / 60 + 30.6 / 3600)
        let longitude: Double = -(151 + 12 / 60 + 36 / 3600)
        #expect(abs(try #require(summary.gpsLatitude) - latitude) < 1e-12)
        #expect(abs(try #require(summary.gpsLongitude) - longitude) < 1e-12)
        #expect(summary.gpsAltitude == -12.5)
        #expect(summary.hasGPSPosition)
    }

    @Test("North and east are positive; a reference that is neither gives no coordinate")
    func gpsReferences() throws {
        let north = try #require(
            EXIFSummary(tiff: Self.cameraBlock(bigEndian: false, latitudeRef: "N", longitudeRef: "E")))
        #expect((north.gpsLatitude ?? 0) > 33.85 && (north.gpsLongitude ?? 0) > 151.2)
        let odd = try #require(
            EXIFSummary(tiff: Self.cameraBlock(bigEndian: true, latitudeRef: "X", longitudeRef: "E")))
        #expect(odd.gpsLatitude == nil && odd.gpsLongitude != nil && !odd.hasGPSPosition)
    }

    @Test("The fixture gps-exif.jpg: make, orientation 6 and its position, no altitude")
    func fixture() throws {
        let path =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/color/gps-exif.jpg").path
        let info = try ImageSource(contentsOf: path).info
        let summary = try #require(info.exifSummary)
        #expect(summary.make == "imgtool" && summary.model == nil)
        #expect(summary.orientation == 6 && summary.orientation == info.exifOrientation)
        // GPSLatitude 48/1 51/1 24/1 N, GPSLongitude 2/1 21/1 3/1 E (the fixture's README).
        let latitude: Double = 48 + 51 / 60 + 24 / 3600
        let longitude: Double = 2 + 21 / 60 + 3 / 3600
        #expect(abs(try #require(summary.gpsLatitude) - latitude) < 1e-12)
        #expect(abs(try #require(summary.gpsLongitude) - longitude) < 1e-12)
        #expect(summary.gpsAltitude == nil && summary.dateTaken == nil && summary.exposureTime == nil)
    }

    @Test(
        "Exposure times read as photographers write them",
        arguments: [
            (UInt32(1), UInt32(250), "1/250"), (10, 2500, "1/250"), (1, 3, "1/3"), (2, 1, "2"), (30, 1, "30"),
            (3, 10, "0.3"), (13, 10, "1.3"), (0, 1, "0"),
        ])
    func exposureText(numerator: UInt32, denominator: UInt32, expected: String) throws {
        var builder = TIFFBuilder(bigEndian: false)
        builder.exif = [.init(0x829A, .rationals([(numerator, denominator)]))]
        let summary = try #require(EXIFSummary(tiff: builder.bytes))
        #expect(summary.exposureTimeText == expected)
        #expect(summary.exposureTime == Double(numerator) / Double(denominator))
    }

    @Test("A damaged block gives the fields that can be read")
    func damaged() throws {
        #expect(EXIFSummary(tiff: Array("not a tiff".utf8)) == nil)
        #expect(EXIFSummary(tiff: [0x49, 0x49, 42, 0, 200, 0, 0, 0]) == nil)  // IFD0 past the end
        let whole = Self.cameraBlock(bigEndian: true)
        // Every cut length: no crash, and a field present in a cut block equals the whole block's.
        let full = try #require(EXIFSummary(tiff: whole))
        for length in 0..<whole.count {
            guard let cut = EXIFSummary(tiff: Array(whole.prefix(length))) else { continue }
            if let make = cut.make { #expect(make == full.make) }
            if let latitude = cut.gpsLatitude { #expect(latitude == full.gpsLatitude) }
            if let time = cut.exposureTime { #expect(time == full.exposureTime) }
        }
        // A zero denominator and a wrong type read as absent.
        var builder = TIFFBuilder(bigEndian: false)
        builder.ifd0 = [.init(0x010F, .shorts([7])), .init(0x011A, .rationals([(300, 0)]))]
        builder.exif = [.init(0x829D, .rationals([(28, 0)])), .init(0x8827, .ascii("400"))]
        let odd = try #require(EXIFSummary(tiff: builder.bytes))
        #expect(odd.make == nil && odd.xResolution == nil && odd.fNumber == nil && odd.iso == nil)
        // A JPEG APP1 payload's Exif\0\0 prefix is skipped.
        let app1 = Array("Exif".utf8) + [0, 0] + Self.cameraBlock(bigEndian: false)
        #expect(EXIFSummary(tiff: app1)?.model == "Canon EOS R5")
    }
}

/// Builds a TIFF structure: IFD0, then the Exif and GPS directories it points to, each followed by
/// its out-of-line values.
private struct TIFFBuilder {
    enum Value {
        case ascii(String)
        case bytes([UInt8])
        case shorts([UInt16])
        case rationals([(UInt32, UInt32)])
        case srationals([(Int32, Int32)])
    }

    struct Entry {
        var tag: UInt16
        var value: Value
        init(_ tag: UInt16, _ value: Value) {
            self.tag = tag
            self.value = value
        }
    }

    let bigEndian: Bool
    var ifd0: [Entry] = []
    var exif: [Entry] = []
    var gps: [Entry] = []

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
    }

    var bytes: [UInt8] {
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        var pointers = ifd0
        if !exif.isEmpty { pointers.append(Entry(0x8769, .bytes([]))) }
        if !gps.isEmpty { pointers.append(Entry(0x8825, .bytes([]))) }
        let ifd0Entries = pointers.sorted { $0.tag < $1.tag }
        let ifd0At = out.count
        append(ifd0Entries, to: &out)
        for (tag, entries) in [(UInt16(0x8769), exif), (0x8825, gps)] where !entries.isEmpty {
            let at = out.count
            append(entries, to: &out)
            // Point IFD0's entry at the directory: a LONG.
            if let index = ifd0Entries.firstIndex(where: { $0.tag == tag }) {
                let entry = ifd0At + 2 + 12 * index
                put16(4, at: entry + 2, in: &out)
                put32(1, at: entry + 4, in: &out)
                put32(UInt32(at), at: entry + 8, in: &out)
            }
        }
        return out
    }

    private func append(_ entries: [Entry], to out: inout [UInt8]) {
        let start = out.count
        out += [UInt8](repeating: 0, count: 2 + 12 * entries.count + 4)
        put16(UInt16(entries.count), at: start, in: &out)
        for (index, entry) in entries.enumerated() {
            let at = start + 2 + 12 * index
            let (type, count, data) = encode(entry.value)
            put16(entry.tag, at: at, in: &out)
            put16(type, at: at + 2, in: &out)
            put32(count, at: at + 4, in: &out)
            if data.count <= 4 {
                out.replaceSubrange(at + 8..<at + 8 + data.count, with: data)
            } else {
                put32(UInt32(out.count), at: at + 8, in: &out)
                out += data
            }
        }
    }

    private func encode(_ value: Value) -> (type: UInt16, count: UInt32, data: [UInt8]) {
        switch value {
        case .ascii(let text):
            let data = Array(text.utf8) + [0]
            return (2, UInt32(data.count), data)
        case .bytes(let data): return (1, UInt32(data.count), data)
        case .shorts(let values): return (3, UInt32(values.count), values.flatMap(short))
        case .rationals(let values): return (5, UInt32(values.count), values.flatMap { long($0.0) + long($0.1) })
        case .srationals(let values):
            return (
                10, UInt32(values.count),
                values.flatMap { long(UInt32(bitPattern: $0.0)) + long(UInt32(bitPattern: $0.1)) }
            )
        }
    }

    private func short(_ value: UInt16) -> [UInt8] {
        let bytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
        return bigEndian ? bytes : bytes.reversed()
    }

    private func long(_ value: UInt32) -> [UInt8] {
        let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return bigEndian ? bytes : bytes.reversed()
    }

    private func put16(_ value: UInt16, at offset: Int, in out: inout [UInt8]) {
        out.replaceSubrange(offset..<offset + 2, with: short(value))
    }

    private func put32(_ value: UInt32, at offset: Int, in out: inout [UInt8]) {
        out.replaceSubrange(offset..<offset + 4, with: long(value))
    }
}
