/// CRC-32 as PNG chunks use it (ISO 3309 / ITU-T V.42: polynomial 0xEDB88320 in reflected form,
/// register preset to all ones and inverted at the end).
///
/// Table-driven, eight bytes per step ("slicing-by-8": eight 256-entry tables derived from the
/// one-byte table), so checking every chunk of a large APNG costs little next to inflating it.
struct CRC32: Sendable, Hashable {
    /// The running register, preset to all ones; ``checksum`` inverts it.
    private var register: UInt32 = 0xffff_ffff

    /// An empty checksum.
    init() {}

    /// The CRC of the bytes added so far.
    var checksum: UInt32 { register ^ 0xffff_ffff }

    /// The CRC of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.checksum
    }

    /// Adds `bytes`.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(buffer: UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { update(buffer: $0) }
        }
    }

    /// Adds the bytes in `buffer`.
    mutating func update(buffer: UnsafeRawBufferPointer) {
        var crc = register
        Self.tables.withUnsafeBufferPointer { t in
            var index = 0
            let count = buffer.count
            while count - index >= 8 {
                let low =
                    crc
                    ^ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index + 2]) << 16
                        | UInt32(buffer[index + 3]) << 24)
                let high =
                    UInt32(buffer[index + 4]) | UInt32(buffer[index + 5]) << 8 | UInt32(buffer[index + 6]) << 16
                    | UInt32(buffer[index + 7]) << 24
                crc =
                    t[7 * 256 + Int(low & 0xff)] ^ t[6 * 256 + Int((low >> 8) & 0xff)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xff)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xff)] ^ t[2 * 256 + Int((high >> 8) & 0xff)]
                    ^ t[256 + Int((high >> 16) & 0xff)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(buffer[index])) & 0xff)] ^ (crc >> 8)
                index += 1
            }
        }
        register = crc
    }

    /// Table `k` (entries `k * 256 ..< (k + 1) * 256`) advances a byte through `k` further zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
            tables[n] = c
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = tables[(k - 1) * 256 + n]
                tables[k * 256 + n] = (previous >> 8) ^ tables[Int(previous & 0xff)]
            }
        }
        return tables
    }()
}
