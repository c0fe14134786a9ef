/// What libavif 0.11 does not report about an AVIF image sequence, read from the ISO BMFF boxes:
/// how many times it plays, following libavif's later `repetitionCount` (as Chromium does).
///
/// The colour track is the first `trak` whose handler is `pict` and that is no auxiliary image
/// (no `tref`/`auxl`). Its edit list (`edts`/`elst`) decides: none, forever (0: the count is
/// unknown, and browsers loop); flag 1 (repeat) with an indefinite track duration, forever; flag
/// 1 otherwise, the track duration (`tkhd`) over the first segment's duration, rounded up; flag 0,
/// once. Every read is bounds-checked: a malformed box gives "forever", never a crash.
struct AVIFMovie {
    /// Plays: 0 forever, N times.
    let plays: Int

    init(_ data: [UInt8]) {
        plays = Self.plays(in: data) ?? 0
    }

    private static func plays(in data: [UInt8]) -> Int? {
        guard let moov = boxes(in: data, 0..<data.count).first(where: { $0.type == "moov" }) else { return nil }
        for trak in boxes(in: data, moov.body) where trak.type == "trak" {
            let children = boxes(in: data, trak.body)
            guard let mdia = children.first(where: { $0.type == "mdia" }),
                let hdlr = boxes(in: data, mdia.body).first(where: { $0.type == "hdlr" }),
                let handler = fourCC(data, hdlr.body.lowerBound + 8), handler == "pict"
            else { continue }
            if let tref = children.first(where: { $0.type == "tref" }),
                boxes(in: data, tref.body).contains(where: { $0.type == "auxl" })
            {
                continue
            }
            guard let tkhd = children.first(where: { $0.type == "tkhd" }) else { return nil }
            let version = data[tkhd.body.lowerBound]
            let duration: UInt64?
            let indefinite: Bool
            if version == 1 {
                duration = integer(data, tkhd.body.lowerBound + 4 + 8 + 8 + 4 + 4, bytes: 8)
                indefinite = duration == .max
            } else {
                duration = integer(data, tkhd.body.lowerBound + 4 + 4 + 4 + 4 + 4, bytes: 4)
                indefinite = duration == UInt64(UInt32.max)
            }
            guard let duration,
                let edts = children.first(where: { $0.type == "edts" }),
                let elst = boxes(in: data, edts.body).first(where: { $0.type == "elst" }),
                let flags = integer(data, elst.body.lowerBound + 1, bytes: 3),
                let count = integer(data, elst.body.lowerBound + 4, bytes: 4), count > 0
            else { return nil }
            guard flags & 1 == 1 else { return 1 }
            if indefinite { return 0 }
            let entryVersion = data[elst.body.lowerBound]
            guard let segment = integer(data, elst.body.lowerBound + 8, bytes: entryVersion == 1 ? 8 : 4), segment > 0
            else { return 0 }
            let plays = duration / segment + (duration % segment == 0 ? 0 : 1)
            return plays > UInt64(Int32.max) ? 0 : max(Int(plays), 1)
        }
        return nil
    }

    private struct Box {
        var type: String
        var body: Range<Int>
    }

    /// The boxes laid end to end in `range`, up to the first that does not fit.
    private static func boxes(in data: [UInt8], _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound, found.count < 4096 {
            guard let size32 = integer(data, at, bytes: 4), let type = fourCC(data, at + 4) else { break }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = integer(data, at + 8, bytes: 8), large <= UInt64(range.upperBound - at) else { break }
                header = 16
                size = Int(large)
            } else if size32 == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            found.append(Box(type: type, body: (at + header)..<(at + size)))
            at += size
        }
        return found
    }

    private static func integer(_ data: [UInt8], _ at: Int, bytes: Int) -> UInt64? {
        guard at >= 0, at + bytes <= data.count else { return nil }
        return data[at..<at + bytes].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func fourCC(_ data: [UInt8], _ at: Int) -> String? {
        guard at >= 0, at + 4 <= data.count else { return nil }
        return String(decoding: data[at..<at + 4], as: UTF8.self)
    }
}
