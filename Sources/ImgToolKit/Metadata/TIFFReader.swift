/// Reading typed values out of the directories of a TIFF structure (an EXIF block), in either
/// byte order, for ``EXIFSummary``: integers, rationals and text, on top of ``TIFFBytes``, which
/// reads the header, the directories and their entries, bounds-checked.
///
/// Nothing here trusts a count or an offset: an entry whose values reach past the end reads as
/// absent, a directory cut short is read as far as its whole entries go, and nothing is
/// allocated from a declared length beyond the bytes present.
struct TIFFReader {
    /// A value of type RATIONAL (5) or SRATIONAL (10).
    struct Rational: Equatable {
        var numerator: Int64
        var denominator: Int64

        /// The quotient, or `nil` for a zero denominator.
        var value: Double? {
            denominator == 0 ? nil : Double(numerator) / Double(denominator)
        }
    }

    let tiff: TIFFBytes

    /// Reads the header; `nil` unless the bytes start with `II` or `MM` and the number 42.
    init?(tiff bytes: ArraySlice<UInt8>) {
        guard let tiff = TIFFBytes(Array(bytes)) else { return nil }
        self.tiff = tiff
    }

    /// The offset of IFD0, when it lies after the header and inside the bytes.
    var firstDirectory: Int? {
        guard let offset = tiff.uint32(at: 4), offset >= 8, tiff.uint16(at: Int(offset)) != nil else { return nil }
        return Int(offset)
    }

    /// The entries present in the directory at `base`: at most the declared count, and only whole ones.
    func entries(ofDirectoryAt base: Int) -> [TIFFEntry] {
        (0..<tiff.entryCount(ofIFDAt: base)).compactMap { tiff.entry($0, ofIFDAt: base) }
    }

    /// Where value `index` of `entry` starts: in the entry's value field when all its values fit
    /// in 4 bytes, else at the offset stored there. `nil` when the value lies outside the bytes.
    func position(of entry: TIFFEntry, at index: Int) -> Int? {
        guard let size = TIFFBytes.size(ofType: entry.type), index >= 0, UInt32(index) < entry.count else {
            return nil
        }
        let total = UInt64(entry.count) * UInt64(size)
        var start = entry.position + 8
        if total > 4 {
            guard let offset = tiff.uint32(at: entry.position + 8), UInt64(offset) + total <= UInt64(tiff.bytes.count)
            else { return nil }
            start = Int(offset)
        }
        let position = start + index * size
        return position + size <= tiff.bytes.count ? position : nil
    }

    /// Value `index` of a BYTE, SHORT, LONG, IFD or (signed) SBYTE, SSHORT, SLONG entry.
    func integer(of entry: TIFFEntry, at index: Int = 0) -> Int? {
        guard let position = position(of: entry, at: index) else { return nil }
        switch entry.type {
        case 1: return Int(tiff.bytes[position])
        case 6: return Int(Int8(bitPattern: tiff.bytes[position]))
        case 3: return tiff.uint16(at: position).map { Int($0) }
        case 8: return tiff.uint16(at: position).map { Int(Int16(bitPattern: $0)) }
        case 4, 13: return tiff.uint32(at: position).map { Int($0) }
        case 9: return tiff.uint32(at: position).map { Int(Int32(bitPattern: $0)) }
        default: return nil
        }
    }

    /// Value `index` of a RATIONAL or SRATIONAL entry; an integer entry reads as itself over 1.
    func rational(of entry: TIFFEntry, at index: Int = 0) -> Rational? {
        switch entry.type {
        case 5, 10:
            guard let position = position(of: entry, at: index), let numerator = tiff.uint32(at: position),
                let denominator = tiff.uint32(at: position + 4)
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
    func text(of entry: TIFFEntry) -> String? {
        guard entry.type == 2 || entry.type == 7, entry.count > 0, let first = position(of: entry, at: 0) else {
            return nil
        }
        let content = tiff.bytes[first..<(first + Int(entry.count))].prefix { $0 != 0 }
        let text = String(decoding: content, as: UTF8.self)
        let trimmed = String(text.reversed().drop { $0 == " " }.reversed())
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The offset of the directory that entry `tag` of the directory at `base` points to, when it
    /// is a readable directory.
    func subdirectory(_ tag: UInt16, inDirectoryAt base: Int) -> Int? {
        guard let entry = tiff.entry(tagged: tag, inIFDAt: base), let offset = integer(of: entry), offset >= 8,
            tiff.uint16(at: offset) != nil
        else { return nil }
        return offset
    }
}
