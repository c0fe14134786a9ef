/// HTTP bodies in the gzip content coding (RFC 1952 around RFC 1951 deflate), made without zlib:
/// any bytes as stored blocks, and runs of zeros compressed about 160 to 1 (a gzip bomb).
enum ContentCoding {
    /// `bytes` as gzip, in stored (uncompressed) deflate blocks.
    static func gzip(stored bytes: [UInt8]) -> [UInt8] {
        var deflate: [UInt8] = []
        var offset = 0
        repeat {
            let end = min(offset + 65535, bytes.count)
            let length = UInt16(end - offset)
            // BFINAL, BTYPE 00, padded to the byte; LEN and its complement, little-endian.
            deflate += [end == bytes.count ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8)]
            deflate += [UInt8(~length & 0xFF), UInt8(~length >> 8)]
            deflate += bytes[offset..<end]
            offset = end
        } while offset < bytes.count
        return wrap(deflate, crc: crc32(bytes), count: bytes.count)
    }

    /// `count` zero bytes as gzip: one literal zero, then copies of 258 bytes at distance 1, in
    /// fixed Huffman codes (13 bits per copy), then the rest as literals.
    static func gzip(zeros count: Int) -> [UInt8] {
        precondition(count > 0)
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.writeCode(0x30, count: 8)  // literal 0
        var left = count - 1
        while left >= 258 {
            bits.writeCode(0xC5, count: 8)  // length code 285: 258 bytes
            bits.writeCode(0, count: 5)  // distance code 0: distance 1
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0x30, count: 8) }
        bits.writeCode(0, count: 7)  // end of block
        return wrap(bits.finish(), crc: crc32(zeros: count), count: count)
    }

    /// The gzip member around a deflate stream: header (no name, no time), stream, CRC-32 and
    /// length (both little-endian).
    private static func wrap(_ deflate: [UInt8], crc: UInt32, count: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: count)
        let trailer = [crc, size].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF] + deflate + trailer
    }

    /// The CRC-32 of gzip (reflected, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The CRC-32 of `count` zero bytes, without reading them: a zero bit changes the CRC
    /// register linearly (a 32x32 matrix over GF(2), one column per bit), so `count` bytes are
    /// that matrix to the power 8 x `count`, by repeated squaring.
    static func crc32(zeros count: Int) -> UInt32 {
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var sum: UInt32 = 0
            var rest = vector
            var column = 0
            while rest != 0 {
                if rest & 1 == 1 { sum ^= matrix[column] }
                rest >>= 1
                column += 1
            }
            return sum
        }
        func squared(_ matrix: [UInt32]) -> [UInt32] { matrix.map { times(matrix, $0) } }
        var power: [UInt32] = [0xEDB8_8320] + (0..<31).map { UInt32(1) << $0 }
        for _ in 0..<3 { power = squared(power) }
        var crc: UInt32 = 0xFFFF_FFFF
        var left = count
        while left > 0 {
            if left & 1 == 1 { crc = times(power, crc) }
            power = squared(power)
            left >>= 1
        }
        return ~crc
    }
}

/// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt8 = 0
    private var used = 0

    mutating func write(_ value: UInt32, count: Int) {
        for index in 0..<count { put(UInt8((value >> index) & 1)) }
    }

    mutating func writeCode(_ code: UInt32, count: Int) {
        for index in stride(from: count - 1, through: 0, by: -1) { put(UInt8((code >> index) & 1)) }
    }

    private mutating func put(_ bit: UInt8) {
        current |= bit << used
        used += 1
        if used == 8 {
            bytes.append(current)
            current = 0
            used = 0
        }
    }

    mutating func finish() -> [UInt8] {
        if used > 0 { bytes.append(current) }
        return bytes
    }
}
