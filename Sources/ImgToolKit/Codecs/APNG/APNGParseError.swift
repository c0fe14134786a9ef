/// Why an APNG's chunks break the APNG 1.0 rules, with the evidence: chunk names, offsets,
/// sequence numbers, declared and found values.
///
/// These are phase errors of the chunk parser. ``APNGSource`` turns an error in the animation
/// chunks (acTL, fcTL, fdAT) into a warning and shows the default image, as the APNG
/// specification recommends; an error in IHDR becomes a `corrupt` ``ImgToolError``.
enum APNGParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A chunk's data has the wrong length.
    case invalidChunkLength(PNGChunkType, offset: Int, length: Int, expected: String)
    /// A field holds a value the format does not allow.
    case invalidField(PNGChunkType, offset: Int, field: String, value: Int, allowed: String)
    /// The CRC stored after a chunk does not match its bytes.
    case invalidChunkChecksum(PNGChunkType, offset: Int, declared: UInt32, computed: UInt32)
    /// An fcTL or fdAT does not carry the next sequence number.
    case unexpectedSequenceNumber(PNGChunkType, offset: Int, found: UInt32, expected: UInt32)
    /// A second acTL.
    case duplicateAnimationControl(offset: Int, first: Int)
    /// A chunk where the APNG rules do not allow it.
    case misplacedChunk(PNGChunkType, offset: Int, reason: String)
    /// An fcTL whose frame has no image data (no fdAT, or only empty ones).
    case frameWithoutData(frame: Int, offset: Int)
    /// A frame region that reaches past the canvas.
    case frameOutsideCanvas(offset: Int, sequence: UInt32, region: FrameRegion, canvasWidth: Int, canvasHeight: Int)
    /// The fcTL of the default image does not cover the whole canvas at 0,0.
    case defaultImageRegion(offset: Int, region: FrameRegion, canvasWidth: Int, canvasHeight: Int)
    /// acTL declares more frames than the file's fcTL chunks (or declares frames and has no
    /// fcTL); an impossible count, or one below the fcTL count, is a warning instead.
    case frameCountMismatch(declared: Int, found: Int)
    /// No acTL chunk before the image data.
    case missingAnimationControl

    var description: String {
        switch self {
        case .invalidChunkLength(let type, let offset, let length, let expected):
            "\(type) at offset \(offset) has \(length) bytes of data, expected \(expected)"
        case .invalidField(let type, let offset, let field, let value, let allowed):
            "\(type) at offset \(offset) has \(field) \(value), allowed \(allowed)"
        case .invalidChunkChecksum(let type, let offset, let declared, let computed):
            "\(type) at offset \(offset) has CRC \(Self.hex(declared)), but its bytes give \(Self.hex(computed))"
        case .unexpectedSequenceNumber(let type, let offset, let found, let expected):
            "\(type) at offset \(offset) has sequence number \(found), expected \(expected)"
        case .duplicateAnimationControl(let offset, let first):
            "a second acTL at offset \(offset) (the first is at offset \(first))"
        case .misplacedChunk(let type, let offset, let reason):
            "\(type) at offset \(offset) \(reason)"
        case .frameWithoutData(let frame, let offset):
            "frame \(frame) (fcTL at offset \(offset)) has no image data"
        case .frameOutsideCanvas(let offset, let sequence, let region, let width, let height):
            "fcTL \(sequence) at offset \(offset): frame region \(region) extends past the \(width)x\(height) canvas"
        case .defaultImageRegion(let offset, let region, let width, let height):
            "fcTL at offset \(offset) for the default image declares \(region), expected \(width)x\(height) at 0,0"
        case .frameCountMismatch(let declared, let found):
            "acTL declares num_frames \(declared), but the file has \(found) fcTL chunks"
        case .missingAnimationControl:
            "no acTL chunk before the image data"
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
