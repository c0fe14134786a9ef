/// AV1 in MP4 (the AV1 Codec ISO Media File Format Binding): a sample is one temporal unit without
/// its temporal delimiter, every OBU with its size field; the `av1C` record carries the sequence
/// header's profile, level, tier and colour layout and the sequence header OBU itself.
extension MP4Muxer {
    /// One OBU of a low-overhead AV1 stream: its type and where it lies in the bytes.
    struct OBU {
        var type: Int
        var range: Range<Int>
        /// Where the payload starts (after the header, its extension and the size).
        var payload: Int
    }

    /// The OBUs of `bytes`, each with its size field (as libaom writes them), or `nil` when one is
    /// cut short or has no size field.
    static func obus(_ bytes: [UInt8]) -> [OBU]? {
        var obus: [OBU] = []
        var index = 0
        while index < bytes.count {
            let header = bytes[index]
            guard header & 0x80 == 0, header & 0x02 != 0 else { return nil }
            var position = index + 1 + (header & 0x04 != 0 ? 1 : 0)
            var size = 0
            var shift = 0
            while true {
                guard position < bytes.count, shift < 56 else { return nil }
                let byte = bytes[position]
                size |= Int(byte & 0x7F) << shift
                position += 1
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard size <= bytes.count - position else { return nil }
            obus.append(OBU(type: Int(header >> 3) & 0x0F, range: index..<position + size, payload: position))
            index = position + size
        }
        return obus
    }

    /// A temporal unit from libaom as an MP4 sample: its OBUs without the temporal delimiter
    /// (type 2), or `nil` when the bytes are not well-formed OBUs.
    static func av1Sample(_ temporalUnit: [UInt8]) -> [UInt8]? {
        guard let obus = obus(temporalUnit) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(temporalUnit.count)
        for obu in obus where obu.type != 2 { out += temporalUnit[obu.range] }
        return out
    }

    /// Reads bits most significant first.
    private struct BitReader {
        let bytes: ArraySlice<UInt8>
        var position = 0

        mutating func bits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                let byte = bytes.startIndex + position / 8
                guard byte < bytes.endIndex else { return nil }
                value = value << 1 | Int(bytes[byte] >> (7 - UInt8(position % 8))) & 1
                position += 1
            }
            return value
        }

        /// An unsigned variable-length code, `uvlc()`.
        mutating func uvlc() -> Int? {
            var zeros = 0
            while true {
                guard let bit = bits(1) else { return nil }
                if bit == 1 { break }
                zeros += 1
                if zeros >= 32 { return nil }
            }
            guard let rest = bits(zeros) else { return nil }
            return rest + (1 << zeros) - 1
        }
    }

    /// The `av1C` record (AV1CodecConfigurationRecord) for a sequence header OBU: marker and
    /// version 1, `seq_profile`, `seq_level_idx[0]`, `seq_tier[0]`, the bit depth, monochrome and
    /// chroma subsampling flags and the chroma sample position as the header says, no initial
    /// presentation delay, then the OBU as `configOBUs`. `nil` when `obu` is not one whole
    /// sequence header.
    static func av1Configuration(sequenceHeader obu: [UInt8]) -> [UInt8]? {
        guard let parsed = obus(obu), parsed.count == 1, parsed[0].type == 1 else { return nil }
        var reader = BitReader(bytes: obu[parsed[0].payload...])
        /// Reads `count` bits; `nil` past the end.
        func read(_ count: Int) -> Int? { reader.bits(count) }
        guard let profile = read(3), read(1) != nil, let reduced = read(1) else { return nil }
        var level = 0
        var tier = 0
        if reduced == 1 {
            guard let value = read(5) else { return nil }
            level = value
        } else {
            guard let timing = read(1) else { return nil }
            var decoderModel = 0
            var delayLength = 0
            if timing == 1 {
                guard read(32) != nil, read(32) != nil, let equal = read(1) else { return nil }
                if equal == 1 { guard reader.uvlc() != nil else { return nil } }
                guard let present = read(1) else { return nil }
                decoderModel = present
                if present == 1 {
                    guard let length = read(5), read(32) != nil, read(5) != nil, read(5) != nil else { return nil }
                    delayLength = length + 1
                }
            }
            guard let displayDelay = read(1), let points = read(5) else { return nil }
            for point in 0...points {
                guard read(12) != nil, let pointLevel = read(5) else { return nil }
                let pointTier = pointLevel > 7 ? read(1) : 0
                guard let pointTier else { return nil }
                if point == 0 { (level, tier) = (pointLevel, pointTier) }
                if decoderModel == 1 {
                    guard let present = read(1) else { return nil }
                    if present == 1 {
                        guard read(delayLength) != nil, read(delayLength) != nil, read(1) != nil else { return nil }
                    }
                }
                if displayDelay == 1 {
                    guard let present = read(1) else { return nil }
                    if present == 1 { guard read(4) != nil else { return nil } }
                }
            }
        }
        guard let widthBits = read(4), let heightBits = read(4), read(widthBits + 1) != nil,
            read(heightBits + 1) != nil
        else { return nil }
        if reduced == 0 {
            guard let frameIDs = read(1) else { return nil }
            if frameIDs == 1 { guard read(7) != nil else { return nil } }
        }
        // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter.
        guard read(3) != nil else { return nil }
        if reduced == 0 {
            // enable_interintra_compound, enable_masked_compound, enable_warped_motion,
            // enable_dual_filter, then enable_order_hint.
            guard read(4) != nil, let orderHint = read(1) else { return nil }
            if orderHint == 1 { guard read(2) != nil else { return nil } }
            guard let choose = read(1) else { return nil }
            var screenContent = 2
            if choose == 0 {
                guard let force = read(1) else { return nil }
                screenContent = force
            }
            if screenContent > 0 {
                guard let chooseInteger = read(1) else { return nil }
                if chooseInteger == 0 { guard read(1) != nil else { return nil } }
            }
            if orderHint == 1 { guard read(3) != nil else { return nil } }
        }
        // enable_superres, enable_cdef, enable_restoration, then color_config.
        guard read(3) != nil, let highBitDepth = read(1) else { return nil }
        var twelveBit = 0
        if profile == 2, highBitDepth == 1 {
            guard let value = read(1) else { return nil }
            twelveBit = value
        }
        let mono = profile == 1 ? 0 : read(1)
        guard let mono, let described = read(1) else { return nil }
        var (primaries, transfer, matrix) = (2, 2, 2)
        if described == 1 {
            guard let cp = read(8), let tc = read(8), let mc = read(8) else { return nil }
            (primaries, transfer, matrix) = (cp, tc, mc)
        }
        var (subsamplingX, subsamplingY, position) = (1, 1, 0)
        if mono == 1 {
            guard read(1) != nil else { return nil }
        } else if primaries == 1, transfer == 13, matrix == 0 {
            (subsamplingX, subsamplingY) = (0, 0)
        } else {
            guard read(1) != nil else { return nil }
            switch profile {
            case 0: (subsamplingX, subsamplingY) = (1, 1)
            case 1: (subsamplingX, subsamplingY) = (0, 0)
            default:
                if twelveBit == 1 {
                    guard let x = read(1) else { return nil }
                    let y = x == 1 ? read(1) : 0
                    guard let y else { return nil }
                    (subsamplingX, subsamplingY) = (x, y)
                } else {
                    (subsamplingX, subsamplingY) = (1, 0)
                }
            }
            if subsamplingX == 1, subsamplingY == 1 {
                guard let value = read(2) else { return nil }
                position = value
            }
        }
        let flags =
            tier << 7 | highBitDepth << 6 | twelveBit << 5 | mono << 4 | subsamplingX << 3 | subsamplingY << 2
            | position
        return [0x81, UInt8(profile << 5 | level), UInt8(flags), 0] + obu
    }
}
