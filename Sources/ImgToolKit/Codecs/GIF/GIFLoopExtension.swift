/// The NETSCAPE2.0 (or ANIMEXTS1.0) application extension that makes an animation loop.
///
/// Its loop value N means N repeats after the first play, so N + 1 plays; 0 means forever
/// (as gifsicle and browsers read it). A file without one plays once.
struct GIFLoopExtension: Sendable, Hashable {
    /// The loop value as stored, 0 to 65535.
    var value: Int

    /// Creates a loop extension.
    init(value: Int) {
        self.value = value
    }

    /// Parses an application extension from its data sub-blocks (without length bytes): the
    /// 11-byte identifier `NETSCAPE2.0` or `ANIMEXTS1.0`, then a block starting with
    /// sub-block id 1 and a little-endian loop value. Returns `nil` for any other application
    /// extension (or a NETSCAPE buffering block, id 2).
    init?(parsing blocks: [[UInt8]]) {
        guard blocks.count >= 2, Self.identifiers.contains(blocks[0]) else { return nil }
        let data = blocks[1]
        guard data.count >= 3, data[0] == 1 else { return nil }
        value = Int(data[1]) | Int(data[2]) << 8
    }

    /// How many times the animation plays: 0 means forever, N means N + 1.
    var plays: Int { value == 0 ? 0 : value + 1 }

    /// The whole extension as stored: `21 FF 0B NETSCAPE2.0 03 01 lo hi 00`.
    var serialized: [UInt8] {
        [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8)
            + [0x03, 0x01, UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), 0x00]
    }

    private static let identifiers: [[UInt8]] = [Array("NETSCAPE2.0".utf8), Array("ANIMEXTS1.0".utf8)]
}
