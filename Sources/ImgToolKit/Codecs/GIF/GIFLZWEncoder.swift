internal import CGif

/// GIF's variable-length LZW compression of one image's palette indices, written by imgtool
/// (`imgtool_gif_lzw_encode` in `CGif/gif_lzw_encode.c`).
///
/// Codes start at `minimumCodeSize + 1` bits and grow to 12; when the 4096-entry table is full
/// a clear code starts a new one. Code widths follow the decoder's rule exactly as giflib's
/// `DGifDecompressInput` reads them (a width grows once the next free code would not fit). The
/// dictionary is an open-addressing hash of (prefix code, next index) pairs, so encoding is
/// one probe per pixel. The output is the image data block as stored: the minimum code size
/// byte, the data in sub-blocks of at most 255 bytes, and the block terminator.
///
/// Like giflib's `EGifPutLine` it clears only when the table is full; unlike it, it needs no
/// giflib state or error path and writes straight into the writer's buffer.
enum GIFLZWEncoder {
    /// Appends the compressed image data of `indices` (every value below `1 << minimumCodeSize`)
    /// to `output`.
    /// - Parameters:
    ///   - indices: the palette indices, row by row.
    ///   - minimumCodeSize: 2 ... 8, the LZW minimum code size (the palette's bits, at least 2).
    ///   - output: where the bytes go.
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into output: inout [UInt8]) {
        precondition((2...8).contains(minimumCodeSize), "minimum code size out of range")
        assert(indices.allSatisfy { Int($0) < 1 << minimumCodeSize }, "an index does not fit the minimum code size")
        let capacity = imgtool_gif_lzw_encoded_capacity(indices.count)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: capacity))
        let written = output.withUnsafeMutableBufferPointer { bytes in
            imgtool_gif_lzw_encode(
                indices.baseAddress, indices.count, Int32(minimumCodeSize), bytes.baseAddress.unsafelyUnwrapped + start)
        }
        output.removeLast(capacity - written)
    }
}
