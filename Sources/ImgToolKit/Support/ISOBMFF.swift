/// The boxes of an ISO base media file (AVIF, HEIF, the JPEG XL container), read in place with
/// every access bounds-checked: a malformed size ends the list of boxes, a read past the end is
/// `nil`, never a crash. For what the decoding libraries do not report (an AVIF's edit list, a
/// HEIF's item references, a JPEG XL's `jbrd` box).
struct ISOBMFF {
    /// A box: its four-character type and where its body (after the size and type) lies.
    struct Box {
        var type: String
        var body: Range<Int>
    }

    let data: [UInt8]

    init(_ data: [UInt8]) {
        self.data = data
    }

    /// The boxes laid end to end in `range` (the whole file by default), up to the first that
    /// does not fit. A size of 0 runs to the end of `range`.
    func boxes(in range: Range<Int>? = nil) -> [Box] {
        let range = range ?? 0..<data.count
        var found: [Box] = []
        var at = range.lowerBound
        while at >= 0, at + 8 <= range.upperBound, found.count < 65536 {
            guard let size32 = integer(at: at, bytes: 4), let type = fourCC(at: at + 4) else { break }
            var header = 8
            var size = size32
            if size32 == 1 {
                guard let large = integer(at: at + 8, bytes: 8) else { break }
                header = 16
                size = large
            } else if size32 == 0 {
                size = UInt64(range.upperBound - at)
            }
            guard size >= UInt64(header), size <= UInt64(range.upperBound - at) else { break }
            found.append(Box(type: type, body: (at + header)..<(at + Int(size))))
            at += Int(size)
        }
        return found
    }

    /// The boxes inside `box`, after `skipping` bytes of its body (4 for a full box's version
    /// and flags).
    func children(of box: Box, skipping: Int = 0) -> [Box] {
        guard box.body.lowerBound + skipping <= box.body.upperBound else { return [] }
        return boxes(in: (box.body.lowerBound + skipping)..<box.body.upperBound)
    }

    /// The big-endian unsigned integer of `bytes` bytes (1 ... 8) at `at`, or `nil` past the end.
    func integer(at: Int, bytes: Int) -> UInt64? {
        guard at >= 0, (1...8).contains(bytes), at + bytes <= data.count else { return nil }
        return data[at..<at + bytes].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The four characters at `at`, or `nil` past the end.
    func fourCC(at: Int) -> String? {
        guard at >= 0, at + 4 <= data.count else { return nil }
        return String(decoding: data[at..<at + 4], as: UTF8.self)
    }

    /// The TIFF bytes of an `Exif` item: the payload starts with a 4-byte offset to the TIFF
    /// header (ISO/IEC 23008-12 A.2.1); payloads that skip the offset start with the header.
    static func tiff(fromExifItem payload: [UInt8]) -> [UInt8] {
        func isTIFF(_ at: Int) -> Bool {
            payload.count >= at + 4
                && (payload[at..<at + 4].elementsEqual([0x49, 0x49, 0x2A, 0x00])
                    || payload[at..<at + 4].elementsEqual([0x4D, 0x4D, 0x00, 0x2A]))
        }
        if isTIFF(0) { return payload }
        guard payload.count >= 4 else { return payload }
        let offset = Int(payload[0]) << 24 | Int(payload[1]) << 16 | Int(payload[2]) << 8 | Int(payload[3])
        if offset <= payload.count - 4, isTIFF(4 + offset) { return Array(payload[(4 + offset)...]) }
        return payload
    }
}
