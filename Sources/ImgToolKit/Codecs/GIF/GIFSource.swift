/// A GIF, still or animated, parsed once: logical screen, frame table and loop count, no pixels.
///
/// Making a source walks the file's records with giflib (``GIFDecoder``), skipping each image's
/// LZW data without decoding it, and checks every declared size against ``DecodingLimits``
/// before anything is allocated for it. A file cut short keeps the frames that are complete
/// before the cut (``ImageInfo/isComplete`` is `false`, with a warning); a file with no complete
/// frame, or whose records break the format, is refused with a typed error.
///
/// The frames are composited on demand by ``GIFFrameReader``.
struct GIFSource: FrameSource {
    /// What the reader needs to know about each frame beyond its ``FrameInfo``.
    struct Frame: Sendable, Hashable {
        /// The table entry: delay, declared region, disposal, blend (always `.over`).
        var info: FrameInfo
        /// The palette index that leaves the canvas untouched, or `nil`.
        var transparentIndex: UInt8?
        /// Whether the rows are interlaced.
        var isInterlaced: Bool
        /// Whether the frame has a colour table (local or global); without one it is drawn in
        /// opaque black.
        var hasColorTable: Bool
        /// Where the frame's image descriptor starts (its `0x2C` introducer), in bytes from the
        /// start of the file: each frame's LZW data can be decoded on its own from there.
        var offset: Int
    }

    let info: ImageInfo
    /// The file, re-read by each reader.
    let data: [UInt8]
    /// One entry per complete frame, in file order.
    let frames: [Frame]

    /// Parses the structure of `data`.
    /// - Throws: ``ImgToolError``: `tooLarge` when the screen, a frame or the whole animation
    ///   passes `limits`; `truncated` when the data ends before the first frame is complete;
    ///   `corrupt` for a broken record, a zero-size frame that carries pixels, or no frame at all.
    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let decoder = try GIFDecoder(data: data)
        defer { decoder.close() }
        let width = decoder.screenWidth
        let height = decoder.screenHeight
        try limits.checkPixels(width: width, height: height, what: "GIF logical screen")

        var frames: [Frame] = []
        var control: GIFGraphicControl?
        var loop: GIFLoopExtension?
        var warnings: [String] = []
        var isComplete = true
        var sawTrailer = false
        var metadata = GIFMetadataExtensions()
        // Frames past --max-frames: counted (their records skipped, no pixels decoded), so that
        // the error says how many frames the animation has.
        var framesPastLimit = 0
        do throws(ImgToolError) {
            scanning: while true {
                let place = frames.isEmpty ? "before frame 0" : "after frame \(frames.count - 1)"
                switch try decoder.nextRecord("the record \(place)") {
                case .trailer:
                    sawTrailer = true
                    break scanning
                case .extension:
                    let (label, blocks, overflowed) = try decoder.readExtension(
                        keepingBlocks: 2, keepsAll: GIFMetadataExtensions.isMetadata,
                        byteLimit: limits.maxChunkBytes, "an extension \(place)")
                    if overflowed {
                        warnings.append(
                            "an ICC or XMP extension is over the limit of \(limits.maxChunkBytes) bytes; left out")
                    } else if label == 0xFF, metadata.add(blocks) {
                        continue
                    } else if label == 0xF9, let first = blocks.first, let parsed = GIFGraphicControl(parsing: first) {
                        control = parsed  // the last one before an image wins
                    } else if label == 0xFF, loop == nil, let parsed = GIFLoopExtension(parsing: blocks) {
                        loop = parsed  // the first loop block wins
                    }
                case .image:
                    let index = frames.count + framesPastLimit
                    let offset = decoder.offset - 1
                    let header = try decoder.readImageHeader("frame \(index)'s image descriptor")
                    let region = header.region
                    try limits.checkPixels(
                        width: region.width, height: region.height, what: "GIF frame \(index) (\(region))")
                    if index >= limits.maxFrames {
                        framesPastLimit += 1
                        _ = try decoder.skipImageData(probing: false, "frame \(index)'s image data")
                        control = nil
                        continue
                    }
                    try limits.checkAnimation(frames: index + 1, width: width, height: height)
                    let isEmpty = region.width == 0 || region.height == 0
                    let carriesPixels = try decoder.skipImageData(probing: isEmpty, "frame \(index)'s image data")
                    if carriesPixels {
                        throw ImgToolError(
                            .corrupt, "corrupt GIF: frame \(index) is \(region) but its image data holds pixels")
                    }
                    let info = FrameInfo(
                        index: index, delay: control?.delay ?? .zero, region: region,
                        disposal: control?.disposal ?? .none, blend: .over)
                    frames.append(
                        Frame(
                            info: info, transparentIndex: control?.transparentIndex, isInterlaced: header.isInterlaced,
                            hasColorTable: header.localColorCount > 0 || decoder.globalColorCount > 0,
                            offset: offset))
                    control = nil
                }
            }
        } catch  where error.code == .truncated && !frames.isEmpty {
            isComplete = false
            warnings.append(
                "\(error.message); showing the \(frames.count) complete frame\(frames.count == 1 ? "" : "s") before it")
        }
        if framesPastLimit > 0 {
            try limits.checkAnimation(frames: frames.count + framesPastLimit, width: width, height: height)
        }
        guard !frames.isEmpty else {
            let end = sawTrailer ? "its trailer at byte \(decoder.offset - 1)" : "the end of the data"
            throw ImgToolError(.corrupt, "corrupt GIF: no image before \(end)")
        }
        warnings += Self.notes(on: frames, width: width, height: height)

        self.data = data
        self.frames = frames
        var info = ImageInfo(
            format: .gif, width: width, height: height, bitDepth: 8, colorType: .palette,
            isInterlaced: frames.contains { $0.isInterlaced }, frames: frames.map(\.info),
            loopValue: loop?.value, plays: loop?.plays ?? 1, isComplete: isComplete, warnings: warnings)
        info.describeMetadata(icc: metadata.icc, exif: nil, xmp: metadata.xmp)
        self.info = info
    }

    /// Opaque without decoding when frame 0 paints the whole screen (it covers it, has no
    /// transparent index and is not restored) and no frame's region is ever cleared (no
    /// `background` disposal): every later pixel is drawn over an opaque one, or kept.
    var isOpaque: Bool {
        guard let first = frames.first, first.transparentIndex == nil, first.info.disposal == .none,
            first.info.region.clipped(toWidth: info.width, height: info.height)
                == FrameRegion(x: 0, y: 0, width: info.width, height: info.height)
        else { return false }
        return frames.allSatisfy { $0.info.disposal != .background }
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        GIFFrameReader(source: self, depth: depth ?? .eight)
    }

    /// Warnings for what the decoder tolerates: frames reaching past the screen (clipped) and
    /// frames without any colour table (opaque black).
    private static func notes(on frames: [Frame], width: Int, height: Int) -> [String] {
        var notes: [String] = []
        let outside = frames.filter { $0.info.region.clipped(toWidth: width, height: height) != $0.info.region }
        if let first = outside.first {
            let more = outside.count > 1 ? " (and \(outside.count - 1) more)" : ""
            let screen = "\(width)x\(height) logical screen"
            notes.append(
                "frame \(first.info.index) (\(first.info.region)) reaches past the \(screen)\(more) and is clipped")
        }
        let uncolored = frames.filter { !$0.hasColorTable && $0.info.region.width > 0 && $0.info.region.height > 0 }
        if let first = uncolored.first {
            let more = uncolored.count > 1 ? " (and \(uncolored.count - 1) more)" : ""
            notes.append("frame \(first.info.index)\(more) has no colour table and is drawn in opaque black")
        }
        return notes
    }
}
