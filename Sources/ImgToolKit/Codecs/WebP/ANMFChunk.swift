/// The header of an animation frame chunk (`ANMF`): where the frame goes, how long it shows and
/// how it is drawn; the frame's own chunks (`ALPH`, `VP8 ` or `VP8L`) follow it inside the
/// payload.
///
/// Layout (WebP container specification, "Animation"): X / 2, Y / 2, width - 1, height - 1 and
/// the duration in milliseconds as 24-bit little-endian values, then one byte whose bit 1 says
/// "do not blend" and bit 0 "dispose to background".
struct ANMFChunk: Sendable, Hashable {
    /// Left edge on the canvas, in pixels (twice the stored value).
    var x: Int
    /// Top edge on the canvas, in pixels (twice the stored value).
    var y: Int
    /// Width in pixels as declared; libwebp uses the bitstream's, which the source checks.
    var width: Int
    /// Height in pixels as declared.
    var height: Int
    /// How long the frame shows, in milliseconds, 0 ... 2^24 - 1.
    var duration: Int
    /// Draw with source-over (`false`: replace the rectangle, transparent pixels included).
    var blends: Bool
    /// Clear the frame's rectangle to transparent before the next frame is drawn.
    var disposesToBackground: Bool

    /// The header's size: the frame's chunks start this far into the payload.
    static let headerSize = 16

    /// Parses the frame header at the start of the chunk's payload.
    /// - Throws: `corrupt` when the payload is shorter than the 16-byte header.
    init(parsing data: [UInt8], chunk: WebPChunk) throws(WebPChunk.Failure) {
        guard chunk.payload.count >= Self.headerSize else {
            throw .corrupt(
                "the ANMF chunk at offset \(chunk.offset) has \(chunk.payload.count) bytes, fewer than its 16-byte header"
            )
        }
        let start = chunk.payload.lowerBound
        x = data.webPUInt24(at: start) * 2
        y = data.webPUInt24(at: start + 3) * 2
        width = data.webPUInt24(at: start + 6) + 1
        height = data.webPUInt24(at: start + 9) + 1
        duration = data.webPUInt24(at: start + 12)
        let bits = data[start + 15]
        blends = bits & 0x02 == 0
        disposesToBackground = bits & 0x01 != 0
    }
}
