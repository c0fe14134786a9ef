import Foundation
import Testing

@testable import ImgToolKit

/// EXIF and XMP editing for output files: orientation rewritten, GPS and thumbnails removed in
/// place, hostile blocks survived.
@Suite("EXIF and XMP editors")
struct MetadataEditorTests {
    @Test func orientationIsRewrittenInPlace() {
        for bigEndian in [false, true] {
            let fixture = EXIFFixture(bigEndian: bigEndian)
            let block = EXIFBlock(tiff: fixture.bytes)
            #expect(block.orientation == 6)
            let edited = block.edited(orientation: 1, removingGPS: false, removingThumbnail: false)
            #expect(EXIFReader.orientation(inTIFF: edited.bytes[...]) == 1)
            #expect(edited.bytes.count == fixture.bytes.count)
            #expect(zip(edited.bytes, fixture.bytes).filter { $0 != $1 }.count == 1)
            #expect(block.edited(orientation: nil, removingGPS: false, removingThumbnail: false) == block)
        }
    }

    @Test func gPSIsRemovedAndEverythingElseKeepsItsOffset() {
        for bigEndian in [false, true] {
            let fixture = EXIFFixture(bigEndian: bigEndian)
            let block = EXIFBlock(tiff: fixture.bytes)
            #expect(block.hasGPS)
            #expect(contains(fixture.bytes, fixture.latitude))
            let edited = block.edited(orientation: nil, removingGPS: true, removingThumbnail: false)
            let tiff = fixture.reader(edited.bytes)
            #expect(!(edited.hasGPS))
            #expect(!(contains(edited.bytes, fixture.latitude)))
            #expect(edited.bytes[fixture.gpsIFD..<fixture.gpsIFD + 2 + 12 * 3 + 4].allSatisfy { $0 == 0 })
            #expect(tiff.u16(8) == 5)
            #expect(tiff.entry(0x8825, in: 8) == nil)
            #expect(tiff.u32(8 + 2 + 12 * 5) == UInt32(fixture.ifd1))
            #expect(
                Array(edited.bytes[(8 + 2 + 12 * 5 + 4)..<(8 + 2 + 12 * 6 + 4)]) == [UInt8](repeating: 0, count: 12))
            #expect(edited.orientation == 6)
            #expect(tiff.entry(0x010F, in: 8).map { tiff.u32($0 + 8) } == UInt32(fixture.make))
            #expect(Array(edited.bytes[fixture.make..<fixture.make + 6]) == Array("Canon\0".utf8))
            let exif = tiff.entry(0x8769, in: 8).map { Int(tiff.u32($0 + 8)) }
            #expect(exif == fixture.exifIFD)
            #expect(tiff.entry(0x9003, in: fixture.exifIFD).map { tiff.u32($0 + 8) } == UInt32(fixture.dateTime))
            #expect(Array(edited.bytes[fixture.dateTime..<fixture.dateTime + 4]) == Array("2024".utf8))
            #expect(contains(edited.bytes, fixture.thumbnail))
            #expect(edited.bytes.count == fixture.bytes.count)
        }
    }

    @Test func thumbnailIsRemovedAndTheBlockCut() {
        for bigEndian in [false, true] {
            let fixture = EXIFFixture(bigEndian: bigEndian)
            let edited = EXIFBlock(tiff: fixture.bytes).edited(
                orientation: nil, removingGPS: false, removingThumbnail: true)
            let tiff = fixture.reader(edited.bytes)
            #expect(tiff.u32(8 + 2 + 12 * 6) == 0)
            #expect(!(contains(edited.bytes, fixture.thumbnail)))
            // Cut where IFD1 began: the GPS values were the last bytes still referenced.
            #expect(edited.bytes.count == fixture.ifd1)
            // Everything else, GPS included, is as it was.
            #expect(edited.hasGPS)
            var expected = Array(fixture.bytes[..<fixture.ifd1])
            expected.replaceSubrange((8 + 2 + 12 * 6)..<(8 + 2 + 12 * 6 + 4), with: [0, 0, 0, 0])
            #expect(edited.bytes == expected)
        }
    }

    @Test func allEditsTogether() {
        for bigEndian in [false, true] {
            let fixture = EXIFFixture(bigEndian: bigEndian)
            let edited = EXIFBlock(tiff: fixture.bytes).edited(
                orientation: 1, removingGPS: true, removingThumbnail: true)
            let tiff = fixture.reader(edited.bytes)
            #expect(edited.orientation == 1)
            #expect(!(edited.hasGPS))
            #expect(tiff.u16(8) == 5)
            #expect(tiff.u32(8 + 2 + 12 * 5) == 0)
            #expect(!(contains(edited.bytes, fixture.latitude)))
            #expect(!(contains(edited.bytes, fixture.thumbnail)))
            #expect(edited.bytes.count == fixture.gpsIFD)
            #expect(Array(edited.bytes[fixture.dateTime..<fixture.dateTime + 4]) == Array("2024".utf8))
            #expect(Array(edited.bytes[fixture.makerNote..<fixture.makerNote + 4]) == [1, 2, 3, 4])
        }
    }

    @Test func aPP1PrefixIsStripped() {
        let fixture = EXIFFixture(bigEndian: true)
        #expect(EXIFBlock(app1OrTIFF: Array("Exif\0\0".utf8) + fixture.bytes)?.bytes == fixture.bytes)
        #expect(EXIFBlock(app1OrTIFF: fixture.bytes)?.bytes == fixture.bytes)
        #expect(EXIFBlock(app1OrTIFF: Array("Exif\0\0GIF89a".utf8)) == nil)
        #expect(EXIFBlock(app1OrTIFF: []) == nil)
    }

    @Test func hostileBlocksAreSurvived() {
        var inputs: [[UInt8]] = [[], [0x49, 0x49, 42, 0], [0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xFF]]
        for bigEndian in [false, true] {
            let fixture = EXIFFixture(bigEndian: bigEndian)
            inputs += (0..<fixture.bytes.count).map { Array(fixture.bytes[..<$0]) }
            var tiff = fixture.reader(fixture.bytes)
            tiff.set32(8 + 2 + 12 * 6, 8)  // IFD1 is IFD0
            tiff.set32(8 + 2 + 12 * 5 + 8, 8)  // GPS IFD is IFD0
            tiff.set32(8 + 2 + 12 * 4 + 8, 8)  // Exif IFD is IFD0
            inputs.append(tiff.bytes)
            tiff = fixture.reader(fixture.bytes)
            tiff.set16(8, 0xFFFF)  // entries past the end
            tiff.set32(8 + 2 + 8, 0xFFFF_FFF0)  // Make past the end
            tiff.set32(fixture.ifd1 + 2 + 12 * 2 + 8, 0xFFFF_FFFF)  // thumbnail length
            inputs.append(tiff.bytes)
            tiff = fixture.reader(fixture.bytes)
            tiff.set32(8 + 2 + 12 * 5 + 8, 0xFFFF_FFFF)  // GPS pointer past the end
            inputs.append(tiff.bytes)
            // Thousands of huge values over the same bytes: the work budget runs out.
            tiff = fixture.reader(fixture.bytes + [UInt8](repeating: 0, count: 12 * 4000))
            tiff.set16(8, 4006)
            for index in 6..<4006 { tiff.setEntry(at: 8 + 2 + 12 * index, 0x9999, 2, 0xFFFF_FFFF, 0) }
            inputs.append(tiff.bytes)
            var state: UInt32 = 12345
            for _ in 0..<300 {
                var mutated = fixture.bytes
                for _ in 0..<4 {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    mutated[8 + Int(state >> 8) % (mutated.count - 8)] = UInt8(truncatingIfNeeded: state >> 24)
                }
                inputs.append(mutated)
            }
        }
        // Found by FuzzJPEG: IFD0 at offset 4, over the header. Clearing its next-directory offset
        // also cleared half of the header's pointer to it, which then read IFD0 at 0, where a GPS
        // pointer lined up: GPS appeared by being removed.
        let overlapping = EXIFBlock(app1OrTIFF: [UInt8](Data(base64Encoded: Self.headerOverlap) ?? Data()))
        #expect(overlapping != nil)
        inputs.append(overlapping?.bytes ?? [])
        for input in inputs {
            let block = EXIFBlock(tiff: input)
            _ = (block.hasGPS, block.orientation)
            let edited = block.edited(orientation: 3, removingGPS: true, removingThumbnail: true)
            #expect(!(edited.hasGPS))
            #expect(edited.bytes.count <= max(input.count, 26))
            _ = block.edited(orientation: nil, removingGPS: false, removingThumbnail: true)
            _ = block.edited(orientation: 70_000, removingGPS: true, removingThumbnail: false)
        }
    }

    /// The APP1 payload of the fuzzer's input (462 bytes).
    private static let headerOverlap =
        "RXhpZgAATU0AKgAAAAQACgECAAMAAAADAAAAhgEPAAIAAAAFAAAAjAEQAAIAAAAIAAAAkQEaAAUAAAAAAAAAAAAAAAAAAAAGAAAAAQAAAJkB"
        + "KAADAAAAAf//AAABMAACAAAABFBJTAACAgAEAAAAAf/////GGwAKAAAAAwAAAKGHaQAEAAAAAQAAALmIJQAEAAAAAQAAAW4AAAAAABgAGAAY"
        + "TWFrZQBYWFgtWFhYAP////8AAAABAAAAAQAAAAEAAAABAAAAAQAAAAEAAAABAAgEgpoABQAAAAEAAAEbiCgABwAAAAYAAAEjiDMABAAAAAH/"
        + "////kAMAAgAAABQAAAEpkgQACgAAAAEAAAE9pAoAAwAAAAH//wAApDIABQAAAAQAAAFFpDMAAgAAAAkAAAFl/////wAAAAGqqqqqqqoyMDk5"
        + "OjA5OjI5IDEwOjEwOjEwAH////+AAAAAAAAAAQAAAAEAAAABAAAAAwCHAAABAAAAAQAAAAEAAAABTGVuc01ha2UAAAUAAAABAAAABAAAAAEA"
        + "AgAFAAAAAQAAAawABQABAAAAAQEAAAAAHQACAAAAFAAAAbQAHgADAAAAAf//AAD/////AAAAATE5"

    @Test func xMPAttributes() {
        let packet = XMPPacket(
            bytes: Array(
                """
                <rdf:Description rdf:about="" exif:GPSLatitude="51,30.43N"
                  exif:GPSLongitude='0,7.5W' tiff:Orientation="6" exif:ExposureTime="1/100"/>
                """.utf8))
        #expect(packet.hasGPS)
        let edited = packet.edited(orientation: 1, removingGPS: true)
        #expect(!(edited.hasGPS))
        #expect(
            String(decoding: edited.bytes, as: UTF8.self)
                == #"<rdf:Description rdf:about="" tiff:Orientation="1" exif:ExposureTime="1/100"/>"#)
        #expect(packet.edited(orientation: nil, removingGPS: false) == packet)
    }

    @Test func xMPElements() {
        let packet = XMPPacket(
            bytes: Array(
                """
                <rdf:Description>
                  <exif:GPSLatitude>51,30.43N</exif:GPSLatitude>
                  <exif:GPSVersionID/>
                  <exif:GPSDestBearing>
                    <rdf:Seq><rdf:li>1</rdf:li></rdf:Seq>
                  </exif:GPSDestBearing >
                  <tiff:Orientation>6</tiff:Orientation>
                  <!-- exif:GPSLatitude="kept in a comment" -->
                </rdf:Description>
                """.utf8))
        #expect(packet.hasGPS)
        let edited = packet.edited(orientation: 8, removingGPS: true)
        #expect(!(edited.hasGPS))
        #expect(
            String(decoding: edited.bytes, as: UTF8.self) == """
                <rdf:Description>
                  <tiff:Orientation>8</tiff:Orientation>
                  <!-- exif:GPSLatitude="kept in a comment" -->
                </rdf:Description>
                """)
    }

    @Test("XMP location properties are found by namespace URI: another EXIF prefix, DJI's, the IPTC Extension's")
    func xMPLocationByNamespace() {
        let packet = XMPPacket(
            bytes: Array(
                """
                <rdf:Description xmlns:e="http://ns.adobe.com/exif/1.0/"
                  xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
                  xmlns:ext='http://iptc.org/std/Iptc4xmpExt/2008-02-29/'
                  e:GPSLatitude="51,30.43N" drone-dji:GpsLongitude="-0.125" drone-dji:FlightYawDegree="12">
                  <drone-dji:GpsLatitude>51.5</drone-dji:GpsLatitude>
                  <ext:LocationCreated><rdf:Bag><rdf:li>London</rdf:li></rdf:Bag></ext:LocationCreated>
                  <ext:LocationShown/>
                  <e:ExposureTime>1/100</e:ExposureTime>
                </rdf:Description>
                """.utf8))
        #expect(packet.hasGPS)
        let edited = packet.edited(orientation: nil, removingGPS: true)
        #expect(!edited.hasGPS)
        let text = String(decoding: edited.bytes, as: UTF8.self)
        for gone in ["51,30.43N", "-0.125", "51.5", "London", "LocationShown"] {
            #expect(!text.contains(gone), "\(gone) survived: \(text)")
        }
        for kept in ["drone-dji:FlightYawDegree=\"12\"", "<e:ExposureTime>1/100</e:ExposureTime>", "xmlns:ext="] {
            #expect(text.contains(kept), "\(kept) was lost: \(text)")
        }
        // The same local names under a prefix bound to another namespace are not locations.
        let other = XMPPacket(bytes: Array(#"<d xmlns:e="http://example.com/" e:GPSLatitude="1"/>"#.utf8))
        #expect(!other.hasGPS)
    }

    @Test func xMPGarbage() {
        for text in ["", "<", "<<>>\"'", "not xml at all", "<a b='unclosed", "<exif:GPS", "<tiff:Orientation>"] {
            let packet = XMPPacket(bytes: Array(text.utf8))
            let edited = packet.edited(orientation: 1, removingGPS: true)
            #expect(!(edited.hasGPS))
            #expect(edited.bytes.count <= packet.bytes.count)
        }
        #expect(
            XMPPacket(bytes: Array("a <b c='d'> e".utf8)).edited(orientation: 1, removingGPS: true).bytes
                == Array("a <b c='d'> e".utf8))
        let unclosed = XMPPacket(bytes: Array("<x>\n<exif:GPSLatitude>51,30.43N".utf8))
        #expect(unclosed.edited(orientation: nil, removingGPS: true).bytes == Array("<x>".utf8))
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}

/// Reads and writes integers in a test TIFF structure.
private struct TIFFAccess {
    var bytes: [UInt8]
    let bigEndian: Bool

    func u16(_ at: Int) -> UInt16 {
        let a = UInt16(bytes[at])
        let b = UInt16(bytes[at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(_ at: Int) -> UInt32 {
        bigEndian ? UInt32(u16(at)) << 16 | UInt32(u16(at + 2)) : UInt32(u16(at + 2)) << 16 | UInt32(u16(at))
    }

    mutating func set16(_ at: Int, _ value: UInt16) {
        bytes[at] = UInt8(truncatingIfNeeded: bigEndian ? value >> 8 : value)
        bytes[at + 1] = UInt8(truncatingIfNeeded: bigEndian ? value : value >> 8)
    }

    mutating func set32(_ at: Int, _ value: UInt32) {
        set16(at, UInt16(truncatingIfNeeded: bigEndian ? value >> 16 : value))
        set16(at + 2, UInt16(truncatingIfNeeded: bigEndian ? value : value >> 16))
    }

    mutating func setEntry(at: Int, _ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: UInt32) {
        set16(at, tag)
        set16(at + 2, type)
        set32(at + 4, count)
        set32(at + 8, value)
    }

    /// The position of the entry tagged `tag` in the directory at `ifd`.
    func entry(_ tag: UInt16, in ifd: Int) -> Int? {
        (0..<Int(u16(ifd))).map { ifd + 2 + 12 * $0 }.first { u16($0) == tag }
    }
}

/// An EXIF block with IFD0 (Make, Model, Orientation 6, XResolution, Exif and GPS pointers), an
/// Exif IFD (DateTimeOriginal, MakerNote), a GPS IFD (version, latitude ref and latitude) and an
/// IFD1 pointing at a JPEG thumbnail at the end.
private struct EXIFFixture {
    let bigEndian: Bool
    private(set) var bytes: [UInt8] = []
    private(set) var make = 0, dateTime = 0, makerNote = 0, exifIFD = 0, gpsIFD = 0, ifd1 = 0
    let latitude: [UInt8]
    let thumbnail: [UInt8] = [0xFF, 0xD8, 0xAB, 0xCD, 0xEF, 0xFF, 0xD9]

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
        let rationals: [UInt32] = [51, 1, 30, 1, 2617, 100]
        latitude = rationals.flatMap { TIFFAccess(bytes: [0, 0, 0, 0], bigEndian: bigEndian).setting32($0) }
        bytes = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        let ifd0 = directory([
            (0x010F, 2, 6, Array("Canon\0".utf8)), (0x0110, 2, 8, Array("EOS R50\0".utf8)),
            (0x0112, 3, 1, short(6)), (0x011A, 5, 1, long(72) + long(1)), (0x8769, 4, 1, long(0)),
            (0x8825, 4, 1, long(0)),
        ])
        make = ifd0.values[0]
        exifIFD = bytes.count
        let exif = directory([
            (0x9003, 2, 20, Array("2024:05:06 07:08:09\0".utf8)), (0x927C, 7, 8, [1, 2, 3, 4, 5, 6, 7, 8]),
        ])
        dateTime = exif.values[0]
        makerNote = exif.values[1]
        gpsIFD = bytes.count
        _ = directory([
            (0x0000, 1, 4, [2, 3, 0, 0]), (0x0001, 2, 2, Array("N\0".utf8) + [0, 0]), (0x0002, 5, 3, latitude),
        ])
        ifd1 = bytes.count
        let thumbnailDirectory = directory([
            (0x0103, 3, 1, short(6)), (0x0201, 4, 1, long(0)), (0x0202, 4, 1, long(UInt32(thumbnail.count))),
        ])
        var access = reader(bytes)
        access.set32(ifd0.position + 2 + 12 * 4 + 8, UInt32(exifIFD))
        access.set32(ifd0.position + 2 + 12 * 5 + 8, UInt32(gpsIFD))
        access.set32(ifd0.position + 2 + 12 * 6, UInt32(ifd1))
        access.set32(thumbnailDirectory.position + 2 + 12 + 8, UInt32(access.bytes.count))
        bytes = access.bytes + thumbnail
    }

    func reader(_ bytes: [UInt8]) -> TIFFAccess { TIFFAccess(bytes: bytes, bigEndian: bigEndian) }
    private func short(_ value: UInt16) -> [UInt8] { reader([0, 0, 0, 0]).setting16(value) }
    private func long(_ value: UInt32) -> [UInt8] { reader([0, 0, 0, 0]).setting32(value) }

    /// Appends a directory and its out-of-line values; returns where each went.
    private mutating func directory(_ entries: [(UInt16, UInt16, UInt32, [UInt8])]) -> (position: Int, values: [Int]) {
        let position = bytes.count
        var access = reader(bytes + [UInt8](repeating: 0, count: 2 + 12 * entries.count + 4))
        access.set16(position, UInt16(entries.count))
        var values: [Int] = []
        for (index, (tag, type, count, value)) in entries.enumerated() {
            let at = position + 2 + 12 * index
            access.setEntry(at: at, tag, type, count, 0)
            if value.count <= 4 {
                access.bytes.replaceSubrange(at + 8..<at + 8 + value.count, with: value)
                values.append(at + 8)
            } else {
                if access.bytes.count % 2 == 1 { access.bytes.append(0) }
                access.set32(at + 8, UInt32(access.bytes.count))
                values.append(access.bytes.count)
                access.bytes += value
            }
        }
        bytes = access.bytes
        return (position, values)
    }
}

extension TIFFAccess {
    fileprivate func setting16(_ value: UInt16) -> [UInt8] {
        var copy = self
        copy.set16(0, value)
        return Array(copy.bytes[0..<2]) + [0, 0]
    }

    fileprivate func setting32(_ value: UInt32) -> [UInt8] {
        var copy = self
        copy.set32(0, value)
        return copy.bytes
    }
}
