/// Reads the EXIF orientation tag from the bytes of an EXIF block, tolerating anything.
///
/// EXIF is a TIFF structure: a byte-order mark (`II` little-endian or `MM` big-endian), the
/// number 42, the offset of the first directory (IFD0), then directories of 12-byte entries
/// (tag, type, count, value or offset), every offset counted from the byte-order mark. Files in
/// the wild carry truncated directories, offsets pointing past the end or back into themselves,
/// and tags of the wrong type; none of that is an error here. The reader answers `nil` and the
/// image is shown as stored, as viewers do. Every read is bounds-checked; nothing is allocated.
public enum EXIFReader {
    /// The orientation tag's number.
    public static let orientationTag: UInt16 = 0x0112

    /// The value of tag 0x0112 in IFD0 of a JPEG APP1 payload, which starts `Exif\0\0`.
    /// - Parameter segment: the APP1 segment's bytes after its length field.
    /// - Returns: the value as stored (SHORT, LONG or SLONG; any number), or `nil` when the segment
    ///   is not EXIF, has no such tag, or cannot be read that far.
    public static func orientation(inAPP1 segment: [UInt8]) -> Int? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard segment.count > header.count, segment.starts(with: header) else { return nil }
        return orientation(inTIFF: segment[header.count...])
    }

    /// The value of tag 0x0112 in IFD0 of a TIFF structure (an EXIF block without the
    /// `Exif\0\0` prefix, as WebP's and PNG's `eXIf` chunks store it).
    /// - Parameter tiff: the bytes from the byte-order mark on; offsets count from its first byte.
    /// - Returns: the value as stored, or `nil` (see ``orientation(inAPP1:)``).
    public static func orientation(inTIFF tiff: ArraySlice<UInt8>) -> Int? {
        let view = TIFFView(bytes: tiff)
        guard let bigEndian = view.byteOrder, let firstIFD = view.uint32(at: 4, bigEndian: bigEndian),
            let entries = view.uint16(at: Int(firstIFD), bigEndian: bigEndian)
        else { return nil }
        let start = Int(firstIFD) + 2
        for index in 0..<Int(entries) {
            let entry = start + index * 12
            // A directory cut short: the entries present are still read.
            guard let tag = view.uint16(at: entry, bigEndian: bigEndian),
                let type = view.uint16(at: entry + 2, bigEndian: bigEndian),
                let count = view.uint32(at: entry + 4, bigEndian: bigEndian)
            else { return nil }
            guard tag == orientationTag else { continue }
            guard count >= 1 else { return nil }
            switch type {
            case 3:  // SHORT: one fits in the value field
                return view.uint16(at: entry + 8, bigEndian: bigEndian).map(Int.init)
            case 8:  // SSHORT
                return view.uint16(at: entry + 8, bigEndian: bigEndian).map { Int(Int16(bitPattern: $0)) }
            case 4:  // LONG
                return view.uint32(at: entry + 8, bigEndian: bigEndian).map(Int.init)
            case 9:  // SLONG
                return view.uint32(at: entry + 8, bigEndian: bigEndian).map { Int(Int32(bitPattern: $0)) }
            default:
                return nil
            }
        }
        return nil
    }
}

/// Bounds-checked reads from a TIFF structure; offsets count from its first byte.
private struct TIFFView {
    let bytes: ArraySlice<UInt8>

    /// `true` for `MM` (big-endian), `false` for `II`, `nil` when neither or the magic 42 is missing.
    var byteOrder: Bool? {
        guard let first = byte(at: 0), let second = byte(at: 1), first == second else { return nil }
        let bigEndian: Bool
        switch first {
        case 0x4D: bigEndian = true  // "MM"
        case 0x49: bigEndian = false  // "II"
        default: return nil
        }
        return uint16(at: 2, bigEndian: bigEndian) == 42 ? bigEndian : nil
    }

    func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return bytes[bytes.startIndex + offset]
    }

    func uint16(at offset: Int, bigEndian: Bool) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[bytes.startIndex + offset])
        let b = UInt16(bytes[bytes.startIndex + offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int, bigEndian: Bool) -> UInt32? {
        guard let high = uint16(at: bigEndian ? offset : offset + 2, bigEndian: bigEndian),
            let low = uint16(at: bigEndian ? offset + 2 : offset, bigEndian: bigEndian)
        else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }
}
