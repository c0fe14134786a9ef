/// The APNG animation control chunk (acTL): how many frames and how many plays.
struct ACTLChunk: Sendable, Hashable {
    /// `num_frames` as stored: the number of frames (fcTL chunks) the file declares. The APNG
    /// specification allows 1 ... 2^31 - 1, but a writer streaming to a pipe cannot go back to
    /// fill the count in (ffmpeg leaves 0xFFFFFFFF), so any 32-bit value is kept here and
    /// ``APNGFrameTableBuilder/finish()`` weighs it against the fcTL chunks present.
    var frameCount: Int
    /// `num_plays`: how many times the animation plays; 0 means forever.
    var plays: Int

    /// Creates an animation control record.
    init(frameCount: Int, plays: Int) {
        self.frameCount = frameCount
        self.plays = plays
    }

    /// Parses and validates acTL's 8 data bytes.
    /// - Parameters:
    ///   - bytes: the chunk data, indexed by file offset.
    ///   - offset: the chunk's offset, for messages.
    /// - Throws: ``APNGParseError`` when the length is not 8 or num_plays passes 2^31 - 1 (num_frames
    ///   is kept whatever its value; the frame table is checked against it).
    init(parsing bytes: ArraySlice<UInt8>, offset: Int) throws(APNGParseError) {
        guard bytes.count == 8 else {
            throw .invalidChunkLength(.actl, offset: offset, length: bytes.count, expected: "8")
        }
        let frames = Int(bytes.bigEndianUInt32(at: bytes.startIndex))
        let plays = Int(bytes.bigEndianUInt32(at: bytes.startIndex + 4))
        guard plays <= PNGChunk.maxLength else {
            throw .invalidField(.actl, offset: offset, field: "num_plays", value: plays, allowed: "0...2147483647")
        }
        self.init(frameCount: frames, plays: plays)
    }

    /// The 8 data bytes, as acTL stores them.
    var serialized: [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(UInt32(frameCount))
        out.appendBigEndian(UInt32(plays))
        return out
    }
}
