/// Bounds-checked reading of the directories of a TIFF structure (an EXIF block), in either byte
/// order, for ``EXIFSummary``.
///
/// A directory (IFD) is a 2-byte entry count, 12-byte entries (tag, type, count, then the value
/// when it fits in 4 bytes or else the offset of the values), and a 4-byte offset of the next
/// directory; every offset counts from the byte-order mark. Nothing here trusts a count or an
/// offset: an entry whose values reach past the end reads as absent, a directory cut short is
/// read as far as its whole entries go, and nothing is allocated from a declared length beyond
/// the bytes present.
struct TIFFReader {
    /// One 12-byte directory entry.
    struct Entry {
        /// Where the entry starts (its tag).
        let position: Int
        let tag: UInt16
        let type: UInt16
        let count: UInt32
    }

    /// A value of type RATIONAL (5) or SRATIONAL (10).
    struct Rational: Equatable {
        var numerator: Int64
        var denominator: Int64

        /// The quotient, or `nil` for a zero denominator.
        var value: Double? {
            denominator == 0 ? nil : Double(numerator) / Double(denominator)
        }
    }

    let bytes: ArraySlice<UInt8>
    /// `true` for `MM`, `false` for `II`.
    let bigEndian: Bool

    /// Reads the header; `nil` unless the bytes start with `II` or `MM` and the number 42.
    init?(tiff bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 8 else { return nil }
        let first = bytes[bytes.startIndex]
        guard first == bytes[bytes.startIndex + 1], first == 0x49 || first == 0x4D else { return nil }
        self.bytes = bytes
        self.bigEndian = first == 0x4D
        guard uint16(at: 2) == 42 else { return nil }
    }

    /// The offset of IFD0, when it lies after the header and inside the bytes.
    var firstDirectory: Int? {
        guard let offset = uint32(at: 4), offset >= 8, uint16(at: Int(offset)) != nil else { return nil }
        return Int(offset)
    }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[bytes.startIndex + offset])
        let b = UInt16(bytes[bytes.startIndex + offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }

    /// The entries present in the directory at `base`: at most the declared count, and only whole ones.
    func entries(ofDirectoryAt base: Int) -> [Entry] {
        guard let declared = uint16(at: base) else { return [] }
        let present = min(Int(declared), max(0, (bytes.count - base - 2) / 12))
        return (0..<present).compactMap { index in
            let position = base + 2 + 12 * index
            guard let tag = uint16(at: position), let type = uint16(at: position + 2),
                let count = uint32(at: position + 4)
            else { return nil }
            return Entry(position: position, tag: tag, type: type, count: count)
        }
    }

    /// The first entry tagged `tag` in the directory at `base`.
    func entry(_ tag: UInt16, inDirectoryAt base: Int) -> Entry? {
        entries(ofDirectoryAt: base).first { $0.tag == tag }
    }

    /// The size in bytes of one value of a TIFF type, or `nil` for an unknown type.
    static func size(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11, 13: 4  // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12: 8  // RATIONAL, SRATIONAL, DOUBLE
        default: nil
        }
    }

    /// Where value `index` of `entry` starts: in the entry's value field when all its values fit
    /// in 4 bytes, else at the offset stored there. `nil` when the value lies outside the bytes.
    func position(of entry: Entry, at index: Int) -> Int? {
        guard let size = Self.size(ofType: entry.type), index >= 0, UInt32(index) < entry.count else { return nil }
        let total = UInt64(entry.count) * UInt64(size)
        var start = entry.position + 8
        if total > 4 {
            guard let offset = uint32(at: entry.position + 8), UInt64(offset) + total <= UInt64(bytes.count) else {
                return nil
            }
            start = Int(offset)
        }
        let position = start + index * size
        return position + size <= bytes.count ? position : nil
    }

    /// Value `index` of a BYTE, SHORT, LONG, IFD or (signed) SBYTE, SSHORT, SLONG entry.
    func integer(of entry: Entry, at index: Int = 0) -> Int? {
        guard let position = position(of: entry, at: index) else { return nil }
        let start = bytes.startIndex + position
        switch entry.type {
        case 1: return Int(bytes[start])
        case 6: return Int(Int8(bitPattern: bytes[start]))
        case 3: return uint16(at: position).map { Int($0) }
        case 8: return uint16(at: position).map { Int(Int16(bitPattern: $0)) }
        case 4, 13: return uint32(at: position).map { Int($0) }
        case 9: return uint32(at: position).map { Int(Int32(bitPattern: $0)) }
        default: return nil
        }
    }

    /// Value `index` of a RATIONAL or SRATIONAL entry; an integer entry reads as itself over 1.
    func rational(of entry: Entry, at index: Int = 0) -> Rational? {
        switch entry.type {
        case 5, 10:
            guard let position = position(of: entry, at: index), let numerator = uint32(at: position),
                let denominator = uint32(at: position + 4)
            else { return nil }
            if entry.type == 5 { return Rational(numerator: Int64(numerator), denominator: Int64(denominator)) }
            return Rational(
                numerator: Int64(Int32(bitPattern: numerator)), denominator: Int64(Int32(bitPattern: denominator)))
        default:
            return integer(of: entry, at: index).map { Rational(numerator: Int64($0), denominator: 1) }
        }
    }

    /// The text of an ASCII (or UNDEFINED) entry up to its first NUL, with trailing spaces
    /// removed; `nil` when empty or when the values lie outside the bytes. Bytes that are not
    /// UTF-8 are replaced (U+FFFD), as some cameras write Latin-1.
    func text(of entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, entry.count > 0, let first = position(of: entry, at: 0) else {
            return nil
        }
        let values = bytes[(bytes.startIndex + first)..<(bytes.startIndex + first + Int(entry.count))]
        let content = values.prefix { $0 != 0 }
        let text = String(decoding: content, as: UTF8.self)
        let trimmed = String(text.reversed().drop { $0 == " " }.reversed())
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The offset of the directory that entry `tag` of the directory at `base` points to, when it
    /// is a readable directory.
    func subdirectory(_ tag: UInt16, inDirectoryAt base: Int) -> Int? {
        guard let entry = entry(tag, inDirectoryAt: base), let offset = integer(of: entry), offset >= 8,
            uint16(at: offset) != nil
        else { return nil }
        return offset
    }
}
