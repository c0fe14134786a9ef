/// EXIF metadata as a TIFF structure: the bytes from the byte-order mark on, without the
/// `Exif\0\0` prefix a JPEG APP1 segment puts before them.
///
/// Edits are made in place: a removed directory is overwritten with zeros rather than cut out, so
/// every other offset (the MakerNote's private ones included) stays valid. Malformed blocks are
/// edited as far as they can be read; every read and write is bounds-checked, directories are
/// followed to a fixed depth (IFD0, its Exif, GPS and next directory, Exif's Interop directory), and
/// an edit allocates at most one copy of the block.
public struct EXIFBlock: Sendable, Hashable {
    /// The TIFF structure; offsets inside it count from its first byte.
    public let bytes: [UInt8]

    /// Wraps a TIFF structure as it is, valid or not.
    /// - Parameter bytes: the bytes from the byte-order mark on.
    public init(tiff bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Wraps a JPEG APP1 payload (starting `Exif\0\0`) or bare TIFF bytes, dropping the prefix.
    /// - Parameter bytes: the payload after the segment's length field, or a TIFF structure.
    /// - Returns: `nil` unless the bytes (after the optional prefix) start `II*\0` or `MM\0*`.
    public init?(app1OrTIFF bytes: [UInt8]) {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        let tiff = bytes.starts(with: prefix) ? Array(bytes.dropFirst(prefix.count)) : bytes
        guard tiff.starts(with: [0x49, 0x49, 42, 0]) || tiff.starts(with: [0x4D, 0x4D, 0, 42]) else { return nil }
        self.bytes = tiff
    }

    /// Whether IFD0 has a GPS pointer (tag 0x8825) to a readable directory with at least one entry.
    public var hasGPS: Bool {
        guard let (tiff, layout) = readLayout(), let gps = layout.gps else { return false }
        return tiff.entryCount(ofIFDAt: gps) > 0
    }

    /// The Orientation tag (0x0112) of IFD0 as stored, or `nil` (see ``EXIFReader/orientation(inTIFF:)``).
    public var orientation: Int? {
        EXIFReader.orientation(inTIFF: bytes[...])
    }

    /// A copy edited for writing into an output file; everything not named here keeps its offset.
    /// - Parameters:
    ///   - orientation: when non-nil, the value every Orientation tag of IFD0 is set to, stored
    ///     as SHORT (as EXIF says), SSHORT, LONG or SLONG, each of its values (a tag may be
    ///     repeated, or hold more than one value); no tag is added, and a value outside
    ///     `0...65535` is ignored.
    ///   - removingGPS: removes the GPS pointer entry from IFD0 (later entries move up, the count
    ///     drops, the freed 12 bytes become zeros) and zeros the GPS directory and its values.
    ///   - removingThumbnail: sets IFD0's next-directory offset to 0 and zeros IFD1, its values and
    ///     the thumbnail (JPEG or strips); the block is then cut after the last byte still
    ///     referenced when only zeros follow it and every kept entry's extent is known.
    /// - Returns: the edited block; bytes shared with a kept directory or value stay as they were.
    ///   When overlapping offsets would make the edit cost more than a few passes over the block,
    ///   the result is a minimal block holding only the orientation.
    public func edited(orientation: Int?, removingGPS: Bool, removingThumbnail: Bool) -> EXIFBlock {
        guard let (source, layout) = readLayout() else { return self }
        var output = source
        if removingGPS || removingThumbnail {
            guard let keptEnd = erase(layout, into: &output, gps: removingGPS, thumbnail: removingThumbnail) else {
                return EXIFBlock.minimal(bigEndian: source.bigEndian, orientation: orientation ?? self.orientation)
            }
            if removingGPS { output.removeEntries(tagged: EXIFLayout.gpsTag, fromIFDAt: layout.ifd0) }
            if removingThumbnail {
                output.setUInt32(0, at: layout.ifd0 + 2 + 12 * Int(output.uint16(at: layout.ifd0) ?? 0))
            }
            // Cut the tail only when it held nothing but IFD1 and every kept value's extent is known.
            if removingThumbnail, layout.ifd1 != nil {
                let opaque = [layout.ifd0, layout.exif, layout.interop, removingGPS ? nil : layout.gps]
                    .contains { $0.map(source.hasOpaqueEntries(inIFDAt:)) ?? false }
                if !opaque, keptEnd < output.bytes.count, output.bytes[keptEnd...].allSatisfy({ $0 == 0 }) {
                    output.bytes.removeSubrange(keptEnd...)
                }
            }
        }
        if let orientation, let value = UInt16(exactly: orientation) {
            output.setOrientation(value, inIFDAt: layout.ifd0)
        }
        // Directories that overlap can make an edit change what the block says elsewhere (a
        // cleared next-directory offset that was also part of another offset, say, bringing a
        // GPS directory into view): what was removed must be gone, or only the orientation is kept.
        let result = EXIFBlock(tiff: output.bytes)
        if (removingGPS && result.hasGPS) || (removingThumbnail && result.hasThumbnailDirectory) {
            return EXIFBlock.minimal(bigEndian: source.bigEndian, orientation: orientation ?? self.orientation)
        }
        return result
    }

    /// Whether IFD0 points to a readable next directory (IFD1, the thumbnail's).
    var hasThumbnailDirectory: Bool {
        readLayout()?.layout.ifd1 != nil
    }

    /// Why the block holds no readable TIFF structure (a header cut short, a first directory,
    /// IFD0, outside the block or inside its header), in a few words; `nil` when it does, even
    /// with no entry. Writers leave such a block out: it says nothing, and libavif refuses some.
    var readProblem: String? {
        guard readLayout() == nil else { return nil }
        guard let tiff = TIFFBytes(bytes), let first = tiff.uint32(at: 4) else {
            return "it is \(bytes.count) bytes, shorter than a TIFF header"
        }
        return first < 8
            ? "its first directory (IFD0) would be at byte \(first), inside the TIFF header"
            : "its first directory (IFD0) would be at byte \(first), past its end (\(bytes.count) bytes)"
    }

    /// The block's TIFF structure and the directories the editor knows, or `nil` when unreadable.
    func readLayout() -> (tiff: TIFFBytes, layout: EXIFLayout)? {
        guard let tiff = TIFFBytes(bytes), let layout = EXIFLayout(tiff) else { return nil }
        return (tiff, layout)
    }

    /// Zeros the removed directories in `output`, then copies every kept range back from the source.
    /// - Returns: the end of the highest kept range, or `nil` when the work budget ran out.
    private func erase(_ layout: EXIFLayout, into output: inout TIFFBytes, gps: Bool, thumbnail: Bool) -> Int? {
        let source = output
        // Honest blocks touch each byte about twice; only overlapping offsets can exhaust this.
        var budget = 4 * bytes.count + 4096
        var keptEnd = min(8, bytes.count)
        func zero(_ range: Range<Int>) {
            budget -= range.count
            if budget >= 0 { for index in range { output.bytes[index] = 0 } }
        }
        if gps, let ifd = layout.gps { source.forEachRange(ofIFDAt: ifd, includingImageData: false, zero) }
        if thumbnail, let ifd = layout.ifd1 { source.forEachRange(ofIFDAt: ifd, includingImageData: true, zero) }
        let kept: [(Int?, Bool)] = [
            (layout.ifd0, false), (layout.exif, false), (layout.interop, false),
            (gps ? nil : layout.gps, false), (thumbnail ? nil : layout.ifd1, true),
        ]
        for case let (ifd?, imageData) in kept {
            source.forEachRange(ofIFDAt: ifd, includingImageData: imageData) { range in
                keptEnd = max(keptEnd, range.upperBound)
                budget -= range.count
                if budget >= 0 { for index in range { output.bytes[index] = source.bytes[index] } }
            }
        }
        for index in 0..<min(8, bytes.count) { output.bytes[index] = source.bytes[index] }
        return budget >= 0 ? keptEnd : nil
    }

    /// A header and an IFD0 holding at most the Orientation tag.
    static func minimal(bigEndian: Bool, orientation: Int?) -> EXIFBlock {
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        var tiff = TIFFBytes(bytes: order + [UInt8](repeating: 0, count: 12), bigEndian: bigEndian)
        tiff.setUInt16(42, at: 2)
        tiff.setUInt32(8, at: 4)
        if let value = orientation.flatMap({ UInt16(exactly: $0) }) {
            tiff.bytes.insert(contentsOf: [UInt8](repeating: 0, count: 12), at: 10)
            tiff.setUInt16(1, at: 8)
            tiff.setUInt16(EXIFReader.orientationTag, at: 10)
            tiff.setUInt16(3, at: 12)
            tiff.setUInt32(1, at: 14)
            tiff.setUInt16(value, at: 18)
        }
        return EXIFBlock(tiff: tiff.bytes)
    }
}

/// The directories of an EXIF block that the editor knows, as offsets of readable directories.
struct EXIFLayout {
    static let exifTag: UInt16 = 0x8769
    static let gpsTag: UInt16 = 0x8825
    static let interopTag: UInt16 = 0xA005

    let ifd0: Int
    let exif: Int?
    let interop: Int?
    let gps: Int?
    /// The thumbnail directory, IFD0's next directory.
    let ifd1: Int?

    init?(_ tiff: TIFFBytes) {
        // IFD0 after the 8-byte header, as TIFF requires: one that overlaps it is not read.
        guard let first = tiff.uint32(at: 4), first >= 8, tiff.uint16(at: Int(first)) != nil else { return nil }
        let ifd0 = Int(first)
        let exif = tiff.subIFD(tagged: Self.exifTag, inIFDAt: ifd0)
        let next = tiff.uint16(at: ifd0).flatMap { tiff.uint32(at: ifd0 + 2 + 12 * Int($0)) }
        self.ifd0 = ifd0
        self.exif = exif
        interop = exif.flatMap { tiff.subIFD(tagged: Self.interopTag, inIFDAt: $0) }
        gps = tiff.subIFD(tagged: Self.gpsTag, inIFDAt: ifd0)
        ifd1 = next.flatMap { $0 != 0 && tiff.uint16(at: Int($0)) != nil ? Int($0) : nil }
    }
}

/// One 12-byte directory entry: where it starts, its tag, type and value count.
struct TIFFEntry {
    let position: Int
    let tag: UInt16
    let type: UInt16
    let count: UInt32
}

/// Bounds-checked reads and writes on a TIFF structure; offsets count from its first byte.
struct TIFFBytes {
    var bytes: [UInt8]
    /// `true` for `MM`, `false` for `II`.
    let bigEndian: Bool

    init(bytes: [UInt8], bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    /// `nil` unless the bytes start with a byte-order mark and the number 42.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8, bytes[0] == bytes[1], bytes[0] == 0x49 || bytes[0] == 0x4D else { return nil }
        self.init(bytes: bytes, bigEndian: bytes[0] == 0x4D)
        guard uint16(at: 2) == 42 else { return nil }
    }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[offset])
        let b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }

    mutating func setUInt16(_ value: UInt16, at offset: Int) {
        guard offset >= 0, offset <= bytes.count - 2 else { return }
        bytes[offset] = UInt8(truncatingIfNeeded: bigEndian ? value >> 8 : value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: bigEndian ? value : value >> 8)
    }

    mutating func setUInt32(_ value: UInt32, at offset: Int) {
        guard offset >= 0, offset <= bytes.count - 4 else { return }
        let high = UInt16(truncatingIfNeeded: value >> 16)
        let low = UInt16(truncatingIfNeeded: value)
        setUInt16(bigEndian ? high : low, at: offset)
        setUInt16(bigEndian ? low : high, at: offset + 2)
    }

    /// The number of whole entries present in the directory at `base`: at most the declared count.
    func entryCount(ofIFDAt base: Int) -> Int {
        guard let declared = uint16(at: base) else { return 0 }
        return min(Int(declared), (bytes.count - base - 2) / 12)
    }

    func entry(_ index: Int, ofIFDAt base: Int) -> TIFFEntry? {
        let position = base + 2 + 12 * index
        guard let tag = uint16(at: position), let type = uint16(at: position + 2),
            let count = uint32(at: position + 4)
        else { return nil }
        return TIFFEntry(position: position, tag: tag, type: type, count: count)
    }

    func entry(tagged tag: UInt16, inIFDAt base: Int) -> TIFFEntry? {
        for index in 0..<entryCount(ofIFDAt: base) {
            if let entry = entry(index, ofIFDAt: base), entry.tag == tag { return entry }
        }
        return nil
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

    /// `start..<start + length` cut to the bytes present, or `nil` when it starts past the end.
    func clamped(_ start: Int, length: UInt64) -> Range<Int>? {
        guard start >= 0, start < bytes.count, length > 0 else { return nil }
        return start..<(start + Int(min(length, UInt64(bytes.count - start))))
    }

    /// Where an entry's values live when they do not fit in its 4-byte value field.
    func outOfLineRange(of entry: TIFFEntry) -> Range<Int>? {
        guard let size = Self.size(ofType: entry.type), UInt64(entry.count) * UInt64(size) > 4,
            let offset = uint32(at: entry.position + 8)
        else { return nil }
        return clamped(Int(offset), length: UInt64(entry.count) * UInt64(size))
    }

    /// Value `index` of a SHORT, LONG or IFD entry, read in line or out of line.
    func value(of entry: TIFFEntry, at index: Int) -> UInt32? {
        guard index >= 0, index < Int(entry.count) else { return nil }
        let size: Int
        switch entry.type {
        case 3: size = 2
        case 4, 13: size = 4
        default: return nil
        }
        var position = entry.position + 8 + index * size
        if Int(entry.count) * size > 4 {
            guard let offset = uint32(at: entry.position + 8) else { return nil }
            position = Int(offset) + index * size
        }
        return size == 2 ? uint16(at: position).map(UInt32.init) : uint32(at: position)
    }

    /// The offset of a readable directory that entry `tag` of the directory at `base` points to.
    func subIFD(tagged tag: UInt16, inIFDAt base: Int) -> Int? {
        guard let entry = entry(tagged: tag, inIFDAt: base), let offset = value(of: entry, at: 0), offset != 0,
            uint16(at: Int(offset)) != nil
        else { return nil }
        return Int(offset)
    }

    /// Whether the directory has entries whose extent is unknown: unknown types or SubIFDs (0x014A).
    func hasOpaqueEntries(inIFDAt base: Int) -> Bool {
        (0..<entryCount(ofIFDAt: base)).contains { index in
            guard let entry = entry(index, ofIFDAt: base) else { return false }
            return entry.tag == 0x014A || Self.size(ofType: entry.type) == nil
        }
    }

    /// Calls `body` with the directory's bytes (count, entries, next offset), each out-of-line
    /// value and, if asked, the thumbnail: JPEGInterchangeFormat (0x0201/0x0202) or strips (0x0111/0x0117).
    func forEachRange(ofIFDAt base: Int, includingImageData: Bool, _ body: (Range<Int>) -> Void) {
        guard let declared = uint16(at: base) else { return }
        if let range = clamped(base, length: UInt64(2 + 12 * Int(declared) + 4)) { body(range) }
        for index in 0..<entryCount(ofIFDAt: base) {
            if let entry = entry(index, ofIFDAt: base), let range = outOfLineRange(of: entry) { body(range) }
        }
        guard includingImageData else { return }
        for (offsetTag, lengthTag) in [(UInt16(0x0201), UInt16(0x0202)), (0x0111, 0x0117)] {
            guard let offsets = entry(tagged: offsetTag, inIFDAt: base),
                let lengths = entry(tagged: lengthTag, inIFDAt: base)
            else { continue }
            // Stops at the first value that cannot be read, so at most bytes.count / 2 turns.
            var index = 0
            while let offset = value(of: offsets, at: index), let length = value(of: lengths, at: index) {
                if let range = clamped(Int(offset), length: UInt64(length)) { body(range) }
                index += 1
            }
        }
    }

    /// Sets every value of every Orientation entry (SHORT, SSHORT, LONG or SLONG) of the
    /// directory at `base` to `value`, in line or out of line. Writes at most one value per two
    /// bytes of the block in all, however many entries and values the directory declares.
    mutating func setOrientation(_ value: UInt16, inIFDAt base: Int) {
        var budget = bytes.count / 2 + 2
        for index in 0..<entryCount(ofIFDAt: base) where budget > 0 {
            guard let entry = entry(index, ofIFDAt: base), entry.tag == EXIFReader.orientationTag,
                let size = [3: 2, 8: 2, 4: 4, 9: 4][entry.type]
            else { continue }
            var position = entry.position + 8
            if UInt64(entry.count) * UInt64(size) > 4 {
                guard let offset = uint32(at: entry.position + 8) else { continue }
                position = Int(offset)
            }
            for number in 0..<min(Int(entry.count), budget) {
                let at = position + number * size
                guard at >= 0, at <= bytes.count - size else { break }
                budget -= 1
                if size == 2 { setUInt16(value, at: at) } else { setUInt32(UInt32(value), at: at) }
            }
        }
    }

    /// Removes every entry tagged `tag` from the directory at `base`: later entries and the
    /// next-directory offset move up, the count drops, and the freed bytes become zeros.
    mutating func removeEntries(tagged tag: UInt16, fromIFDAt base: Int) {
        guard let declared = uint16(at: base) else { return }
        let present = entryCount(ofIFDAt: base)
        var kept = 0
        for index in 0..<present where uint16(at: base + 2 + 12 * index) != tag {
            let from = base + 2 + 12 * index
            let to = base + 2 + 12 * kept
            if from != to { for offset in 0..<12 { bytes[to + offset] = bytes[from + offset] } }
            kept += 1
        }
        let shift = 12 * (present - kept)
        guard shift > 0 else { return }
        let end = min(bytes.count, base + 2 + 12 * Int(declared) + 4)
        for offset in (base + 2 + 12 * present)..<end { bytes[offset - shift] = bytes[offset] }
        for offset in (end - shift)..<end { bytes[offset] = 0 }
        setUInt16(declared - UInt16(present - kept), at: base)
    }
}
