extension EXIFBlock {
    /// What ``fitted(within:)`` made of a block: the block to write (`nil` when nothing could be
    /// kept) and what was left out, one phrase each, largest first.
    struct Fitting: Equatable {
        /// The block to write, at most the size asked; `nil` when nothing could be kept.
        let block: EXIFBlock?
        /// What the rebuilt block lacks: `MakerNote (12,345 bytes)`, `UserComment (70,000
        /// bytes)`, `177,800 bytes no tag points to`. Empty when the block fitted as it was.
        let leftOut: [String]

        /// One sentence for the user, naming `container`: how large the block was, what was kept
        /// and what was left out; `nil` when the block fitted as it was.
        func note(original: Int, limit: Int, container: String) -> String? {
            guard !leftOut.isEmpty else { return nil }
            let size =
                "the EXIF block (\(Self.grouped(original)) bytes) is larger than \(container) holds (\(Self.grouped(limit)))"
            guard let block else { return "\(size): it is left out" }
            // A hostile block can lose thousands of tags: the first five are named, the rest counted.
            let named = leftOut.count > 6 ? leftOut.prefix(5) + ["\(leftOut.count - 5) other tags"] : leftOut[...]
            return "\(size): rebuilt in \(Self.grouped(block.bytes.count)) bytes without "
                + named.joined(separator: ", ")
        }

        /// `value` with commas between thousands: 192,168.
        static func grouped(_ value: Int) -> String {
            var digits = String(value)
            var at = digits.count - 3
            while at > 0 {
                digits.insert(",", at: digits.index(digits.startIndex, offsetBy: at))
                at -= 3
            }
            return digits
        }
    }

    /// This block in at most `limit` bytes: as it is when it fits, otherwise rebuilt.
    ///
    /// The rebuilt block is a new TIFF structure in the same byte order: IFD0, the Exif
    /// directory, its Interop directory and the GPS directory (those present), one after the
    /// other, each followed by its values, every offset computed anew; no thumbnail directory.
    /// Left out, in this order, until it fits:
    /// - whatever no kept tag points to (the bytes of a removed thumbnail, data a camera appends);
    /// - the MakerNote (0x927C), whose private offsets would not survive the move, and tags
    ///   whose values cannot be moved or read: SubIFDs (0x014A), strip and JPEG-thumbnail
    ///   pointers in IFD0, unknown types, values outside the block;
    /// - the largest remaining values, one at a time.
    /// The directories stay in their order and keep every other tag (Make, Model, dates, exposure).
    /// - Parameter limit: the most bytes the block may take.
    /// - Returns: the block and what it lacks; no block when its directories alone exceed `limit`
    ///   or it cannot be read.
    func fitted(within limit: Int) -> Fitting {
        guard bytes.count > limit else { return Fitting(block: self, leftOut: []) }
        guard let (tiff, layout) = readLayout() else { return Fitting(block: nil, leftOut: ["all of it (unreadable)"]) }
        var rebuild = EXIFRebuild(tiff, layout)
        var leftOut = rebuild.unmovable.sorted { $0.bytes > $1.bytes }
        if rebuild.unreferenced > 0 {
            leftOut.insert(
                ("\(Fitting.grouped(rebuild.unreferenced)) bytes no tag points to", rebuild.unreferenced), at: 0)
        }
        while rebuild.size > limit {
            guard let dropped = rebuild.dropLargestValue() else {
                return Fitting(block: nil, leftOut: ["all of it"])
            }
            leftOut.append(dropped)
        }
        return Fitting(block: EXIFBlock(tiff: rebuild.serialized()), leftOut: leftOut.map(\.what))
    }
}

/// The directories of an EXIF block as values, to be written again with new offsets.
private struct EXIFRebuild {
    /// One entry: its 12 bytes' fields, its value in line (4 bytes) or out of line.
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: UInt32
        /// The 4-byte value field as stored (values that fit; a pointer's is rewritten).
        let field: [UInt8]
        /// The value when it does not fit in the field.
        let value: [UInt8]?
        /// The directory this entry points to (Exif, GPS, Interop), by its place in ``directories``.
        let pointsTo: Int?
    }

    let bigEndian: Bool
    /// IFD0, then Exif, Interop and GPS when present; a pointer's ``Entry/pointsTo`` names one.
    var directories: [[Entry]] = []
    /// Tags left out because they cannot be moved or read, with their sizes.
    var unmovable: [(what: String, bytes: Int)] = []
    /// Bytes of the block that no directory, kept or not, reaches.
    var unreferenced = 0

    init(_ tiff: TIFFBytes, _ layout: EXIFLayout) {
        bigEndian = tiff.bigEndian
        let bases = [layout.ifd0, layout.exif, layout.interop, layout.gps]
        // Which directory a pointer tag leads to, in `directories` (filled below, in this order).
        var index: [Int: Int] = [:]
        var unique: [Int] = []
        for base in bases.compactMap({ $0 }) where index[base] == nil {
            index[base] = unique.count
            unique.append(base)
        }
        // What the directories reach, as ranges (a value of odd length with its pad byte: TIFF puts
        // values on even offsets), merged at the end: no per-byte work however values overlap.
        var reached: [Range<Int>] = [0..<min(8, tiff.bytes.count)]
        func reach(_ range: Range<Int>) {
            reached.append(range.lowerBound..<min(range.upperBound + range.upperBound % 2, tiff.bytes.count))
        }
        // Values are copied once each in an honest block; overlapping ones stop at the block's size.
        var budget = tiff.bytes.count
        for base in unique {
            tiff.forEachRange(ofIFDAt: base, includingImageData: false, reach)
            var entries: [Entry] = []
            for number in 0..<tiff.entryCount(ofIFDAt: base) {
                guard let entry = tiff.entry(number, ofIFDAt: base) else { continue }
                if let kept = Self.entry(entry, in: tiff, base: base, layout: layout, index: index, budget: &budget) {
                    entries.append(kept)
                } else if let reason = Self.reason(entry, in: tiff, base: base, layout: layout) {
                    unmovable.append(reason)
                }
            }
            directories.append(entries)
        }
        var covered = 0
        var end = 0
        for range in reached.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            covered += max(0, range.upperBound - max(range.lowerBound, end))
            end = max(end, range.upperBound)
        }
        unreferenced = tiff.bytes.count - covered
    }

    /// The entry as it will be written, or `nil` when it cannot be moved.
    private static func entry(
        _ entry: TIFFEntry, in tiff: TIFFBytes, base: Int, layout: EXIFLayout, index: [Int: Int], budget: inout Int
    ) -> Entry? {
        let pointer: Int??
        switch (base, entry.tag) {
        case (layout.ifd0, EXIFLayout.exifTag): pointer = .some(layout.exif.flatMap { index[$0] })
        case (layout.ifd0, EXIFLayout.gpsTag): pointer = .some(layout.gps.flatMap { index[$0] })
        case (layout.exif, EXIFLayout.interopTag): pointer = .some(layout.interop.flatMap { index[$0] })
        default: pointer = .none
        }
        if let target = pointer {
            // A pointer to a directory that cannot be read is dropped with it.
            guard let target else { return nil }
            return Entry(tag: entry.tag, type: 4, count: 1, field: [0, 0, 0, 0], value: nil, pointsTo: target)
        }
        guard !unmovableTags(base == layout.ifd0).contains(entry.tag),
            let size = TIFFBytes.size(ofType: entry.type)
        else { return nil }
        let field = Array(tiff.bytes[(entry.position + 8)..<(entry.position + 12)])
        let length = UInt64(entry.count) * UInt64(size)
        guard length > 4 else {
            return Entry(tag: entry.tag, type: entry.type, count: entry.count, field: field, value: nil, pointsTo: nil)
        }
        guard let offset = tiff.uint32(at: entry.position + 8), UInt64(offset) + length <= UInt64(tiff.bytes.count),
            length <= UInt64(budget)
        else { return nil }
        budget -= Int(length)
        let value = Array(tiff.bytes[Int(offset)..<(Int(offset) + Int(length))])
        return Entry(tag: entry.tag, type: entry.type, count: entry.count, field: field, value: value, pointsTo: nil)
    }

    /// Tags whose values hold offsets this rebuild cannot follow: the MakerNote's private ones,
    /// and in IFD0 SubIFDs and the pointers to image data (strips, a JPEG thumbnail).
    private static func unmovableTags(_ isIFD0: Bool) -> Set<UInt16> {
        isIFD0 ? [0x927C, 0x014A, 0x0111, 0x0117, 0x0201, 0x0202] : [0x927C, 0x014A]
    }

    /// Why `entry` is left out, with its size, or `nil` for a pointer to a directory that is gone.
    private static func reason(_ entry: TIFFEntry, in tiff: TIFFBytes, base: Int, layout: EXIFLayout) -> (
        what: String, bytes: Int
    )? {
        if [EXIFLayout.exifTag, EXIFLayout.gpsTag, EXIFLayout.interopTag].contains(entry.tag) { return nil }
        let size = TIFFBytes.size(ofType: entry.type).map { Int(min(UInt64(entry.count) * UInt64($0), 1 << 40)) }
        let name = tagName(entry.tag)
        guard let size else { return ("\(name) (of unknown type \(entry.type))", 0) }
        if entry.tag == 0x927C { return ("the MakerNote (\(EXIFBlock.Fitting.grouped(size)) bytes)", size) }
        if unmovableTags(base == layout.ifd0).contains(entry.tag) {
            return ("\(name), which points to data outside its directory", size)
        }
        return ("\(name) (its value lies past the block's end, or over other values)", size)
    }

    /// `UserComment (0x9286)` for the tags large enough to be dropped, `tag 0xABCD` otherwise.
    static func tagName(_ tag: UInt16) -> String {
        let names: [UInt16: String] = [
            0x927C: "MakerNote", 0x9286: "UserComment", 0xA40B: "DeviceSettingDescription",
            0x8773: "InterColorProfile", 0x02BC: "ApplicationNotes", 0xC4A5: "PrintIM", 0xEA1C: "Padding",
            0x014A: "SubIFDs", 0x0111: "StripOffsets", 0x0117: "StripByteCounts",
            0x0201: "JPEGInterchangeFormat", 0x0202: "JPEGInterchangeFormatLength", 0x010E: "ImageDescription",
            0x9C9C: "XPComment", 0xA420: "ImageUniqueID",
        ]
        let hex = String(tag, radix: 16, uppercase: true)
        let code = "0x" + String(repeating: "0", count: 4 - hex.count) + hex
        return names[tag].map { "\($0) (\(code))" } ?? "tag \(code)"
    }

    /// The bytes the block will take: the header, then each directory and its values, each
    /// value on an even offset.
    var size: Int {
        8 + directories.reduce(0) { $0 + Self.size(of: $1) }
    }

    private static func size(of entries: [Entry]) -> Int {
        entries.reduce(2 + 12 * entries.count + 4) { $0 + (($1.value?.count ?? 0) + 1) / 2 * 2 }
    }

    /// Removes the largest out-of-line value (its entry with it); `nil` when none is left.
    mutating func dropLargestValue() -> (what: String, bytes: Int)? {
        var largest: (directory: Int, entry: Int, bytes: Int)?
        for (directory, entries) in directories.enumerated() {
            for (number, entry) in entries.enumerated() {
                if let count = entry.value?.count, count > largest?.bytes ?? 0 {
                    largest = (directory, number, count)
                }
            }
        }
        guard let largest else { return nil }
        let tag = directories[largest.directory].remove(at: largest.entry).tag
        return ("\(Self.tagName(tag)) (\(EXIFBlock.Fitting.grouped(largest.bytes)) bytes)", largest.bytes)
    }

    /// The block: header, then the directories in order, each followed by its values.
    func serialized() -> [UInt8] {
        var out = TIFFBytes(
            bytes: bigEndian ? [0x4D, 0x4D, 0, 0, 0, 0, 0, 0] : [0x49, 0x49, 0, 0, 0, 0, 0, 0], bigEndian: bigEndian)
        out.setUInt16(42, at: 2)
        out.setUInt32(8, at: 4)
        var starts: [Int] = []
        var at = 8
        for entries in directories {
            starts.append(at)
            at += Self.size(of: entries)
        }
        for (directory, entries) in directories.enumerated() {
            let base = starts[directory]
            out.bytes += [UInt8](repeating: 0, count: 2 + 12 * entries.count + 4)
            out.setUInt16(UInt16(entries.count), at: base)
            for (number, entry) in entries.enumerated() {
                let position = base + 2 + 12 * number
                out.setUInt16(entry.tag, at: position)
                out.setUInt16(entry.type, at: position + 2)
                out.setUInt32(entry.count, at: position + 4)
                if let target = entry.pointsTo {
                    out.setUInt32(UInt32(starts[target]), at: position + 8)
                } else if let value = entry.value {
                    out.setUInt32(UInt32(out.bytes.count), at: position + 8)
                    out.bytes += value
                    if value.count % 2 == 1 { out.bytes.append(0) }
                } else {
                    out.bytes.replaceSubrange((position + 8)..<(position + 12), with: entry.field)
                }
            }
        }
        return out.bytes
    }
}
