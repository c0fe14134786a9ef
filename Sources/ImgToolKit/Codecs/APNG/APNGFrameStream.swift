/// Rebuilds one APNG frame as a complete PNG stream that libpng can decode: the signature,
/// IHDR with the frame's size and the file's bit depth, colour type and interlacing, the
/// file's PLTE and tRNS, the frame's zlib data as IDAT chunks, and IEND, each with its CRC.
enum APNGFrameStream {
    /// The PNG stream of `frame` of `file`, whose bytes are `data`.
    static func make(_ frame: APNGFrame, of file: APNGFile, data: [UInt8]) -> [UInt8] {
        let region = frame.control.region
        var size = 8 + 25 + 12 + frame.data.count * 12 + frame.dataByteCount
        if let palette = file.palette { size += 12 + palette.count }
        if let transparency = file.transparency { size += 12 + transparency.count }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        out.append(contentsOf: ImageFormat.pngSignature)
        PNGChunk.append(
            .ihdr, data: file.header.resized(width: region.width, height: region.height).serialized, to: &out)
        if let palette = file.palette { PNGChunk.append(.plte, data: data[palette], to: &out) }
        if let transparency = file.transparency { PNGChunk.append(.trns, data: data[transparency], to: &out) }
        for piece in frame.data where !piece.isEmpty {
            PNGChunk.append(.idat, data: data[piece], to: &out)
        }
        PNGChunk.append(.iend, data: EmptyCollection(), to: &out)
        return out
    }
}
