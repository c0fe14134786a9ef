import ImgToolKit

/// Builds PNG files byte by byte, so that tests show exactly what they feed the decoder.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    /// An IHDR chunk.
    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6, interlace: UInt8 = 0)
        -> [UInt8]
    {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlace])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The chunks of a PNG file as (offset, type) pairs, for tests that damage one of them.
    static func chunks(of file: [UInt8]) -> [(offset: Int, type: String, length: Int)] {
        var result: [(Int, String, Int)] = []
        var offset = 8
        while offset + 12 <= file.count {
            let length =
                Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8
                | Int(file[offset + 3])
            result.append((offset, String(decoding: file[offset + 4..<offset + 8], as: UTF8.self), length))
            offset += 12 + length
        }
        return result
    }
}

/// Small deterministic pictures.
enum TestImages {
    /// A `width` x `height` 8-bit image whose pixels come from `pixel(x, y)`.
    static func make8(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
        var samples: [UInt8] = []
        samples.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width { samples += pixel(x, y) }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    /// A `width` x `height` 16-bit image whose pixels come from `pixel(x, y)`.
    static func make16(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt16]) -> PixelBuffer {
        var samples: [UInt16] = []
        for y in 0..<height {
            for x in 0..<width { samples += pixel(x, y) }
        }
        return PixelBuffer(width: width, height: height, rgba16: samples)
    }
}

/// Compares whole buffers and, on a mismatch, reports the first differing pixel and how many differ.
func firstDifference(_ expected: PixelBuffer, _ actual: PixelBuffer) -> String? {
    guard expected.width == actual.width, expected.height == actual.height else {
        return "size \(actual.width)x\(actual.height), expected \(expected.width)x\(expected.height)"
    }
    guard expected.depth == actual.depth else { return "depth \(actual.depth), expected \(expected.depth)" }
    var first: String?
    var count = 0
    for y in 0..<expected.height {
        for x in 0..<expected.width {
            let e = expected.depth == .eight ? expected.pixel8(x: x, y: y).map(Int.init) : pixel16(expected, x, y)
            let a = actual.depth == .eight ? actual.pixel8(x: x, y: y).map(Int.init) : pixel16(actual, x, y)
            if e != a {
                count += 1
                if first == nil { first = "(\(x),\(y)): expected \(e), actual \(a)" }
            }
        }
    }
    return first.map { "\(count) pixels differ; first at \($0)" }
}

private func pixel16(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
    let base = (y * image.width + x) * 4
    return (image.rgba16 ?? [])[base..<base + 4].map(Int.init)
}
