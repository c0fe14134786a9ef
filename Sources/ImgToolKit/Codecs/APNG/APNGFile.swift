/// An APNG's structure, read once: IHDR, where PLTE and tRNS are, and either the animation
/// (acTL and the frame table) or why the animation is broken. Offsets only; no pixel is decoded.
struct APNGFile: Sendable {
    /// The file's header.
    var header: IHDRChunk
    /// PLTE's data, copied into every rebuilt frame.
    var palette: Range<Int>?
    /// tRNS's data, copied into every rebuilt frame (left out when its CRC is wrong, as libpng
    /// discards such an ancillary chunk).
    var transparency: Range<Int>?
    /// The animation, or the first rule it breaks.
    var animation: Result<(control: ACTLChunk, frames: [APNGFrame]), APNGParseError>
    /// Problems that do not stop decoding, one sentence each.
    var warnings: [String] = []

    /// Whether `data` is an APNG: a PNG with an acTL chunk before its first IDAT.
    ///
    /// This looks only at the chunk headers before the first IDAT and never throws: whatever
    /// is wrong with a file that has no acTL there is for the still-PNG decoder to report.
    static func hasAnimationControl(_ data: [UInt8]) -> Bool {
        let found = firstControlChunk { offset in
            data.count - offset >= 8 ? (data.bigEndianUInt32(at: offset), data.bigEndianUInt32(at: offset + 4)) : nil
        }
        return found == .actl
    }

    /// Walks the chunk headers after the signature and returns the first acTL, IDAT or IEND
    /// type met, or `nil` when the headers end first or a length is impossible.
    /// - Parameter header: the length and type fields of the chunk at an offset, or `nil` past the end.
    static func firstControlChunk(header: (Int) -> (length: UInt32, type: UInt32)?) -> PNGChunkType? {
        var offset = 8
        while let (length, rawType) = header(offset) {
            let type = PNGChunkType(rawValue: rawType)
            if type == .actl || type == .idat || type == .iend { return type }
            if Int(length) > PNGChunk.maxLength { return nil }
            offset += 12 + Int(length)
        }
        return nil
    }

    /// Reads every chunk from IHDR to IEND, checking lengths, CRCs and the APNG rules.
    ///
    /// Errors that leave no image to show are thrown; a broken animation is kept in
    /// ``animation`` so that the caller can show the default image instead.
    /// - Throws: ``ImgToolError`` `truncated` when a chunk or IEND is missing from the end,
    ///   `corrupt` for a bad IHDR, a wrong CRC on a critical chunk, or no IDAT at all.
    init(parsing data: [UInt8]) throws(ImgToolError) {
        let first = try PNGChunk.read(in: data, at: 8)
        guard first.type == .ihdr else {
            throw ImgToolError(.corrupt, "corrupt APNG: the first chunk is \(first.name), expected IHDR")
        }
        try Self.checkCriticalCRC(first)
        do throws(APNGParseError) {
            header = try IHDRChunk(parsing: data[first.data], offset: first.offset)
        } catch {
            throw ImgToolError(.corrupt, "corrupt APNG: \(error)")
        }
        var builder = APNGFrameTableBuilder(header: header)
        var failure: APNGParseError?
        var phase = ImageDataPhase.before
        var offset = first.end
        var warnings: [String] = []
        while true {
            guard offset < data.count else {
                throw ImgToolError(
                    .truncated, "truncated APNG: the data ends at offset \(offset) before the IEND chunk")
            }
            let chunk = try PNGChunk.read(in: data, at: offset)
            if chunk.type.isCritical {
                try Self.checkCriticalCRC(chunk)
            } else if !chunk.hasValidCRC && ![.actl, .fctl, .fdat].contains(chunk.type) {
                warnings.append("ancillary chunk \(chunk.name) has a wrong CRC and is ignored")
            }
            switch chunk.type {
            case .plte where palette == nil: palette = chunk.data
            case .trns where transparency == nil && chunk.hasValidCRC: transparency = chunk.data
            default: break
            }
            if failure == nil {
                do throws(APNGParseError) {
                    try builder.consume(chunk, in: data, phase: phase)
                } catch {
                    failure = error
                }
            }
            if chunk.type == .iend { break }
            if chunk.type == .idat {
                phase = .inside
            } else if phase == .inside {
                phase = .after
            }
            offset = chunk.end
        }
        guard phase != .before else {
            throw ImgToolError(.corrupt, "corrupt APNG: no IDAT chunk before IEND, so there is no image to show")
        }
        if let failure {
            animation = .failure(failure)
        } else {
            do throws(APNGParseError) {
                let (control, frames, warning) = try builder.finish()
                animation = .success((control, frames))
                if let warning { warnings.insert(warning, at: 0) }
            } catch {
                animation = .failure(error)
            }
        }
        self.warnings = warnings
    }

    private static func checkCriticalCRC(_ chunk: PNGChunk) throws(ImgToolError) {
        guard chunk.hasValidCRC else {
            throw ImgToolError(
                .corrupt,
                "corrupt APNG: \(APNGParseError.invalidChunkChecksum(chunk.type, offset: chunk.offset, declared: chunk.storedCRC, computed: chunk.computedCRC))"
            )
        }
    }
}
