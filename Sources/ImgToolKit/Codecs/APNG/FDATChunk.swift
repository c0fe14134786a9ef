/// The APNG frame data chunk (fdAT): a sequence number and a piece of a frame's zlib stream,
/// which continues across the frame's fdAT chunks exactly as IDAT chunks do.
struct FDATChunk: Sendable, Hashable {
    /// Position in the sequence shared by fcTL and fdAT chunks.
    var sequenceNumber: UInt32
    /// The frame data after the sequence number: a view into the file, not a copy. Its indices
    /// are file offsets. It may be empty.
    var frameData: ArraySlice<UInt8>

    /// Creates a frame data record.
    init(sequenceNumber: UInt32, frameData: ArraySlice<UInt8>) {
        self.sequenceNumber = sequenceNumber
        self.frameData = frameData
    }

    /// Parses fdAT's data: a 4-byte sequence number, then any number of frame data bytes.
    /// - Parameters:
    ///   - bytes: the chunk data, indexed by file offset.
    ///   - offset: the chunk's offset, for messages.
    /// - Throws: ``APNGParseError`` when the chunk is shorter than 4 bytes or the sequence number passes 2^31 - 1.
    init(parsing bytes: ArraySlice<UInt8>, offset: Int) throws(APNGParseError) {
        guard bytes.count >= 4 else {
            throw .invalidChunkLength(.fdat, offset: offset, length: bytes.count, expected: "at least 4")
        }
        let sequence = bytes.bigEndianUInt32(at: bytes.startIndex)
        guard sequence <= PNGChunk.maxLength else {
            throw .invalidField(
                .fdat, offset: offset, field: "sequence_number", value: Int(sequence), allowed: "0...2147483647")
        }
        self.init(sequenceNumber: sequence, frameData: bytes[(bytes.startIndex + 4)...])
    }

    /// The chunk data, as fdAT stores it.
    var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + frameData.count)
        out.appendBigEndian(sequenceNumber)
        out.append(contentsOf: frameData)
        return out
    }
}
