/// The APNG frame control chunk (fcTL): one frame's region, delay, disposal and blending.
struct FCTLChunk: Sendable, Hashable {
    /// Position in the sequence shared by fcTL and fdAT chunks, from 0.
    var sequenceNumber: UInt32
    /// Where the frame goes on the canvas; never empty, always inside the canvas.
    var region: FrameRegion
    /// `delay_num`: the delay's numerator, in seconds.
    var delayNumerator: UInt16
    /// `delay_den`: the delay's denominator; 0 means 100.
    var delayDenominator: UInt16
    /// `dispose_op`: 0 none, 1 background, 2 previous.
    var disposal: FrameDisposal
    /// `blend_op`: 0 source, 1 over.
    var blend: FrameBlend

    /// Creates a frame control record.
    init(
        sequenceNumber: UInt32, region: FrameRegion, delayNumerator: UInt16, delayDenominator: UInt16,
        disposal: FrameDisposal, blend: FrameBlend
    ) {
        self.sequenceNumber = sequenceNumber
        self.region = region
        self.delayNumerator = delayNumerator
        self.delayDenominator = delayDenominator
        self.disposal = disposal
        self.blend = blend
    }

    /// Parses and validates fcTL's 26 data bytes against the canvas that `header` declares.
    /// - Parameters:
    ///   - bytes: the chunk data, indexed by file offset.
    ///   - header: the file's IHDR: the frame must lie inside its canvas.
    ///   - offset: the chunk's offset, for messages.
    /// - Throws: ``APNGParseError`` when the length is not 26, the frame is empty or leaves the
    ///   canvas, or dispose_op or blend_op is unknown.
    init(parsing bytes: ArraySlice<UInt8>, header: IHDRChunk, offset: Int) throws(APNGParseError) {
        guard bytes.count == 26 else {
            throw .invalidChunkLength(.fctl, offset: offset, length: bytes.count, expected: "26")
        }
        let base = bytes.startIndex
        let sequence = bytes.bigEndianUInt32(at: base)
        guard sequence <= PNGChunk.maxLength else {
            throw .invalidField(
                .fctl, offset: offset, field: "sequence_number", value: Int(sequence), allowed: "0...2147483647")
        }
        var fields: [Int] = []
        for (index, name) in ["width", "height", "x_offset", "y_offset"].enumerated() {
            let value = Int(bytes.bigEndianUInt32(at: base + 4 + 4 * index))
            let allowed = index < 2 ? 1...PNGChunk.maxLength : 0...PNGChunk.maxLength
            guard allowed.contains(value) else {
                throw .invalidField(
                    .fctl, offset: offset, field: name, value: value, allowed: "\(allowed.lowerBound)...2147483647")
            }
            fields.append(value)
        }
        let region = FrameRegion(x: fields[2], y: fields[3], width: fields[0], height: fields[1])
        // Each field is below 2^31, so the sums cannot overflow.
        guard region.x + region.width <= header.width, region.y + region.height <= header.height else {
            throw .frameOutsideCanvas(
                offset: offset, sequence: sequence, region: region, canvasWidth: header.width,
                canvasHeight: header.height)
        }
        let disposal: FrameDisposal
        switch bytes[base + 24] {
        case 0: disposal = .none
        case 1: disposal = .background
        case 2: disposal = .previous
        case let other:
            throw .invalidField(.fctl, offset: offset, field: "dispose_op", value: Int(other), allowed: "0, 1 or 2")
        }
        let blend: FrameBlend
        switch bytes[base + 25] {
        case 0: blend = .source
        case 1: blend = .over
        case let other:
            throw .invalidField(.fctl, offset: offset, field: "blend_op", value: Int(other), allowed: "0 or 1")
        }
        self.init(
            sequenceNumber: sequence, region: region, delayNumerator: bytes.bigEndianUInt16(at: base + 20),
            delayDenominator: bytes.bigEndianUInt16(at: base + 22), disposal: disposal, blend: blend)
    }

    /// The delay, `delay_num / delay_den` seconds, with a denominator of 0 read as 100.
    var delay: Duration {
        .seconds(Int(delayNumerator)) / Int(delayDenominator == 0 ? 100 : delayDenominator)
    }

    /// The 26 data bytes, as fcTL stores them.
    var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(26)
        for value in [Int(sequenceNumber), region.width, region.height, region.x, region.y] {
            out.appendBigEndian(UInt32(value))
        }
        out.appendBigEndian(delayNumerator)
        out.appendBigEndian(delayDenominator)
        let dispose: UInt8 =
            switch disposal {
            case .none: 0
            case .background: 1
            case .previous: 2
            }
        out.append(contentsOf: [dispose, blend == .source ? 0 : 1])
        return out
    }
}
