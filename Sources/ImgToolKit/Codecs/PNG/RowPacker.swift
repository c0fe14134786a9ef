/// Turns RGBA rows into the stored rows of a ``PNGLayout``, a band at a time, so encoding
/// needs at most one band of scratch memory on top of the image.
struct RowPacker {
    let layout: PNGLayout
    let width: Int

    /// Rows per band handed to libpng.
    private static let bandRows = 64

    /// Calls `body(rows, stride, count)` for consecutive bands covering every row.
    func forEachBand(
        of image: PixelBuffer,
        _ body: (UnsafePointer<UInt8>, Int, Int) throws(ImgToolError) -> Void
    ) throws(ImgToolError) {
        let stride = layout.rowBytes(width: width)
        switch image.samples {
        case .rgba8(let samples) where layout.colorType == .rgba && layout.bitDepth == 8:
            // Stored exactly as held: hand libpng the buffer itself.
            try samples.withUnsafeBufferPointer { buffer throws(ImgToolError) in
                guard let base = buffer.baseAddress else { return }
                try body(base, stride, image.height)
            }
        case .rgba16(let samples) where layout.colorType == .rgba && layout.bitDepth == 16:
            try samples.withUnsafeBufferPointer { buffer throws(ImgToolError) in
                guard let base = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: UInt8.self) else {
                    return
                }
                try body(base, stride, image.height)
            }
        default:
            var scratch = [UInt8](repeating: 0, count: stride * Self.bandRows)
            let table = layout.colorType == .palette ? ColorSet.indexTable(for: layout.palette) : nil
            var row = 0
            while row < image.height {
                let count = min(Self.bandRows, image.height - row)
                try scratch.withUnsafeMutableBufferPointer { out throws(ImgToolError) in
                    guard let outBase = out.baseAddress else { return }
                    for band in 0..<count {
                        pack(row: row + band, of: image, into: outBase + band * stride, table: table)
                    }
                    try body(outBase, stride, count)
                }
                row += count
            }
        }
    }

    private func pack(
        row: Int, of image: PixelBuffer, into out: UnsafeMutablePointer<UInt8>,
        table: (keys: [UInt32], values: [UInt8], used: [Bool])?
    ) {
        let first = row * width * 4
        switch image.samples {
        case .rgba8(let samples):
            samples.withUnsafeBufferPointer { source in
                let pixels = UnsafeRawPointer(source.baseAddress.unsafelyUnwrapped + first)
                pack8(pixels, into: out, table: table)
            }
        case .rgba16(let samples):
            samples.withUnsafeBufferPointer { source in
                let pixels = source.baseAddress.unsafelyUnwrapped + first
                if layout.bitDepth == 16 {
                    pack16(pixels, into: out)
                } else {
                    // Every sample is v * 257 (PNGLayout checked): its low byte is the 8-bit value.
                    let narrow = (0..<width * 4).map { UInt8(truncatingIfNeeded: pixels[$0]) }
                    narrow.withUnsafeBytes { pack8($0.baseAddress.unsafelyUnwrapped, into: out, table: table) }
                }
            }
        }
    }

    private func pack8(
        _ pixels: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt8>,
        table: (keys: [UInt32], values: [UInt8], used: [Bool])?
    ) {
        let p = pixels.assumingMemoryBound(to: UInt8.self)
        switch layout.colorType {
        case .rgb:
            for x in 0..<width {
                out[x * 3] = p[x * 4]
                out[x * 3 + 1] = p[x * 4 + 1]
                out[x * 3 + 2] = p[x * 4 + 2]
            }
        case .grayAlpha:
            for x in 0..<width {
                out[x * 2] = p[x * 4]
                out[x * 2 + 1] = p[x * 4 + 3]
            }
        case .rgba:
            out.update(from: p, count: width * 4)
        case .gray:
            packIndices(into: out) { x in
                let value = p[x * 4]
                return layout.bitDepth == 8 ? value : value / UInt8(255 / ((1 << layout.bitDepth) - 1))
            }
        case .palette:
            guard let table else { return }
            var lastColor: UInt32 = 0
            var lastIndex: UInt8 = ColorSet.lookup(0, in: table)
            packIndices(into: out) { x in
                let color = pixels.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self).littleEndian
                if color != lastColor {
                    lastColor = color
                    lastIndex = ColorSet.lookup(color, in: table)
                }
                return lastIndex
            }
        }
    }

    /// Packs one value per pixel at `layout.bitDepth` bits, most significant bits first.
    private func packIndices(into out: UnsafeMutablePointer<UInt8>, value: (Int) -> UInt8) {
        let bits = layout.bitDepth
        if bits == 8 {
            for x in 0..<width { out[x] = value(x) }
            return
        }
        let perByte = 8 / bits
        for byte in 0..<(width + perByte - 1) / perByte {
            var packed: UInt8 = 0
            for slot in 0..<perByte {
                let x = byte * perByte + slot
                let v = x < width ? value(x) : 0
                packed |= v << UInt8(8 - bits * (slot + 1))
            }
            out[byte] = packed
        }
    }

    private func pack16(_ p: UnsafePointer<UInt16>, into out: UnsafeMutablePointer<UInt8>) {
        let channels = layout.channels
        out.withMemoryRebound(to: UInt16.self, capacity: width * channels) { words in
            for x in 0..<width {
                switch layout.colorType {
                case .gray: words[x] = p[x * 4]
                case .grayAlpha:
                    words[x * 2] = p[x * 4]
                    words[x * 2 + 1] = p[x * 4 + 3]
                case .rgb:
                    words[x * 3] = p[x * 4]
                    words[x * 3 + 1] = p[x * 4 + 1]
                    words[x * 3 + 2] = p[x * 4 + 2]
                default:
                    for c in 0..<4 { words[x * 4 + c] = p[x * 4 + c] }
                }
            }
        }
    }
}
