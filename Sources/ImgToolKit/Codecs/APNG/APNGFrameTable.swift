/// One entry of an APNG's frame table: the frame's fcTL and where its zlib data lies.
struct APNGFrame: Sendable, Hashable {
    /// The frame's control chunk.
    var control: FCTLChunk
    /// Offset of the fcTL chunk, for messages.
    var offset: Int
    /// Whether the frame's data is the IDAT image (the default image is frame 0).
    var isDefaultImage: Bool
    /// The pieces of the frame's zlib stream (IDAT data, or fdAT data after the sequence
    /// number), as file offsets in file order; some may be empty.
    var data: [Range<Int>] = []

    /// The number of zlib bytes over all pieces.
    var dataByteCount: Int { data.reduce(0) { $0 + $1.count } }
}

/// Where the IDAT chunks are relative to the chunk being read.
enum ImageDataPhase: Sendable, Hashable {
    /// No IDAT yet.
    case before
    /// The previous chunk was an IDAT.
    case inside
    /// The IDAT chunks are over.
    case after
}

/// Builds an APNG's frame table from its chunks in file order, enforcing the APNG 1.0 rules:
/// one acTL, fcTL and fdAT sequence numbers 0, 1, 2, ... with no gap, every fcTL followed by
/// data (IDAT for the default image, fdAT after it), and valid, CRC-checked acTL, fcTL and fdAT
/// chunks.
///
/// acTL's num_frames should equal the number of fcTL chunks. When it is no count at all (0, or
/// more than 2^31 - 1: 0xFFFFFFFF is what a writer streaming to a pipe leaves) or fewer than the
/// fcTL chunks, the frames that are there are read, with a warning: the chunks are the evidence.
/// A valid count above the fcTL chunks found is an error (the APNG test suite's "num_frames too
/// high": frames may be missing), and so is an acTL with no fcTL at all.
struct APNGFrameTableBuilder {
    /// The file's header.
    let header: IHDRChunk
    private var control: (chunk: ACTLChunk, offset: Int)?
    private var frames: [APNGFrame] = []
    private var nextSequence: UInt32 = 0

    init(header: IHDRChunk) {
        self.header = header
    }

    /// Takes the next chunk after IHDR.
    /// - Parameters:
    ///   - chunk: the chunk, already read and length-checked.
    ///   - data: the file.
    ///   - phase: where the IDAT chunks are, before this chunk.
    /// - Throws: ``APNGParseError`` for the first APNG rule the chunk breaks.
    mutating func consume(_ chunk: PNGChunk, in data: [UInt8], phase: ImageDataPhase) throws(APNGParseError) {
        switch chunk.type {
        case .actl:
            try checkCRC(chunk)
            if let control {
                throw .duplicateAnimationControl(offset: chunk.offset, first: control.offset)
            }
            if phase != .before {
                throw .misplacedChunk(.actl, offset: chunk.offset, reason: "comes after the image data (IDAT)")
            }
            control = (try ACTLChunk(parsing: data[chunk.data], offset: chunk.offset), chunk.offset)
        case .fctl:
            try checkCRC(chunk)
            let frameControl = try FCTLChunk(parsing: data[chunk.data], header: header, offset: chunk.offset)
            try checkSequence(frameControl.sequenceNumber, chunk)
            try checkLastFrameHasData()
            if phase == .before {
                let canvas = FrameRegion(x: 0, y: 0, width: header.width, height: header.height)
                guard frameControl.region == canvas else {
                    throw .defaultImageRegion(
                        offset: chunk.offset, region: frameControl.region, canvasWidth: header.width,
                        canvasHeight: header.height)
                }
            }
            frames.append(APNGFrame(control: frameControl, offset: chunk.offset, isDefaultImage: phase == .before))
        case .fdat:
            try checkCRC(chunk)
            let frameData = try FDATChunk(parsing: data[chunk.data], offset: chunk.offset)
            try checkSequence(frameData.sequenceNumber, chunk)
            guard phase != .before else {
                throw .misplacedChunk(.fdat, offset: chunk.offset, reason: "comes before the image data (IDAT)")
            }
            guard let last = frames.indices.last else {
                throw .misplacedChunk(.fdat, offset: chunk.offset, reason: "comes before any fcTL")
            }
            guard !frames[last].isDefaultImage else {
                throw .misplacedChunk(
                    .fdat, offset: chunk.offset,
                    reason: "follows the default image's fcTL, whose data is the IDAT image")
            }
            frames[last].data.append(frameData.frameData.indices)
        case .idat:
            if phase == .after {
                throw .misplacedChunk(.idat, offset: chunk.offset, reason: "is separated from the earlier IDAT chunks")
            }
            if let last = frames.indices.last, frames[last].isDefaultImage {
                frames[last].data.append(chunk.data)
            }
        default:
            break
        }
    }

    /// The animation control and the frame table, once every chunk has been consumed, and a
    /// warning when acTL's num_frames disagrees with the fcTL chunks found (the frames found are
    /// the table).
    /// - Throws: ``APNGParseError`` `missingAnimationControl`, `frameWithoutData`, or
    ///   `frameCountMismatch` when there is no fcTL at all or a valid count is above the fcTL count.
    func finish() throws(APNGParseError) -> (control: ACTLChunk, frames: [APNGFrame], warning: String?) {
        guard let control else { throw .missingAnimationControl }
        try checkLastFrameHasData()
        let declared = control.chunk.frameCount
        guard !frames.isEmpty else { throw .frameCountMismatch(declared: declared, found: 0) }
        guard frames.count != declared else { return (control.chunk, frames, nil) }
        let isCount = (1...PNGChunk.maxLength).contains(declared)
        // A valid count above the frames present is the APNG test suite's "num_frames too
        // high": an error, so the default image (the file may have lost frames).
        if isCount && declared > frames.count {
            throw .frameCountMismatch(declared: declared, found: frames.count)
        }
        let count = "\(frames.count) frame\(frames.count == 1 ? "" : "s")"
        let reason =
            declared == 0xFFFF_FFFF
            ? ", the value a writer streaming to a pipe leaves when it cannot go back to fill the count in"
            : isCount ? "" : ", which the APNG specification does not allow"
        let warning =
            "acTL at offset \(control.offset) declares num_frames \(declared)\(reason), but the file has \(count) (fcTL chunks); reading the \(count) that are there"
        return (control.chunk, frames, warning)
    }

    private func checkCRC(_ chunk: PNGChunk) throws(APNGParseError) {
        guard chunk.hasValidCRC else {
            throw .invalidChunkChecksum(
                chunk.type, offset: chunk.offset, declared: chunk.storedCRC, computed: chunk.computedCRC)
        }
    }

    private mutating func checkSequence(_ sequence: UInt32, _ chunk: PNGChunk) throws(APNGParseError) {
        guard sequence == nextSequence else {
            throw .unexpectedSequenceNumber(chunk.type, offset: chunk.offset, found: sequence, expected: nextSequence)
        }
        nextSequence += 1
    }

    private func checkLastFrameHasData() throws(APNGParseError) {
        if let last = frames.last, last.dataByteCount == 0 {
            throw .frameWithoutData(frame: frames.count - 1, offset: last.offset)
        }
    }
}
