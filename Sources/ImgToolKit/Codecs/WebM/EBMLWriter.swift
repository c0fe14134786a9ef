/// Builds EBML elements, the binary layout of Matroska and WebM: each element is its ID (1 to 4
/// bytes, length marker included), its size as a variable-length integer, and its content (an
/// unsigned or float number, text, bytes, or child elements).
struct EBMLWriter {
    /// The elements written so far.
    private(set) var bytes: [UInt8] = []

    /// A size as EBML's variable-length integer: the shortest form (1 to 8 bytes), or exactly
    /// `width` bytes when given (so that the size can be patched later at its place). All ones
    /// of a width mean "unknown", so a value needs one bit less than its width holds.
    static func size(_ value: Int, width: Int? = nil) -> [UInt8] {
        let length = width ?? (1...8).first { value < (1 << (7 * $0)) - 1 } ?? 8
        var out = [UInt8](repeating: 0, count: length)
        var rest = UInt64(value)
        for index in stride(from: length - 1, through: 0, by: -1) {
            out[index] = UInt8(truncatingIfNeeded: rest)
            rest >>= 8
        }
        out[0] |= UInt8(0x80 >> (length - 1))
        return out
    }

    /// An element ID's bytes: the ID as the specifications write it (its marker bits included).
    static func id(_ id: UInt32) -> [UInt8] {
        let length = id >= 1 << 24 ? 4 : id >= 1 << 16 ? 3 : id >= 1 << 8 ? 2 : 1
        return (0..<length).map { UInt8(truncatingIfNeeded: id >> (8 * (length - 1 - $0))) }
    }

    /// The big-endian bytes of `value` in `width` bytes.
    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
    }

    /// An element holding `content` as it is.
    mutating func element(_ id: UInt32, _ content: [UInt8]) {
        bytes += Self.id(id) + Self.size(content.count)
        bytes += content
    }

    /// An unsigned integer element in the fewest bytes (one at least), or `width` bytes.
    mutating func unsigned(_ id: UInt32, _ value: UInt64, width: Int? = nil) {
        let length = width ?? max(1, (64 - value.leadingZeroBitCount + 7) / 8)
        element(id, Self.bigEndian(value, width: length))
    }

    /// A signed integer element in the fewest bytes (two's complement).
    mutating func signed(_ id: UInt32, _ value: Int64) {
        var length = 1
        while length < 8, !(-(Int64(1) << (8 * length - 1))..<(Int64(1) << (8 * length - 1))).contains(value) {
            length += 1
        }
        element(id, Self.bigEndian(UInt64(bitPattern: value), width: length))
    }

    /// A float element, 8 bytes.
    mutating func float(_ id: UInt32, _ value: Double) {
        element(id, Self.bigEndian(value.bitPattern, width: 8))
    }

    /// A text element (ASCII or UTF-8).
    mutating func string(_ id: UInt32, _ value: String) {
        element(id, Array(value.utf8))
    }

    /// A master element whose children `body` writes.
    mutating func master(_ id: UInt32, _ body: (inout EBMLWriter) -> Void) {
        var children = EBMLWriter()
        body(&children)
        element(id, children.bytes)
    }

    /// Bytes as they are (an ID and size written by hand, or a prepared element).
    mutating func raw(_ data: [UInt8]) {
        bytes += data
    }
}

/// The Matroska element IDs imgtool writes (RFC 9559 and the WebM additions: `AlphaMode`).
enum MatroskaID {
    static let ebml: UInt32 = 0x1A45_DFA3
    static let ebmlVersion: UInt32 = 0x4286
    static let ebmlReadVersion: UInt32 = 0x42F7
    static let ebmlMaxIDLength: UInt32 = 0x42F2
    static let ebmlMaxSizeLength: UInt32 = 0x42F3
    static let docType: UInt32 = 0x4282
    static let docTypeVersion: UInt32 = 0x4287
    static let docTypeReadVersion: UInt32 = 0x4285
    static let segment: UInt32 = 0x1853_8067
    static let seekHead: UInt32 = 0x114D_9B74
    static let seek: UInt32 = 0x4DBB
    static let seekID: UInt32 = 0x53AB
    static let seekPosition: UInt32 = 0x53AC
    static let info: UInt32 = 0x1549_A966
    static let timestampScale: UInt32 = 0x2A_D7B1
    static let duration: UInt32 = 0x4489
    static let muxingApp: UInt32 = 0x4D80
    static let writingApp: UInt32 = 0x5741
    static let tracks: UInt32 = 0x1654_AE6B
    static let trackEntry: UInt32 = 0xAE
    static let trackNumber: UInt32 = 0xD7
    static let trackUID: UInt32 = 0x73C5
    static let trackType: UInt32 = 0x83
    static let flagLacing: UInt32 = 0x9C
    static let codecID: UInt32 = 0x86
    static let maxBlockAdditionID: UInt32 = 0x55EE
    static let video: UInt32 = 0xE0
    static let pixelWidth: UInt32 = 0xB0
    static let pixelHeight: UInt32 = 0xBA
    static let alphaMode: UInt32 = 0x53C0
    static let colour: UInt32 = 0x55B0
    static let matrixCoefficients: UInt32 = 0x55B1
    static let bitsPerChannel: UInt32 = 0x55B2
    static let chromaSubsamplingHorz: UInt32 = 0x55B3
    static let chromaSubsamplingVert: UInt32 = 0x55B4
    static let range: UInt32 = 0x55B9
    static let transferCharacteristics: UInt32 = 0x55BA
    static let primaries: UInt32 = 0x55BB
    static let cluster: UInt32 = 0x1F43_B675
    static let timestamp: UInt32 = 0xE7
    static let simpleBlock: UInt32 = 0xA3
    static let blockGroup: UInt32 = 0xA0
    static let block: UInt32 = 0xA1
    static let blockAdditions: UInt32 = 0x75A1
    static let blockMore: UInt32 = 0xA6
    static let blockAddID: UInt32 = 0xEE
    static let blockAdditional: UInt32 = 0xA5
    static let referenceBlock: UInt32 = 0xFB
    static let blockDuration: UInt32 = 0x9B
    static let cues: UInt32 = 0x1C53_BB6B
    static let cuePoint: UInt32 = 0xBB
    static let cueTime: UInt32 = 0xB3
    static let cueTrackPositions: UInt32 = 0xB7
    static let cueTrack: UInt32 = 0xF7
    static let cueClusterPosition: UInt32 = 0xF1
}
