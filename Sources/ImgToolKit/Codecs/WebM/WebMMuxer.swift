/// Writes a WebM file of one VP9 video track, streaming: the header first, then each cluster
/// as it fills, then the cues; the few sizes known only at the end (the segment's, the cues'
/// position, the duration) are written in fixed widths and patched in place
/// (``ByteSink/rewrite(_:at:)``), so the file is seekable: browsers read the duration and seek
/// through the cues.
///
/// Layout: the EBML header (`webm`, version 4), then a Segment holding a SeekHead (Info, Tracks,
/// Cues), Info (timestamps in milliseconds, the duration), Tracks (`V_VP9`, the pixel size, the
/// colour description, and alpha mode 1 with one block addition when there is alpha), the
/// Clusters, and Cues (one per cluster that starts with a key frame). A cluster starts at each key
/// frame, or where a block's time would not fit its 16-bit offset from the cluster's. Frames are
/// SimpleBlocks with the key-frame flag; with alpha, BlockGroups whose BlockAdditions hold the
/// alpha plane's VP9 frame (BlockAddID 1), a ReferenceBlock marking frames that are not key
/// frames: the layout Chrome and Firefox play. The last frame is in a BlockGroup with its
/// BlockDuration, so that a reader knows how long it shows.
struct WebMMuxer {
    /// What the track says about colour.
    enum Colour {
        /// BT.709 matrix, primaries and transfer, limited range, 4:2:0.
        case bt709Limited
        /// RGB as GBR (identity matrix), full range, 4:4:4, sRGB.
        case rgb
    }

    let width: Int
    let height: Int
    let alpha: Bool
    let colour: Colour
    /// Bytes written through the sink so far.
    private var written = 0
    /// Where the segment's size is, and where its content starts.
    private var segmentSizeAt = 0
    private var segmentStart = 0
    private var durationAt = 0
    private var cuesPositionAt = 0
    /// The cluster being filled: its time and its blocks.
    private var cluster = EBMLWriter()
    private var clusterTime: Int?
    private var clusterStartsWithKey = false
    private var lastTime = 0
    /// The last frame added, written when the next comes or, with its duration, at the end.
    private var pending: (frame: [UInt8], alpha: [UInt8]?, time: Int, key: Bool)?
    /// (time, cluster position from the segment's start) for the cues.
    private var cuePoints: [(time: Int, position: Int)] = []

    init(width: Int, height: Int, alpha: Bool, colour: Colour) {
        self.width = width
        self.height = height
        self.alpha = alpha
        self.colour = colour
    }

    /// Writes the header: everything before the first cluster.
    mutating func start(duration: Double, into sink: inout ByteSink) throws(ImgToolError) {
        var out = EBMLWriter()
        out.master(MatroskaID.ebml) { header in
            header.unsigned(MatroskaID.ebmlVersion, 1)
            header.unsigned(MatroskaID.ebmlReadVersion, 1)
            header.unsigned(MatroskaID.ebmlMaxIDLength, 4)
            header.unsigned(MatroskaID.ebmlMaxSizeLength, 8)
            header.string(MatroskaID.docType, "webm")
            header.unsigned(MatroskaID.docTypeVersion, 4)
            header.unsigned(MatroskaID.docTypeReadVersion, 2)
        }
        out.raw(EBMLWriter.id(MatroskaID.segment))
        segmentSizeAt = out.bytes.count
        out.raw(EBMLWriter.size(0, width: 8))
        segmentStart = out.bytes.count

        let info = infoElement(duration: duration)
        let tracks = tracksElement()
        // The SeekHead's positions are 8 bytes wide, so its size does not depend on them.
        let seekHeadSize = seekHead(info: 0, tracks: 0, cues: 0).bytes.count
        let infoPosition = seekHeadSize
        let tracksPosition = infoPosition + info.bytes.count
        let head = seekHead(info: infoPosition, tracks: tracksPosition, cues: 0)
        // The Cues position is the last 8 bytes of the SeekHead.
        cuesPositionAt = segmentStart + head.bytes.count - 8
        out.raw(head.bytes)
        durationAt = segmentStart + infoPosition + info.bytes.count - 8
        out.raw(info.bytes)
        out.raw(tracks.bytes)
        try sink.append(out.bytes)
        written = out.bytes.count
    }

    private func seekHead(info: Int, tracks: Int, cues: Int) -> EBMLWriter {
        var out = EBMLWriter()
        out.master(MatroskaID.seekHead) { head in
            for (id, position) in [(MatroskaID.info, info), (MatroskaID.tracks, tracks), (MatroskaID.cues, cues)] {
                head.master(MatroskaID.seek) { seek in
                    seek.element(MatroskaID.seekID, EBMLWriter.id(id))
                    seek.unsigned(MatroskaID.seekPosition, UInt64(position), width: 8)
                }
            }
        }
        return out
    }

    /// Info, with the duration last (so that its 8 bytes end the element).
    private func infoElement(duration: Double) -> EBMLWriter {
        var out = EBMLWriter()
        out.master(MatroskaID.info) { info in
            info.unsigned(MatroskaID.timestampScale, 1_000_000)
            info.string(MatroskaID.muxingApp, "imgtool")
            info.string(MatroskaID.writingApp, "imgtool")
            info.float(MatroskaID.duration, duration)
        }
        return out
    }

    private func tracksElement() -> EBMLWriter {
        var out = EBMLWriter()
        out.master(MatroskaID.tracks) { tracks in
            tracks.master(MatroskaID.trackEntry) { track in
                track.unsigned(MatroskaID.trackNumber, 1)
                track.unsigned(MatroskaID.trackUID, 1)
                track.unsigned(MatroskaID.trackType, 1)
                track.unsigned(MatroskaID.flagLacing, 0)
                track.string(MatroskaID.codecID, "V_VP9")
                if alpha { track.unsigned(MatroskaID.maxBlockAdditionID, 1) }
                track.master(MatroskaID.video) { video in
                    video.unsigned(MatroskaID.pixelWidth, UInt64(width))
                    video.unsigned(MatroskaID.pixelHeight, UInt64(height))
                    if alpha { video.unsigned(MatroskaID.alphaMode, 1) }
                    video.master(MatroskaID.colour) { colour in
                        switch self.colour {
                        case .bt709Limited:
                            colour.unsigned(MatroskaID.matrixCoefficients, 1)
                            colour.unsigned(MatroskaID.bitsPerChannel, 8)
                            colour.unsigned(MatroskaID.chromaSubsamplingHorz, 1)
                            colour.unsigned(MatroskaID.chromaSubsamplingVert, 1)
                            colour.unsigned(MatroskaID.range, 1)
                            colour.unsigned(MatroskaID.transferCharacteristics, 1)
                            colour.unsigned(MatroskaID.primaries, 1)
                        case .rgb:
                            colour.unsigned(MatroskaID.matrixCoefficients, 0)
                            colour.unsigned(MatroskaID.bitsPerChannel, 8)
                            colour.unsigned(MatroskaID.range, 2)
                            colour.unsigned(MatroskaID.transferCharacteristics, 13)
                            colour.unsigned(MatroskaID.primaries, 1)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Adds a frame shown at `time` (milliseconds from the start, increasing), its alpha frame
    /// with it when the track has alpha. The frame is written when the next one comes, or by
    /// ``finish(duration:into:)``.
    mutating func add(_ frame: [UInt8], alpha alphaFrame: [UInt8]?, time: Int, key: Bool, into sink: inout ByteSink)
        throws(ImgToolError)
    {
        if let pending {
            try write(pending.frame, alpha: pending.alpha, time: pending.time, key: pending.key, into: &sink)
        }
        pending = (frame, alphaFrame, time, key)
    }

    /// Writes a block: a SimpleBlock, or a BlockGroup for a frame with alpha or with a
    /// `duration` (the last frame's, which no next timestamp gives).
    private mutating func write(
        _ frame: [UInt8], alpha alphaFrame: [UInt8]?, time: Int, key: Bool, duration: Int? = nil,
        into sink: inout ByteSink
    ) throws(ImgToolError) {
        if let start = clusterTime, key || time - start > Int(Int16.max) {
            try flushCluster(into: &sink)
        }
        if clusterTime == nil {
            clusterTime = time
            clusterStartsWithKey = key
            cluster.unsigned(MatroskaID.timestamp, UInt64(time))
        }
        let offset = Int16(time - (clusterTime ?? time))
        let timeBytes = EBMLWriter.bigEndian(UInt64(UInt16(bitPattern: offset)), width: 2)
        if alpha || duration != nil {
            let previous = lastTime
            cluster.master(MatroskaID.blockGroup) { group in
                group.element(MatroskaID.block, [0x81] + timeBytes + [0] + frame)
                if let alphaFrame {
                    group.master(MatroskaID.blockAdditions) { additions in
                        additions.master(MatroskaID.blockMore) { more in
                            more.unsigned(MatroskaID.blockAddID, 1)
                            more.element(MatroskaID.blockAdditional, alphaFrame)
                        }
                    }
                }
                if let duration { group.unsigned(MatroskaID.blockDuration, UInt64(duration)) }
                if !key { group.signed(MatroskaID.referenceBlock, Int64(previous - time)) }
            }
        } else {
            cluster.element(MatroskaID.simpleBlock, [0x81] + timeBytes + [key ? 0x80 : 0] + frame)
        }
        lastTime = time
    }

    private mutating func flushCluster(into sink: inout ByteSink) throws(ImgToolError) {
        guard let time = clusterTime else { return }
        if clusterStartsWithKey { cuePoints.append((time, written - segmentStart)) }
        var out = EBMLWriter()
        out.element(MatroskaID.cluster, cluster.bytes)
        try sink.append(out.bytes)
        written += out.bytes.count
        cluster = EBMLWriter()
        clusterTime = nil
    }

    /// Writes the last cluster and the cues, and patches the segment's size, the cues' position
    /// and the `duration` (milliseconds).
    mutating func finish(duration: Double, into sink: inout ByteSink) throws(ImgToolError) {
        if let pending {
            try write(
                pending.frame, alpha: pending.alpha, time: pending.time, key: pending.key,
                duration: max(Int(duration.rounded()) - pending.time, 1), into: &sink)
            self.pending = nil
        }
        try flushCluster(into: &sink)
        let cuesPosition = written - segmentStart
        var cues = EBMLWriter()
        cues.master(MatroskaID.cues) { cues in
            for point in cuePoints {
                cues.master(MatroskaID.cuePoint) { cue in
                    cue.unsigned(MatroskaID.cueTime, UInt64(point.time))
                    cue.master(MatroskaID.cueTrackPositions) { positions in
                        positions.unsigned(MatroskaID.cueTrack, 1)
                        positions.unsigned(MatroskaID.cueClusterPosition, UInt64(point.position))
                    }
                }
            }
        }
        try sink.append(cues.bytes)
        written += cues.bytes.count
        try sink.rewrite(EBMLWriter.size(written - segmentStart, width: 8), at: segmentSizeAt)
        try sink.rewrite(EBMLWriter.bigEndian(UInt64(cuesPosition), width: 8), at: cuesPositionAt)
        try sink.rewrite(EBMLWriter.bigEndian(duration.bitPattern, width: 8), at: durationAt)
    }
}
