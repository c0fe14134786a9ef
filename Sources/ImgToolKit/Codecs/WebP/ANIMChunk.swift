/// The animation parameters chunk (`ANIM`): background colour and loop count.
///
/// Layout (WebP container specification, "Animation"): the background colour as four bytes in
/// the order blue, green, red, alpha, then the loop count as a 16-bit little-endian value,
/// 0 meaning forever and N meaning N plays in all.
struct ANIMChunk: Sendable, Hashable {
    /// The background colour as stored: blue, green, red, alpha. Players may use it; libwebp's
    /// `WebPAnimDecoder`, browsers and imgtool ignore it (the canvas starts transparent).
    var background: [UInt8]
    /// How many times the animation plays; 0 means forever.
    var loopCount: Int

    /// Parses the chunk's payload.
    /// - Throws: `corrupt` when the payload is shorter than 6 bytes.
    init(parsing data: [UInt8], chunk: WebPChunk) throws(WebPChunk.Failure) {
        guard chunk.payload.count >= 6 else {
            throw .corrupt("the ANIM chunk at offset \(chunk.offset) has \(chunk.payload.count) bytes, expected 6")
        }
        let start = chunk.payload.lowerBound
        background = Array(data[start..<start + 4])
        loopCount = Int(data[start + 4]) | Int(data[start + 5]) << 8
    }
}
