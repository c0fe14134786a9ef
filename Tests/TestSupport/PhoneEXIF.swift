/// An EXIF block as a phone writes it, built byte by byte: IFD0 (Make, Model, Orientation,
/// XResolution, Exif and GPS pointers), an Exif directory (ExposureTime, DateTimeOriginal, a
/// MakerNote and a UserComment of the sizes asked, an Interop pointer), an Interop directory
/// (`R98`), a GPS directory (latitude), then bytes no tag points to (as a Xiaomi HEIC has a
/// second preview after its EXIF). The large values are filled with a counting pattern.
public struct PhoneEXIF: Sendable {
    /// `MM` (big-endian) when `true`, `II` otherwise.
    public let bigEndian: Bool
    /// The TIFF structure.
    public private(set) var bytes: [UInt8]

    /// IFD0's Make.
    public static let make = "Xiaomi"
    /// IFD0's Model.
    public static let model = "M2012K11AG"
    /// The Exif directory's DateTimeOriginal.
    public static let dateTimeOriginal = "2023:04:27 19:44:18"
    /// Latitude 51 deg 30' 26.17" as three RATIONALs.
    public static let latitude: [UInt32] = [51, 1, 30, 1, 2617, 100]

    /// - Parameters:
    ///   - makerNote: the MakerNote's size in bytes (UNDEFINED).
    ///   - userComment: the UserComment's size in bytes (UNDEFINED).
    ///   - trailing: bytes after the last directory's values that no tag points to.
    public init(bigEndian: Bool, makerNote: Int, userComment: Int, trailing: Int = 0) {
        self.bigEndian = bigEndian
        bytes = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        let pattern = { (count: Int) in (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) } }
        let ifd0 = directory([
            (0x010F, 2, ascii(Self.make)), (0x0110, 2, ascii(Self.model)), (0x0112, 3, Array(short(1).prefix(2))),
            (0x011A, 5, long(72) + long(1)), (0x8769, 4, long(0)), (0x8825, 4, long(0)),
        ])
        let exif = directory([
            (0x829A, 5, long(1) + long(50)), (0x9003, 2, ascii(Self.dateTimeOriginal)),
            (0x927C, 7, pattern(makerNote)), (0x9286, 7, pattern(userComment)), (0xA005, 4, long(0)),
        ])
        let interop = directory([(0x0001, 2, Array("R98\0".utf8))])
        let gps = directory([(0x0001, 2, ascii("N")), (0x0002, 5, Self.latitude.flatMap(long))])
        patch(ifd0 + 2 + 12 * 4 + 8, to: exif)
        patch(ifd0 + 2 + 12 * 5 + 8, to: gps)
        patch(exif + 2 + 12 * 4 + 8, to: interop)
        bytes += (0..<trailing).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
    }

    private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
    private func short(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF), 0, 0] : [UInt8(value & 0xFF), UInt8(value >> 8), 0, 0]
    }
    private func long(_ value: UInt32) -> [UInt8] {
        let big = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return bigEndian ? big : big.reversed()
    }

    private mutating func patch(_ at: Int, to offset: Int) {
        bytes.replaceSubrange(at..<at + 4, with: long(UInt32(offset)))
    }

    /// Appends a directory (tag, type, value bytes; the count from the type's size) and its
    /// out-of-line values; returns where it starts.
    private mutating func directory(_ entries: [(UInt16, UInt16, [UInt8])]) -> Int {
        let start = bytes.count
        var values = start + 2 + 12 * entries.count + 4
        var tail: [UInt8] = []
        bytes += Array(short(UInt16(entries.count)).prefix(2))
        for (tag, type, value) in entries {
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1][Int(type)] ?? 1
            bytes += Array(short(tag).prefix(2)) + Array(short(type).prefix(2)) + long(UInt32(value.count / size))
            if value.count <= 4 {
                bytes += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                bytes += long(UInt32(values))
                tail += value + (value.count % 2 == 1 ? [0] : [])
                values += value.count + value.count % 2
            }
        }
        bytes += [0, 0, 0, 0] + tail
        return start
    }
}
