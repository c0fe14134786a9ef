/// The Swift LZW encoder the GIF writer used before `imgtool_gif_lzw_encode` (CGif), kept as the
/// reference its output must equal byte for byte.
///
/// Codes start at `minimumCodeSize + 1` bits and grow to 12; when the 4096-entry table is full
/// a clear code starts a new one. Code widths follow the decoder's rule exactly as giflib's
/// `DGifDecompressInput` reads them (a width grows once the next free code would not fit). The
/// dictionary is an open-addressing hash of (prefix code, next index) pairs, so encoding is
/// one probe per pixel. The output is the image data block as stored: the minimum code size
/// byte, the data in sub-blocks of at most 255 bytes, and the block terminator.
///
/// Like giflib's `EGifPutLine` it clears only when the table is full; unlike it, it needs no C
/// state or error path and writes straight into the writer's buffer.
enum ReferenceGIFLZWEncoder {
    /// Appends the compressed image data of `indices` (every value below `1 << minimumCodeSize`)
    /// to `output`.
    /// - Parameters:
    ///   - indices: the palette indices, row by row, at least one.
    ///   - minimumCodeSize: 2 ... 8, the LZW minimum code size (the palette's bits, at least 2).
    ///   - output: where the bytes go.
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into output: inout [UInt8]) {
        precondition((2...8).contains(minimumCodeSize), "minimum code size out of range")
        output.append(UInt8(minimumCodeSize))
        var packed: [UInt8] = []
        packed.reserveCapacity(indices.count / 2 + 16)

        let clearCode = 1 << minimumCodeSize
        let endCode = clearCode + 1
        let tableSize = 1 << 13
        let mask = tableSize - 1
        // Each slot holds (key << 12 | code), key = prefix << 8 | index (20 bits); all ones is empty.
        var table = [UInt32](repeating: .max, count: tableSize)
        var bitBuffer: UInt64 = 0
        var bitCount = 0
        var codeSize = minimumCodeSize + 1
        var nextCode = clearCode + 2

        func emit(_ code: Int) {
            bitBuffer |= UInt64(code) << UInt64(bitCount)
            bitCount += codeSize
            while bitCount >= 8 {
                packed.append(UInt8(truncatingIfNeeded: bitBuffer))
                bitBuffer >>= 8
                bitCount -= 8
            }
        }

        emit(clearCode)
        guard let first = indices.first else {
            emit(endCode)
            if bitCount > 0 { packed.append(UInt8(truncatingIfNeeded: bitBuffer)) }
            appendSubBlocks(packed, to: &output)
            return
        }
        table.withUnsafeMutableBufferPointer { slots in
            var prefix = Int(first)
            for position in 1..<indices.count {
                let index = Int(indices[position])
                let key = UInt32(prefix << 8 | index)
                var slot = Int((key &* 0x9E37_79B1) >> 19) & mask
                var found = -1
                while true {
                    let entry = slots[slot]
                    if entry == .max { break }
                    if entry >> 12 == key {
                        found = Int(entry & 0xFFF)
                        break
                    }
                    slot = (slot + 1) & mask
                }
                if found >= 0 {
                    prefix = found
                    continue
                }
                emit(prefix)
                if nextCode < 4096 {
                    slots[slot] = key << 12 | UInt32(nextCode)
                    nextCode += 1
                    if nextCode > 1 << codeSize && codeSize < 12 { codeSize += 1 }
                } else {
                    emit(clearCode)
                    slots.update(repeating: .max)
                    codeSize = minimumCodeSize + 1
                    nextCode = clearCode + 2
                }
                prefix = index
            }
            emit(prefix)
        }
        // The decoder has added one more entry after reading the last code; the end code is
        // read at the width that entry implies.
        if nextCode < 4096 && nextCode + 1 > 1 << codeSize && codeSize < 12 { codeSize += 1 }
        emit(endCode)
        if bitCount > 0 { packed.append(UInt8(truncatingIfNeeded: bitBuffer)) }
        appendSubBlocks(packed, to: &output)
    }

    /// Appends `data` as data sub-blocks (a length byte, then up to 255 bytes) and the block
    /// terminator.
    static func appendSubBlocks(_ data: [UInt8], to output: inout [UInt8]) {
        output.reserveCapacity(output.count + data.count + data.count / 255 + 2)
        var start = 0
        while start < data.count {
            let end = min(start + 255, data.count)
            output.append(UInt8(end - start))
            output.append(contentsOf: data[start..<end])
            start = end
        }
        output.append(0)
    }
}
