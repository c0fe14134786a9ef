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
/// Like giflib's `EGifPutLine` it clears a full table at once, or, when that is shorter, keeps
/// it while it still compresses; unlike giflib it needs no state or error path and writes
/// straight into the writer's buffer.
enum GIFLZWEncoder {
    /// Appends the compressed image data of `indices` (every value below `1 << minimumCodeSize`)
    /// to `output`.
    /// - Parameters:
    ///   - indices: the palette indices, row by row.
    ///   - minimumCodeSize: 2 ... 8, the LZW minimum code size (the palette's bits, at least 2).
    ///   - output: where the bytes go.
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into output: inout [UInt8]) {
        encode(indices, mayBeTransparent: nil, transparentIndex: nil, minimumCodeSize: minimumCodeSize, into: &output)
    }

    /// Appends the smallest image data this encoder makes of `indices`: where `mayBeTransparent`
    /// is non-zero, a pixel may be coded as its index or as `transparentIndex`, whichever
    /// continues the string the table holds (a pixel the canvas already shows either way); and
    /// an image large enough to fill the table is compressed twice, clearing a full table at
    /// once and keeping it while it still pays (`imgtool_gif_lzw_encode_choosing`), and the
    /// shorter kept. `keepingFullTable` `true` or `false` asks for one of the two ways.
    ///
    /// With `flexible`, each string coded is not always the longest the table holds: of the
    /// ``flexibleCandidates`` longest, the one after which the next string reaches furthest
    /// (`imgtool_gif_lzw_encode_flexible`, one-step lookahead). That is smaller on most large
    /// images and larger on some; the frame encoder keeps whichever is smaller.
    /// - Returns: whether the table filled (when it did not, both ways write the same bytes).
    @discardableResult
    static func encode(
        _ indices: UnsafeBufferPointer<UInt8>, mayBeTransparent: UnsafeBufferPointer<UInt8>?, transparentIndex: UInt8?,
        minimumCodeSize: Int, keepingFullTable: Bool? = nil, flexible: Bool = false, into output: inout [UInt8]
    ) -> Bool {
        precondition((2...8).contains(minimumCodeSize), "minimum code size out of range")
        assert(indices.allSatisfy { Int($0) < 1 << minimumCodeSize }, "an index does not fit the minimum code size")
        assert(mayBeTransparent.map { $0.count == indices.count } ?? true, "one flag per index")
        let capacity = imgtool_gif_lzw_encoded_capacity(indices.count)
        let start = output.count
        // Fewer pixels than codes in a table cannot fill it: one way is enough.
        let ways = keepingFullTable == nil && indices.count >= 4096 - (1 << minimumCodeSize) ? 2 : 1
        output.append(contentsOf: repeatElement(0, count: capacity * ways))
        let transparent = Int32(transparentIndex.map(Int.init) ?? -1)
        var filled: Int32 = 0
        func run(_ deferring: Int32, _ out: UnsafeMutablePointer<UInt8>, _ filled: UnsafeMutablePointer<Int32>?) -> Int
        {
            if flexible {
                return imgtool_gif_lzw_encode_flexible(
                    indices.baseAddress, mayBeTransparent?.baseAddress, indices.count, Int32(minimumCodeSize),
                    transparent, deferring, Int32(flexibleCandidates), out, filled)
            }
            return imgtool_gif_lzw_encode_choosing(
                indices.baseAddress, mayBeTransparent?.baseAddress, indices.count, Int32(minimumCodeSize), transparent,
                deferring, out, filled)
        }
        let kept = output.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress.unsafelyUnwrapped + start
            let clearing = run(keepingFullTable == true ? 1 : 0, base, &filled)
            // A table that never filled was never cleared: keeping it changes nothing.
            guard ways == 2, filled > 0 else { return clearing }
            let keeping = run(1, base + capacity, nil)
            guard keeping < clearing else { return clearing }
            (base).update(from: base + capacity, count: keeping)
            return keeping
        }
        output.removeLast(capacity * ways - kept)
        return filled > 0
    }

    /// How many of the longest strings at a position flexible parsing weighs: the conformance
    /// corpus at 0.9899, 0.9889 and 0.9882 of gifsicle -O3's bytes with 2, 4 and 8, for about
    /// the same CPU time (the walks from the longest string's end and the position dominate).
    static let flexibleCandidates = 8

    /// Appends lossy image data for `indices` (`imgtool_gif_lzw_encode_lossy`): a string is
    /// continued by any table entry whose colour in `table` is within `maxError` (OkLab
    /// distance, with the error diffused along the string) of the pixel's; pixels that must be
    /// transparent stay so, and those that `mayBeTransparent` marks may be coded transparent.
    /// - Parameters:
    ///   - rowWidth: the pixels of a row, where the diffused error starts again.
    ///   - table: the colour table the indices point into (packed colours).
    ///   - coded: when given, receives the index each pixel was coded as.
    static func encodeLossy(
        _ indices: UnsafeBufferPointer<UInt8>, mayBeTransparent: UnsafeBufferPointer<UInt8>?, transparentIndex: UInt8?,
        minimumCodeSize: Int, rowWidth: Int, table: [UInt32], maxError: Float, into output: inout [UInt8],
        coded: UnsafeMutableBufferPointer<UInt8>? = nil
    ) {
        precondition((2...8).contains(minimumCodeSize), "minimum code size out of range")
        precondition(rowWidth > 0 && table.count <= 256, "a row is one pixel or more; a table 256 colours or fewer")
        assert(mayBeTransparent.map { $0.count == indices.count } ?? true, "one flag per index")
        let capacity = imgtool_gif_lzw_encoded_capacity(indices.count)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: capacity))
        precondition(coded.map { $0.count >= indices.count } ?? true, "one coded index per pixel")
        let written = output.withUnsafeMutableBufferPointer { bytes in
            table.withUnsafeBufferPointer { table in
                imgtool_gif_lzw_encode_lossy(
                    indices.baseAddress, mayBeTransparent?.baseAddress, indices.count, rowWidth,
                    Int32(minimumCodeSize), Int32(transparentIndex.map(Int.init) ?? -1), table.baseAddress,
                    Int32(table.count), maxError, bytes.baseAddress.unsafelyUnwrapped + start, coded?.baseAddress)
            }
        }
        output.removeLast(capacity - written)
    }
}

/// How `--lossy N` (gifsicle's 0-200 scale) maps to the lossy LZW encoder's error.
public enum GIFLossy {
    /// The most `--lossy` takes.
    public static let maximum = 200

    /// The largest OkLab distance a pixel's coded colour may have from its own colour plus the
    /// error diffused to it, for `lossy` 1-200 (0 is exact). OkLab distances run from 0 to about
    /// 1 (black to white); 0.02 is about the smallest difference seen side by side.
    public static func maxError(for lossy: Int) -> Float {
        Float(min(max(lossy, 0), maximum)) * 0.0006
    }
}
