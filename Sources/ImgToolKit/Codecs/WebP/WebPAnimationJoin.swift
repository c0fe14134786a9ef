/// Joins animations that `WebPAnimEncoder` wrote for consecutive stretches of one animation
/// into one file: their `ANMF` frames in order, under one `VP8X` (alpha flag if any part has
/// alpha) and one `ANIM` chunk.
///
/// A part whose frames were all alike comes back from libwebp as a still (no `ANMF`); its image
/// becomes one whole-canvas frame that replaces the canvas (no blending) for the part's
/// duration. Every later part starts with a whole-canvas key frame, so each frame decodes as it
/// did in its own part. The file is handed out in pieces: a header made here, then slices of the
/// parts, so that the frames can be written out without another copy of the animation.
enum WebPAnimationJoin {
    /// The joined file, in pieces to write one after the other.
    /// - Throws: ``ImgToolError`` `writeFailed` when a part is not a WebP libwebp would write.
    static func join(_ parts: [WebPWriter.Segment], width: Int, height: Int, plays: Int) throws(ImgToolError)
        -> [ArraySlice<UInt8>]
    {
        var frames: [ArraySlice<UInt8>] = []
        var hasAlpha = false
        for (number, part) in parts.enumerated() {
            let data = part.bytes
            guard data.count >= 12 else {
                throw ImgToolError(
                    .writeFailed, "libwebp wrote \(data.count) bytes for part \(number) of the animation")
            }
            let end = min(data.count, 8 + Int(data.webPUInt32(at: 4)))
            var still: [UInt8] = []
            var offset = 12
            while offset + WebPChunk.headerSize <= end {
                let chunk: WebPChunk
                do throws(WebPChunk.Failure) {
                    chunk = try WebPChunk(in: data, at: offset, limit: end, context: "libwebp's output")
                } catch {
                    throw ImgToolError(.writeFailed, "libwebp's output for part \(number) is not a WebP file: \(error)")
                }
                let bytes = data[chunk.offset..<min(chunk.end, data.count)]
                switch chunk.tag {
                case "VP8X":
                    hasAlpha = hasAlpha || data[chunk.payload.lowerBound] & 0x10 != 0
                case "ANMF":
                    frames.append(bytes)
                case "ALPH":
                    hasAlpha = true
                    still += bytes
                case "VP8 ":
                    still += bytes
                case "VP8L":
                    switch WebPBitstream.features(of: data, in: chunk.whole) {
                    case .success(let features): hasAlpha = hasAlpha || features.hasAlpha
                    case .failure: hasAlpha = true  // libwebp decides when decoding; the flag is a hint
                    }
                    still += bytes
                default:
                    break
                }
                offset = chunk.end
            }
            if !still.isEmpty {
                var header = le24(0) + le24(0) + le24(width - 1) + le24(height - 1) + le24(part.duration)
                header.append(0x02)  // do not blend, do not dispose
                frames.append(chunk("ANMF", header + still)[...])
            }
        }
        var head = Array("WEBP".utf8)
        head += chunk("VP8X", [0x02 | (hasAlpha ? 0x10 : 0), 0, 0, 0] + le24(width - 1) + le24(height - 1))
        head += chunk("ANIM", [0, 0, 0, 0, UInt8(plays & 0xFF), UInt8(plays >> 8 & 0xFF)])
        let bodySize = frames.reduce(head.count) { $0 + $1.count }
        return [(Array("RIFF".utf8) + le32(bodySize) + head)[...]] + frames
    }

    private static func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        Array(tag.utf8) + le32(payload.count) + payload + (payload.count.isMultiple(of: 2) ? [] : [0])
    }

    private static func le24(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16),
        ]
    }

    private static func le32(_ value: Int) -> [UInt8] {
        le24(value) + [UInt8(truncatingIfNeeded: value >> 24)]
    }
}
