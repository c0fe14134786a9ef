/// The extended-format header chunk (`VP8X`): feature flags and the canvas size.
///
/// Layout (WebP container specification, "Extended File Format"): one byte of flags
/// (`Rsv|I|L|E|X|A|R`: ICC profile 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02),
/// three reserved bytes, then canvas width - 1 and height - 1 as 24-bit little-endian values.
struct VP8XChunk: Sendable, Hashable {
    /// The flags byte.
    var flags: UInt8
    /// Canvas width in pixels, 1 ... 2^24.
    var canvasWidth: Int
    /// Canvas height in pixels, 1 ... 2^24.
    var canvasHeight: Int

    /// The file holds an animation (`ANIM` and `ANMF` chunks).
    var isAnimated: Bool { flags & 0x02 != 0 }
    /// Some image in the file has transparency.
    var hasAlpha: Bool { flags & 0x10 != 0 }

    /// Parses the chunk's payload.
    /// - Throws: `corrupt` when the payload is shorter than 10 bytes.
    init(parsing data: [UInt8], chunk: WebPChunk) throws(WebPChunk.Failure) {
        guard chunk.payload.count >= 10 else {
            throw .corrupt("the VP8X chunk at offset \(chunk.offset) has \(chunk.payload.count) bytes, expected 10")
        }
        let start = chunk.payload.lowerBound
        flags = data[start]
        canvasWidth = data.webPUInt24(at: start + 4) + 1
        canvasHeight = data.webPUInt24(at: start + 7) + 1
    }
}
