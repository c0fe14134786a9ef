/// A PNG chunk type: four ASCII letters, kept as the big-endian `UInt32` they form.
struct PNGChunkType: Sendable, Hashable, CustomStringConvertible {
    /// The four type bytes as a big-endian integer.
    let rawValue: UInt32

    init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The type named by four ASCII letters.
    init(_ name: StaticString) {
        precondition(name.utf8CodeUnitCount == 4, "a chunk type has four letters")
        let bytes = UnsafeBufferPointer(start: name.utf8Start, count: 4)
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static let ihdr = PNGChunkType("IHDR")
    static let plte = PNGChunkType("PLTE")
    static let trns = PNGChunkType("tRNS")
    static let idat = PNGChunkType("IDAT")
    static let iend = PNGChunkType("IEND")
    static let actl = PNGChunkType("acTL")
    static let fctl = PNGChunkType("fcTL")
    static let fdat = PNGChunkType("fdAT")

    /// The four type bytes, in file order.
    var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
            UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// Critical chunks have an upper-case first letter (bit 5 of the first byte clear).
    var isCritical: Bool { rawValue & 0x2000_0000 == 0 }

    /// The four letters, or the hexadecimal value when they are not ASCII letters.
    var description: String {
        let letters = bytes
        if letters.allSatisfy({ (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) }) {
            return String(decoding: letters, as: UTF8.self)
        }
        return "0x" + String(rawValue, radix: 16)
    }
}

/// Where one chunk lies in a PNG file: offsets only, never a copy of its data.
struct PNGChunk: Sendable, Hashable {
    /// The chunk's type.
    var type: PNGChunkType
    /// Offset of the chunk's length field in the file.
    var offset: Int
    /// The chunk's data, as offsets into the file.
    var data: Range<Int>
    /// The CRC stored after the data.
    var storedCRC: UInt32
    /// The CRC of the type and data as read.
    var computedCRC: UInt32

    /// Whether the stored CRC matches the bytes.
    var hasValidCRC: Bool { storedCRC == computedCRC }
    /// Offset of the byte after the chunk (after its CRC).
    var end: Int { data.upperBound + 4 }
    /// `fdAT at offset 1234`, for messages.
    var name: String { "\(type) at offset \(offset)" }

    /// PNG's largest chunk length, 2^31 - 1.
    static let maxLength = 0x7fff_ffff

    /// Reads the chunk that starts at `offset`, checking its declared length against the bytes
    /// that remain before anything is sliced.
    /// - Throws: ``ImgToolError`` `truncated` when the chunk does not fit in `data`, `corrupt`
    ///   when its length passes 2^31 - 1.
    static func read(in data: [UInt8], at offset: Int) throws(ImgToolError) -> PNGChunk {
        let remaining = data.count - offset
        guard remaining >= 8 else {
            throw ImgToolError(
                .truncated,
                "truncated APNG: the data ends inside a chunk header at offset \(offset) (\(remaining) of 8 bytes)")
        }
        let length = Int(data.bigEndianUInt32(at: offset))
        let type = PNGChunkType(rawValue: data.bigEndianUInt32(at: offset + 4))
        guard length <= maxLength else {
            throw ImgToolError(
                .corrupt,
                "corrupt APNG: chunk \(type) at offset \(offset) declares \(length) bytes, over PNG's limit of 2^31-1")
        }
        guard length <= remaining - 12 else {
            throw ImgToolError(
                .truncated,
                "truncated APNG: chunk \(type) at offset \(offset) declares \(length) bytes of data and a CRC, but only \(remaining - 8) bytes remain"
            )
        }
        let dataStart = offset + 8
        let crc = data.withUnsafeBytes { raw in
            var crc = CRC32()
            crc.update(buffer: UnsafeRawBufferPointer(rebasing: raw[offset + 4..<dataStart + length]))
            return crc.checksum
        }
        return PNGChunk(
            type: type, offset: offset, data: dataStart..<dataStart + length,
            storedCRC: data.bigEndianUInt32(at: dataStart + length), computedCRC: crc)
    }

    /// Appends a chunk with its length, type, data and CRC to `out`.
    static func append(_ type: PNGChunkType, data: some Collection<UInt8>, to out: inout [UInt8]) {
        precondition(data.count <= maxLength, "chunk too long")
        out.appendBigEndian(UInt32(data.count))
        let start = out.count
        out.append(contentsOf: type.bytes)
        out.append(contentsOf: data)
        let crc = out.withUnsafeBytes { raw in
            var crc = CRC32()
            crc.update(buffer: UnsafeRawBufferPointer(rebasing: raw[start...]))
            return crc.checksum
        }
        out.appendBigEndian(crc)
    }
}

extension Collection<UInt8> where Index == Int {
    /// The big-endian `UInt32` at `offset`; the caller has checked that four bytes are there.
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    /// The big-endian `UInt16` at `offset`; the caller has checked that two bytes are there.
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }
}

extension [UInt8] {
    /// Appends `value` as four big-endian bytes.
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ])
    }

    /// Appends `value` as two big-endian bytes.
    mutating func appendBigEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
