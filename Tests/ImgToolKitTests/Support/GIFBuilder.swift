/// Builds GIF files byte by byte for tests, so each case shows what it contains: logical screen,
/// colour tables, Graphic Control and loop extensions, images (LZW-compressed by ``GIFLZW``,
/// optionally interlaced) and raw bytes for broken files.
struct GIFBuilder {
    /// An RGB colour-table entry.
    typealias RGB = (r: UInt8, g: UInt8, b: UInt8)

    private(set) var bytes: [UInt8]

    /// Starts a file: signature, logical screen descriptor and optional global colour table
    /// (padded with black to a power of two, at least 2 entries).
    init(width: Int, height: Int, globalColors: [RGB]? = nil, backgroundIndex: UInt8 = 0, version: String = "GIF89a") {
        bytes = Array(version.utf8)
        bytes += Self.word(width) + Self.word(height)
        var packed: UInt8 = 0x70  // colour resolution 8 bits
        if let globalColors { packed |= 0x80 | Self.sizeField(globalColors.count) }
        bytes += [packed, backgroundIndex, 0]
        if let globalColors { bytes += Self.table(globalColors) }
    }

    /// Adds a NETSCAPE2.0 loop extension with the raw `value` (0 = forever, N = N repeats).
    mutating func loop(_ value: Int, identifier: String = "NETSCAPE2.0") {
        bytes += [0x21, 0xFF, 0x0B] + Array(identifier.utf8) + [0x03, 0x01] + Self.word(value) + [0x00]
    }

    /// Adds a Graphic Control Extension for the next image.
    mutating func control(delay centiseconds: Int = 0, disposal: Int = 0, transparent: UInt8? = nil) {
        let packed = UInt8((disposal & 7) << 2) | (transparent == nil ? 0 : 1)
        bytes += [0x21, 0xF9, 0x04, packed] + Self.word(centiseconds) + [transparent ?? 0, 0x00]
    }

    /// Adds a comment extension made of `blocks` data sub-blocks (none at all is valid).
    mutating func comment(_ blocks: [[UInt8]]) {
        bytes += [0x21, 0xFE]
        for block in blocks { bytes += [UInt8(block.count)] + block }
        bytes += [0x00]
    }

    /// Adds an image. `indices` is row-major, `width * height` long; it is stored in the
    /// interlaced row order when `interlaced` is set.
    mutating func image(
        x: Int = 0, y: Int = 0, width: Int, height: Int, indices: [UInt8], localColors: [RGB]? = nil,
        interlaced: Bool = false, minimumCodeSize: Int? = nil
    ) {
        precondition(indices.count == width * height, "indices do not match the size")
        bytes += [0x2C] + Self.word(x) + Self.word(y) + Self.word(width) + Self.word(height)
        var packed: UInt8 = interlaced ? 0x40 : 0
        if let localColors { packed |= 0x80 | Self.sizeField(localColors.count) }
        bytes.append(packed)
        if let localColors { bytes += Self.table(localColors) }
        let stored = interlaced ? Self.interlacedOrder(indices, width: width, height: height) : indices
        let largest = Int(indices.max() ?? 0)
        let codeSize = minimumCodeSize ?? max(2, (0...8).first { largest < 1 << $0 } ?? 8)
        bytes.append(UInt8(codeSize))
        bytes += Self.subBlocks(GIFLZW.encode(stored, minimumCodeSize: codeSize))
    }

    /// Adds an image descriptor followed by `data` as LZW data sub-blocks, unchecked.
    mutating func rawImage(x: Int = 0, y: Int = 0, width: Int, height: Int, minimumCodeSize: UInt8, data: [UInt8]) {
        bytes += [0x2C] + Self.word(x) + Self.word(y) + Self.word(width) + Self.word(height) + [0x00, minimumCodeSize]
        bytes += Self.subBlocks(data)
    }

    /// Appends bytes as they are.
    mutating func raw(_ more: [UInt8]) { bytes += more }

    /// The file, with the trailer `0x3B` unless `trailer` is false.
    func build(trailer: Bool = true) -> [UInt8] { trailer ? bytes + [0x3B] : bytes }

    // MARK: - Encoding helpers

    static func word(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    /// Data split into sub-blocks of at most 255 bytes, then the block terminator.
    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < data.count {
            let end = min(start + 255, data.count)
            out.append(UInt8(end - start))
            out += data[start..<end]
            start = end
        }
        return out + [0x00]
    }

    static func tableSize(_ count: Int) -> Int { max(2, (1...8).map { 1 << $0 }.first { $0 >= count } ?? 256) }

    private static func sizeField(_ count: Int) -> UInt8 {
        UInt8(tableSize(count).trailingZeroBitCount - 1)
    }

    private static func table(_ colors: [RGB]) -> [UInt8] {
        var out = colors.flatMap { [$0.r, $0.g, $0.b] }
        out += [UInt8](repeating: 0, count: (tableSize(colors.count) - colors.count) * 3)
        return out
    }

    /// Rows in the order of the four interlace passes (0, 8, 16…; 4, 12…; 2, 6…; 1, 3…).
    static func interlacedOrder(_ indices: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for row in stride(from: start, to: height, by: step) {
                out += indices[row * width..<(row + 1) * width]
            }
        }
        return out
    }
}

/// A plain GIF LZW encoder (variable-width codes, least significant bit first, a clear code at
/// the start and whenever the 4096-entry table fills up).
enum GIFLZW {
    static func encode(_ indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var writer = BitWriter()
        var width = minimumCodeSize + 1
        var next = end + 1
        var table: [Int: Int] = [:]
        writer.write(clear, width: width)
        var prefix: Int?
        for index in indices {
            let symbol = Int(index)
            guard let current = prefix else {
                prefix = symbol
                continue
            }
            if let code = table[current << 8 | symbol] {
                prefix = code
                continue
            }
            writer.write(current, width: width)
            table[current << 8 | symbol] = next
            next += 1
            if next > 1 << width && width < 12 { width += 1 }
            if next == 4096 {
                writer.write(clear, width: width)
                table.removeAll(keepingCapacity: true)
                width = minimumCodeSize + 1
                next = end + 1
            }
            prefix = symbol
        }
        if let current = prefix {
            writer.write(current, width: width)
            // The decoder counts this code too, which may widen the end code.
            next += 1
            if next > 1 << width && width < 12 { width += 1 }
        }
        writer.write(end, width: width)
        return writer.finish()
    }

    /// Packs codes of any width, least significant bit first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var accumulator = 0
        var count = 0

        mutating func write(_ code: Int, width: Int) {
            accumulator |= code << count
            count += width
            while count >= 8 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                count -= 8
            }
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(accumulator & 0xFF)) }
            return bytes
        }
    }
}
