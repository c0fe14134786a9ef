/// What the parent asks a child decoder (``DecoderIsolation``): which decoder (`heif`), what to do
/// (`describe`: the structure and metadata; `decode`: the frames at ``depth``), the limits, and
/// the file.
///
/// On the wire, little-endian: `IMGD`, version 1, the kind and the operation as strings (a 32-bit
/// length, then UTF-8), the depth (0, 8 or 16), the four limits as 64-bit numbers, then the
/// file's 64-bit length and its bytes. The child answers with records (``IsolatedRecord``).
struct IsolatedRequest {
    var kind: String
    var operation: String
    var depth: SampleDepth?
    var limits: DecodingLimits
    var data: [UInt8]

    static let magic: [UInt8] = Array("IMGD".utf8) + [1]

    /// Everything before the file's bytes.
    var header: [UInt8] {
        var wire = WireWriter()
        wire.bytes(Self.magic)
        wire.string(kind)
        wire.string(operation)
        wire.byte(depth == .sixteen ? 16 : depth == .eight ? 8 : 0)
        for limit in [limits.maxPixels, limits.maxFrames, limits.maxTotalPixels, limits.maxChunkBytes] {
            wire.u64(UInt64(clamping: limit))
        }
        wire.u64(UInt64(data.count))
        return wire.bytes
    }
}

/// What a child decoder sends back, one record after another: `P` and a 32-bit length, a
/// payload the decoder defines (a description); `F`, a 32-bit width and height and the depth
/// (8 or 16), then the frame's RGBA rows; `E`, an error (its code, message, cause and limit);
/// `Z`, the end.
enum IsolatedRecord {
    static let payload = UInt8(ascii: "P")
    static let frame = UInt8(ascii: "F")
    static let error = UInt8(ascii: "E")
    static let end = UInt8(ascii: "Z")
}

/// Little-endian fields appended to a byte array.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func bytes(_ value: [UInt8]) { bytes += value }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        u32(UInt32(clamping: utf8.count))
        bytes += utf8
    }

    mutating func optionalString(_ value: String?) {
        byte(value == nil ? 0 : 1)
        if let value { string(value) }
    }

    mutating func optionalBlock(_ value: [UInt8]?) {
        byte(value == nil ? 0 : 1)
        if let value {
            u32(UInt32(clamping: value.count))
            bytes += value
        }
    }
}

/// Reads what ``WireWriter`` wrote, every read bounds-checked: `nil` past the end.
struct WireReader {
    let bytes: [UInt8]
    private(set) var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func u32() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        defer { at += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }

    mutating func u64() -> UInt64? {
        guard at + 8 <= bytes.count else { return nil }
        defer { at += 8 }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    mutating func block() -> [UInt8]? {
        guard let count = u32().map(Int.init), at + count <= bytes.count else { return nil }
        defer { at += count }
        return Array(bytes[at..<at + count])
    }

    mutating func string() -> String? { block().map { String(decoding: $0, as: UTF8.self) } }

    /// `.some(nil)` for an absent value, `nil` when the bytes are cut.
    mutating func optionalBlock() -> [UInt8]?? {
        guard let present = byte() else { return nil }
        guard present == 1 else { return .some(nil) }
        guard let value = block() else { return nil }
        return .some(value)
    }

    mutating func optionalString() -> String?? {
        guard let block = optionalBlock() else { return nil }
        return .some(block.map { String(decoding: $0, as: UTF8.self) })
    }
}
