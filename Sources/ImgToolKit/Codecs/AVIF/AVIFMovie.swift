/// What libavif 0.11 does not report about an AVIF image sequence, read from the ISO BMFF boxes:
/// how many times it plays, following libavif's later `repetitionCount` (as Chromium does).
///
/// The colour track is the first `trak` whose handler is `pict` and that is no auxiliary image
/// (no `tref`/`auxl`). Its edit list (`edts`/`elst`) decides: none, forever (0: the count is
/// unknown, and browsers loop); flag 1 (repeat) with an indefinite track duration, forever; flag
/// 1 otherwise, the track duration (`tkhd`) over the first segment's duration, rounded up; flag 0,
/// once. Every read is bounds-checked (``ISOBMFF``): a malformed box gives "forever", never a crash.
struct AVIFMovie {
    /// Plays: 0 forever, N times.
    let plays: Int

    init(_ data: [UInt8]) {
        plays = Self.plays(in: ISOBMFF(data)) ?? 0
    }

    private static func plays(in file: ISOBMFF) -> Int? {
        guard let moov = file.boxes().first(where: { $0.type == "moov" }) else { return nil }
        for trak in file.children(of: moov) where trak.type == "trak" {
            let children = file.children(of: trak)
            guard let mdia = children.first(where: { $0.type == "mdia" }),
                let hdlr = file.children(of: mdia).first(where: { $0.type == "hdlr" }),
                file.fourCC(at: hdlr.body.lowerBound + 8) == "pict"
            else { continue }
            if let tref = children.first(where: { $0.type == "tref" }),
                file.children(of: tref).contains(where: { $0.type == "auxl" })
            {
                continue
            }
            guard let tkhd = children.first(where: { $0.type == "tkhd" }),
                let version = file.integer(at: tkhd.body.lowerBound, bytes: 1)
            else { return nil }
            // After version and flags: creation and modification times, track ID, a reserved
            // field, then the duration (64-bit times and duration in version 1).
            let wide = version == 1
            let duration = file.integer(at: tkhd.body.lowerBound + (wide ? 28 : 20), bytes: wide ? 8 : 4)
            let indefinite = duration == (wide ? .max : UInt64(UInt32.max))
            guard let duration,
                let edts = children.first(where: { $0.type == "edts" }),
                let elst = file.children(of: edts).first(where: { $0.type == "elst" }),
                let entryVersion = file.integer(at: elst.body.lowerBound, bytes: 1),
                let flags = file.integer(at: elst.body.lowerBound + 1, bytes: 3),
                let count = file.integer(at: elst.body.lowerBound + 4, bytes: 4), count > 0
            else { return nil }
            guard flags & 1 == 1 else { return 1 }
            if indefinite { return 0 }
            guard let segment = file.integer(at: elst.body.lowerBound + 8, bytes: entryVersion == 1 ? 8 : 4),
                segment > 0
            else { return 0 }
            let plays = duration / segment + (duration % segment == 0 ? 0 : 1)
            return plays > UInt64(Int32.max) ? 0 : max(Int(plays), 1)
        }
        return nil
    }
}
