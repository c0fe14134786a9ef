@testable import ImgToolKit

/// Builds PNG files byte by byte, so that tests show exactly what they feed the decoder.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: length, type, data, CRC-32 of type and data (the library's ``CRC32``).
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(CRC32.checksum(typeBytes + data))
    }

    /// An IHDR chunk.
    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6, interlace: UInt8 = 0)
        -> [UInt8]
    {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlace])
    }

    /// `value` as four bytes, most significant first.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
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
