/// Turns RGBA rows into the stored rows of a ``PNGLayout`` (16-bit samples big-endian, as PNG
/// stores them), a range of rows at a time, so encoding needs scratch memory for a block of rows
/// on top of the image, never a second image.
struct RowPacker: Sendable {
    let layout: PNGLayout
    let width: Int
    /// Bytes of a packed row.
    let rowBytes: Int
    private let table: (keys: [UInt32], values: [UInt8], used: [Bool])?

    init(layout: PNGLayout, width: Int) {
        self.layout = layout
        self.width = width
        rowBytes = layout.rowBytes(width: width)
        table = layout.colorType == .palette ? ColorSet.indexTable(for: layout.palette) : nil
    }

    /// Calls `body` with rows `rows` of `image` packed, ``rowBytes`` apart; the pointer is valid
    /// only inside `body`. 8-bit RGBA stored as such is handed over without a copy.
    func withRows<Result>(
        _ rows: Range<Int>, of image: PixelBuffer,
        _ body: (UnsafePointer<UInt8>) throws(ImgToolError) -> Result
    ) throws(ImgToolError) -> Result {
        if case .rgba8(let samples) = image.samples, layout.colorType == .rgba, layout.bitDepth == 8 {
            return try samples.withUnsafeBufferPointer { buffer throws(ImgToolError) in
                try body(buffer.baseAddress.unsafelyUnwrapped + rows.lowerBound * rowBytes)
            }
        }
        var scratch = [UInt8](repeating: 0, count: rowBytes * rows.count)
        return try scratch.withUnsafeMutableBufferPointer { out throws(ImgToolError) in
            let base = out.baseAddress.unsafelyUnwrapped
            for (offset, row) in rows.enumerated() {
                pack(row: row, of: image, into: base + offset * rowBytes)
            }
            return try body(UnsafePointer(base))
        }
    }

    private func pack(
        row: Int, of image: PixelBuffer, into out: UnsafeMutablePointer<UInt8>
    ) {
        let first = row * width * 4
        switch image.samples {
        case .rgba8(let samples):
            samples.withUnsafeBufferPointer { source in
                let pixels = UnsafeRawPointer(source.baseAddress.unsafelyUnwrapped + first)
                pack8(pixels, into: out)
            }
        case .rgba16(let samples):
            samples.withUnsafeBufferPointer { source in
                let pixels = source.baseAddress.unsafelyUnwrapped + first
                if layout.bitDepth == 16 {
                    pack16(pixels, into: out)
                } else {
                    // Every sample is v * 257 (PNGLayout checked): its low byte is the 8-bit value.
                    let narrow = (0..<width * 4).map { UInt8(truncatingIfNeeded: pixels[$0]) }
                    narrow.withUnsafeBytes { pack8($0.baseAddress.unsafelyUnwrapped, into: out) }
                }
            }
        }
    }

    private func pack8(_ pixels: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt8>) {
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
                case .gray: words[x] = p[x * 4].bigEndian
                case .grayAlpha:
                    words[x * 2] = p[x * 4].bigEndian
                    words[x * 2 + 1] = p[x * 4 + 3].bigEndian
                case .rgb:
                    words[x * 3] = p[x * 4].bigEndian
                    words[x * 3 + 1] = p[x * 4 + 1].bigEndian
                    words[x * 3 + 2] = p[x * 4 + 2].bigEndian
                default:
                    for c in 0..<4 { words[x * 4 + c] = p[x * 4 + c].bigEndian }
                }
            }
        }
    }
}
