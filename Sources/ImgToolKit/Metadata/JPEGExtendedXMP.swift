/// A JPEG's extended XMP (XMP specification, part 3, 1.1.3.1): what does not fit the main
/// packet's APP1 segment, as a second packet split over APP1 segments that each start
/// `http://ns.adobe.com/xmp/extension/\0`, then the packet's GUID (32 hex digits, the MD5 of its
/// text), its full length and the chunk's offset (4 bytes each, big-endian), then the chunk. The
/// main packet names it by its `xmpNote:HasExtendedXMP` property.
struct JPEGExtendedXMP {
    /// The GUID, as stored (32 bytes).
    let guid: [UInt8]
    /// The packet's text, reassembled.
    let text: [UInt8]
    /// The segments holding it, whole, in file order.
    let segments: [Range<Int>]

    /// What a JPEG's extended XMP segments hold: the packet the main packet names, when it can be
    /// reassembled and parsed, and why some or all of them cannot be used (they are then left out).
    struct Reading {
        var packet: JPEGExtendedXMP?
        var problem: String?
        /// Every extended XMP segment, whole.
        var allSegments: [Range<Int>] = []
    }

    /// What starts an extended XMP segment: the namespace and a NUL.
    static let signature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    /// The bytes before a chunk: the signature, the GUID, the full length and the offset.
    static let headerCount = signature.count + 32 + 8
    /// The most bytes of a chunk in one segment.
    static let maxChunk = 65_533 - headerCount
    /// The longest extended packet read (larger ones are left out): 16 MiB.
    static let maxBytes = 16 << 20

    /// Reads the extended XMP of `jpeg`, whose segments before the first scan are `segments`;
    /// `mainPacket` is the main XMP packet (`nil` when there is none, or it is left out).
    static func read(_ jpeg: [UInt8], segments: [JPEGSegmentLayout.Segment], mainPacket: [UInt8]?) -> Reading {
        let ours = segments.filter { $0.marker == 0xE1 && jpeg[$0.payload].starts(with: signature) }
        var reading = Reading(allSegments: ours.map(\.whole))
        guard !ours.isEmpty else { return reading }
        guard let mainPacket, let reference = referencedGUID(in: mainPacket) else {
            reading.problem = "is not named by a main XMP packet (xmpNote:HasExtendedXMP)"
            return reading
        }
        let named = Array(mainPacket[reference])
        var chunks: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        var lengths = Set<Int>()
        var mine: [Range<Int>] = []
        var strays = 0
        for segment in ours {
            let base = segment.payload.lowerBound + signature.count
            guard segment.payload.count >= headerCount, Array(jpeg[base..<base + 32]) == named else {
                strays += 1
                continue
            }
            lengths.insert(bigEndian(jpeg, at: base + 32))
            chunks.append((bigEndian(jpeg, at: base + 36), jpeg[(base + 40)..<segment.payload.upperBound]))
            mine.append(segment.whole)
        }
        if strays > 0 {
            let segments = strays == 1 ? "segment" : "segments"
            reading.problem = "has \(strays) \(segments) with another GUID than the main XMP packet names"
        }
        guard !chunks.isEmpty else { return reading }
        let text: [UInt8]
        switch assemble(chunks, lengths: lengths) {
        case .success(let bytes): text = bytes
        case .failure(let failure):
            reading.problem = "cannot be reassembled (\(failure.reason))"
            return reading
        }
        if let problem = XMPPacket(bytes: text).parseProblem {
            reading.problem = "cannot be parsed as XML (\(problem))"
            return reading
        }
        reading.packet = JPEGExtendedXMP(guid: named, text: text, segments: mine)
        return reading
    }

    private struct Failure: Error {
        let reason: String
    }

    /// The chunks in offset order, which must cover the one declared length exactly.
    private static func assemble(_ chunks: [(offset: Int, bytes: ArraySlice<UInt8>)], lengths: Set<Int>) -> Result<
        [UInt8], Failure
    > {
        guard lengths.count == 1, let full = lengths.first else {
            return .failure(Failure(reason: "its segments disagree on its length"))
        }
        guard full <= maxBytes else {
            return .failure(
                Failure(reason: "its length, \(full) bytes, is over the limit of \(maxBytes) bytes"))
        }
        var text: [UInt8] = []
        for chunk in chunks.sorted(by: { $0.offset < $1.offset }) {
            guard chunk.offset == text.count else {
                let what = chunk.offset > text.count ? "missing" : "given twice"
                return .failure(Failure(reason: "bytes from \(min(chunk.offset, text.count)) are \(what)"))
            }
            guard text.count + chunk.bytes.count <= full else {
                return .failure(Failure(reason: "its segments hold more than its length, \(full) bytes"))
            }
            text += chunk.bytes
        }
        guard text.count == full else {
            return .failure(Failure(reason: "it ends at byte \(text.count) of \(full)"))
        }
        return .success(text)
    }

    private static func bigEndian(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }

    /// Where the main packet's `HasExtendedXMP` value (32 hex digits, as an attribute or as an
    /// element's text) is, if it has one.
    static func referencedGUID(in packet: [UInt8]) -> Range<Int>? {
        let name = Array(":HasExtendedXMP".utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var at = 0
        while at + name.count <= packet.count {
            defer { at += 1 }
            guard packet[at..<at + name.count].elementsEqual(name) else { continue }
            var cursor = at + name.count
            while cursor < packet.count, isSpace(packet[cursor]) { cursor += 1 }
            guard cursor < packet.count else { return nil }
            var start: Int
            var end: Int
            if packet[cursor] == UInt8(ascii: "=") {
                cursor += 1
                while cursor < packet.count, isSpace(packet[cursor]) { cursor += 1 }
                guard cursor < packet.count,
                    packet[cursor] == UInt8(ascii: "\"") || packet[cursor] == UInt8(ascii: "'"),
                    let close = packet[(cursor + 1)...].firstIndex(of: packet[cursor])
                else { continue }
                (start, end) = (cursor + 1, close)
            } else {
                guard let close = packet[cursor...].firstIndex(of: UInt8(ascii: ">")),
                    packet[close - 1] != UInt8(ascii: "/"),
                    let next = packet[(close + 1)...].firstIndex(of: UInt8(ascii: "<"))
                else { continue }
                (start, end) = (close + 1, next)
            }
            while start < end, isSpace(packet[start]) { start += 1 }
            while end > start, isSpace(packet[end - 1]) { end -= 1 }
            let hex = packet[start..<end]
            if hex.count == 32,
                hex.allSatisfy({
                    UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9")
                        || UInt8(ascii: "A") <= $0 && $0 <= UInt8(ascii: "F")
                        || UInt8(ascii: "a") <= $0 && $0 <= UInt8(ascii: "f")
                })
            {
                return start..<end
            }
        }
        return nil
    }

    /// The data (after the marker and length) of the segments that hold `text` under `guid`.
    static func segmentData(for text: [UInt8], guid: [UInt8]) -> [[UInt8]] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        return stride(from: 0, to: max(text.count, 1), by: maxChunk).map { offset in
            signature + guid + bigEndian(text.count) + bigEndian(offset)
                + text[offset..<min(text.count, offset + maxChunk)]
        }
    }
}
