#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a JPEG's data ends: at its end-of-image marker (EOI), or cut short, and then how much of
/// it libjpeg should be given.
///
/// libjpeg finds a cut only when it reaches it, part way through decoding (its "Premature end of
/// JPEG file" warning, `JWRN_JPEG_EOF`): it then inserts an EOI of its own, and leaves the rest of
/// the image as its coefficients are, zero, which is mid grey. Walking the markers first tells a
/// reader that the file is cut before any pixel is decoded, so the cut is reported with the
/// image's other warnings when it is opened, and the decoders that split the work between two
/// threads (which give up on any warning) are not tried.
///
/// The walk follows each marker segment's length, and the entropy-coded data after each
/// start-of-scan (SOS) marker up to the next marker (a 0xFF not followed by 0x00, a restart
/// marker or another 0xFF). A cut inside the entropy-coded data keeps every byte: libjpeg decodes
/// what arrived. A cut inside a marker segment after the first scan (a Huffman table or the
/// header of a later scan of a progressive file) keeps the bytes before that marker, so that
/// libjpeg meets the end of the data between two segments, where its own EOI ends the image
/// cleanly, instead of reading its EOI as the rest of a table.
struct JPEGDataEnd: Sendable, Hashable {
    /// How many of the file's bytes to give libjpeg: all of them, unless the data ends inside a
    /// marker segment after the first scan.
    var usableLength: Int
    /// Why the data is cut, as the warning says it; `nil` when the data reaches EOI, or ends
    /// before the first scan's data (libjpeg then finds no image, an error).
    var truncation: String?

    /// Walks the markers of `data` (a file starting with SOI).
    init(of data: [UInt8]) {
        usableLength = data.count
        truncation = nil
        // Nearly every file ends with its EOI; anything else (bytes after EOI, a cut) is walked.
        if data.count >= 4, data[data.count - 2] == 0xFF, data[data.count - 1] == 0xD9 { return }
        let walk = data.withUnsafeBufferPointer { Self.walk($0) }
        guard let cut = walk else { return }
        usableLength = cut.usable
        truncation = cut.message
    }

    /// The cut in `bytes`, or `nil` when they reach EOI or end before the first scan's data.
    private static func walk(_ bytes: UnsafeBufferPointer<UInt8>) -> (usable: Int, message: String)? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var at = 2  // after SOI
        var scans = 0
        var progressive = false
        func cut(usable: Int, _ place: String) -> (usable: Int, message: String)? {
            guard scans > 0 else { return nil }
            let shown =
                progressive
                ? "showing the scans that arrived, the rows no scan reached grey"
                : "showing the rows that arrived, the rest grey"
            return (usable, "truncated JPEG: the data ends at byte \(count), \(place); \(shown)")
        }
        while true {
            // A marker: 0xFF (any number of them), then its code; libjpeg skips other bytes
            // between segments with a warning.
            guard let found = memchr(base + at, 0xFF, count - at) else {
                return cut(usable: count, "before the end-of-image marker")
            }
            let start = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var code = start + 1
            while code < count && bytes[code] == 0xFF { code += 1 }
            guard code < count else { return cut(usable: start, "in a marker") }
            let marker = bytes[code]
            at = code + 1
            switch marker {
            case 0xD9:
                return nil  // EOI
            case 0x01, 0xD0...0xD8:
                continue  // no length
            default:
                break
            }
            guard at + 2 <= count else { return cut(usable: start, "in a marker segment's length") }
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            guard length >= 2, at + length <= count else {
                return cut(usable: start, "in the marker segment 0xFF\(hex(marker)) at byte \(start)")
            }
            if marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE { progressive = true }
            at += length
            guard marker == 0xDA else { continue }
            // SOS: its entropy-coded data runs up to the next marker.
            scans += 1
            guard let end = entropyDataEnd(bytes, from: at) else {
                let place = progressive ? "in the data of scan \(scans)" : "in the scan data"
                return cut(usable: count, place)
            }
            at = end
        }
    }

    /// Where the entropy-coded data starting at `start` ends: the 0xFF of the next marker (one
    /// not followed by 0x00 or a restart marker code), or `nil` when the data ends first.
    private static func entropyDataEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var at = start
        while at < bytes.count, let found = memchr(base + at, 0xFF, bytes.count - at) {
            let ff = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var next = ff + 1
            while next < bytes.count && bytes[next] == 0xFF { next += 1 }  // fill bytes
            guard next < bytes.count else { return nil }
            let code = bytes[next]
            if code == 0x00 || (0xD0...0xD7).contains(code) {
                at = next + 1
                continue
            }
            return next - 1
        }
        return nil
    }

    private static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }
}
