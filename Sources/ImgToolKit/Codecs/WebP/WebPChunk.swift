/// Where one RIFF chunk lies in a WebP file: its four-letter tag and offsets, never a copy of
/// its data.
///
/// A chunk is a four-byte tag (`VP8 `, `VP8L`, `VP8X`, `ALPH`, `ANIM`, `ANMF`, ...), a
/// little-endian 32-bit payload size, the payload, and one pad byte when the size is odd (the
/// WebP container specification, "RIFF file format").
struct WebPChunk: Sendable, Hashable {
    /// The four tag bytes as text (`VP8 ` keeps its space), or their hexadecimal value when they
    /// are not printable ASCII.
    var tag: String
    /// Offset of the tag in the file.
    var offset: Int
    /// The payload, as offsets into the file (the pad byte excluded).
    var payload: Range<Int>

    /// Offset of the next chunk: after the payload and its pad byte.
    var end: Int { payload.upperBound + (payload.count & 1) }

    /// The chunk, header included: what libwebp's `WebPDecode` and `WebPGetFeatures` take for a
    /// `VP8 ` or `VP8L` chunk.
    var whole: Range<Int> { offset..<payload.upperBound }

    /// The tag as a file names it, for messages: `VP8 ` is written `VP8`.
    var name: String { tag == "VP8 " ? "VP8" : tag }

    static let headerSize = 8
    /// The largest payload libwebp accepts (`MAX_CHUNK_PAYLOAD`, 2^32 - 10).
    static let maxPayload = Int(UInt32.max) - 8 - 1

    /// Why a chunk could not be read.
    enum Failure: Error, Sendable {
        /// The data ends before the chunk does (offset of the chunk, its declared end).
        case truncated(String)
        /// The chunk breaks the container's rules.
        case corrupt(String)
        /// A declared size passes a ``DecodingLimits`` limit.
        case limit(ImgToolError)
    }

    /// Reads the chunk header at `offset`.
    /// - Parameters:
    ///   - data: the file.
    ///   - offset: where the chunk's tag starts.
    ///   - limit: where the enclosing chunk (the RIFF chunk, or an `ANMF` frame) ends as declared.
    ///   - context: names the enclosing chunk in messages ("the RIFF data", "ANMF frame 3").
    /// - Throws: `truncated` when the file ends before the chunk's payload does; `corrupt` when
    ///   the chunk reaches past `limit`.
    init(in data: [UInt8], at offset: Int, limit: Int, context: String) throws(Failure) {
        guard offset + Self.headerSize <= limit else {
            throw .corrupt(
                "\(limit - offset) stray bytes at offset \(offset), too few for a chunk header, end \(context)")
        }
        guard offset + Self.headerSize <= data.count else {
            throw .truncated("the data ends at byte \(data.count), inside the chunk header at offset \(offset)")
        }
        let tagBytes = data[offset..<offset + 4]
        tag =
            tagBytes.allSatisfy { (0x20...0x7e).contains($0) }
            ? String(decoding: tagBytes, as: UTF8.self)
            : "0x" + tagBytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        self.offset = offset
        let size = Int(data.webPUInt32(at: offset + 4))
        let start = offset + Self.headerSize
        payload = start..<start + size
        let name = tag == "VP8 " ? "VP8" : tag
        guard size <= Self.maxPayload, start + size <= limit else {
            throw .corrupt(
                "the \(name) chunk at offset \(offset) declares \(size) bytes, past the end of \(context) at byte \(limit)"
            )
        }
        guard start + size <= data.count else {
            throw .truncated(
                "the data ends at byte \(data.count), inside the \(name) chunk at offset \(offset), which declares \(size) bytes"
            )
        }
    }
}

extension Array where Element == UInt8 {
    /// The little-endian `UInt32` at `index` (which must have four bytes), as RIFF stores sizes.
    func webPUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) | UInt32(self[index + 1]) << 8 | UInt32(self[index + 2]) << 16
            | UInt32(self[index + 3]) << 24
    }

    /// The little-endian 24-bit value at `index` (which must have three bytes), as VP8X, ANIM
    /// and ANMF store their fields.
    func webPUInt24(at index: Int) -> Int {
        Int(self[index]) | Int(self[index + 1]) << 8 | Int(self[index + 2]) << 16
    }
}
