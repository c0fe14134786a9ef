import Foundation

/// MD5 (RFC 1321), one shot. Not for security: the XMP specification names an extended XMP
/// packet by the MD5 of its text (``JPEGExtendedXMP``).
enum MD5 {
    /// The 16-byte digest of `bytes`.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        var message = bytes
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        let bitLength = UInt64(bytes.count) &* 8
        for shift in stride(from: 0, to: 64, by: 8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: message.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                words[index] =
                    UInt32(message[at]) | UInt32(message[at + 1]) << 8 | UInt32(message[at + 2]) << 16
                    | UInt32(message[at + 3]) << 24
            }
            var (a, b, c, d) = state
            for step in 0..<64 {
                let mixed: UInt32
                let word: Int
                switch step {
                case 0..<16:
                    mixed = (b & c) | (~b & d)
                    word = step
                case 16..<32:
                    mixed = (d & b) | (~d & c)
                    word = (5 * step + 1) % 16
                case 32..<48:
                    mixed = b ^ c ^ d
                    word = (3 * step + 5) % 16
                default:
                    mixed = c ^ (b | ~d)
                    word = (7 * step) % 16
                }
                let sum = a &+ mixed &+ sines[step] &+ words[word]
                let shift = shifts[step / 16][step % 4]
                (a, d, c) = (d, c, b)
                b = b &+ (sum << shift | sum >> (32 - shift))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) }
        }
    }

    /// The digest of `bytes` as 32 uppercase hex digits, as the XMP specification writes a GUID.
    static func uppercaseHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: digest(bytes).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The rotation of each step, by round and step within the round's four.
    private static let shifts: [[UInt32]] = [[7, 12, 17, 22], [5, 9, 14, 20], [4, 11, 16, 23], [6, 10, 15, 21]]

    /// The integer parts of 2^32 × |sin(i + 1)|, i = 0..<64 (RFC 1321, 3.4).
    private static let sines: [UInt32] = (0..<64).map {
        UInt32((abs(sin(Double($0 + 1))) * 4_294_967_296).rounded(.down))
    }
}
