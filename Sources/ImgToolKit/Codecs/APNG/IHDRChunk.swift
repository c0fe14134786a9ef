/// The PNG image header (IHDR): canvas size and how samples are stored.
///
/// An APNG frame is rebuilt as a PNG stream whose IHDR is this one with the frame's size
/// (``resized(width:height:)``).
struct IHDRChunk: Sendable, Hashable {
    /// Width in pixels, 1 ... 2^31 - 1.
    var width: Int
    /// Height in pixels, 1 ... 2^31 - 1.
    var height: Int
    /// Bits per sample: 1, 2, 4, 8 or 16, as the colour type allows.
    var bitDepth: Int
    /// The stored colour type.
    var colorType: ColorType
    /// Whether the image data is Adam7-interlaced.
    var isInterlaced: Bool

    /// Creates a header.
    init(width: Int, height: Int, bitDepth: Int, colorType: ColorType, isInterlaced: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.isInterlaced = isInterlaced
    }

    /// Parses and validates IHDR's 13 data bytes.
    /// - Parameters:
    ///   - bytes: the chunk data, indexed by file offset.
    ///   - offset: the chunk's offset, for messages.
    /// - Throws: ``APNGParseError`` when the length is not 13 or a field has a value PNG does not allow.
    init(parsing bytes: ArraySlice<UInt8>, offset: Int) throws(APNGParseError) {
        guard bytes.count == 13 else {
            throw .invalidChunkLength(.ihdr, offset: offset, length: bytes.count, expected: "13")
        }
        let base = bytes.startIndex
        let width = Int(bytes.bigEndianUInt32(at: base))
        let height = Int(bytes.bigEndianUInt32(at: base + 4))
        for (field, value) in [("width", width), ("height", height)] where !(1...PNGChunk.maxLength).contains(value) {
            throw .invalidField(.ihdr, offset: offset, field: field, value: value, allowed: "1...2147483647")
        }
        let bitDepth = Int(bytes[base + 8])
        guard let colorType = ColorType(pngCode: Int(bytes[base + 9])) else {
            throw .invalidField(
                .ihdr, offset: offset, field: "colour type", value: Int(bytes[base + 9]), allowed: "0, 2, 3, 4 or 6")
        }
        let depths: [Int] =
            switch colorType {
            case .gray: [1, 2, 4, 8, 16]
            case .palette: [1, 2, 4, 8]
            case .rgb, .grayAlpha, .rgba: [8, 16]
            }
        guard depths.contains(bitDepth) else {
            throw .invalidField(
                .ihdr, offset: offset, field: "bit depth", value: bitDepth,
                allowed: depths.map(String.init).joined(separator: ", ") + " for colour type \(colorType.pngCode)")
        }
        for (field, index, allowed) in [
            ("compression method", 10, 0), ("filter method", 11, 0), ("interlace method", 12, 1),
        ]
        where Int(bytes[base + index]) > allowed {
            throw .invalidField(
                .ihdr, offset: offset, field: field, value: Int(bytes[base + index]),
                allowed: allowed == 0 ? "0" : "0 or 1")
        }
        self.init(
            width: width, height: height, bitDepth: bitDepth, colorType: colorType, isInterlaced: bytes[base + 12] == 1)
    }

    /// The 13 data bytes, as IHDR stores them.
    var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(13)
        out.appendBigEndian(UInt32(width))
        out.appendBigEndian(UInt32(height))
        out.append(contentsOf: [UInt8(bitDepth), UInt8(colorType.pngCode), 0, 0, isInterlaced ? 1 : 0])
        return out
    }

    /// This header with another size: the IHDR of a rebuilt APNG frame.
    func resized(width: Int, height: Int) -> IHDRChunk {
        IHDRChunk(width: width, height: height, bitDepth: bitDepth, colorType: colorType, isInterlaced: isInterlaced)
    }
}
