extension FrameSource {
    /// Writes the image as a PNG, or as an APNG when it is animated, storing every frame
    /// exactly in the smallest way that fits them all: a palette (with `tRNS`) when at most 256
    /// colours occur in the whole animation, grey, RGB when every pixel is opaque, 16-bit only
    /// when a sample needs it. GIF to APNG keeps every frame, delay and the number of plays.
    ///
    /// An animation is decoded once when its storage is known early: each frame is analysed as
    /// it arrives and held (two 8-bit canvases, at least 16 MiB) until no later frame can
    /// change the choice (more than 256 colours, not grey, and translucent or opaque by the
    /// source's ``isOpaque``), or until the last frame; then the held frames and the rest are
    /// written, each as the rectangle that changed, compressed on the other cores while the
    /// next frame is decoded. Only an animation that is still undecided when the look-ahead is
    /// full (few colours, or opacity unknown) is decoded a second time. Memory stays at a few
    /// canvases whatever the frame count.
    /// - Parameters:
    ///   - fileDescriptor: where the bytes go (not closed here).
    ///   - plays: how many times an animation plays, 0 forever. Default: as the file says.
    ///   - depth: sample depth of the frames written; `nil` (the default) keeps the file's.
    ///   - encoder: zlib level and strategy. Default: chosen per frame.
    ///   - progress: called with the number of frames written so far, after each frame of an
    ///     animation. Default: none.
    /// - Throws: ``ImgToolError`` for a frame that does not decode (naming the input, from an
    ///   ``ImageSource``); `writeFailed`; `cancelled`.
    public func writePNG(
        toFileDescriptor fileDescriptor: Int32, plays: Int? = nil, depth: SampleDepth? = nil,
        encoder: PNGEncoder = PNGEncoder(), progress: (@Sendable (Int) -> Void)? = nil
    ) async throws(ImgToolError) {
        var sink = ByteSink(fileDescriptor: fileDescriptor)
        try await writePNG(into: &sink, plays: plays, depth: depth, encoder: encoder, progress: progress)
    }

    /// The image encoded as by ``writePNG(toFileDescriptor:plays:depth:encoder:progress:)``.
    /// - Parameters:
    ///   - plays: how many times an animation plays, 0 forever. Default: as the file says.
    ///   - depth: sample depth of the frames written; `nil` (the default) keeps the file's.
    ///   - encoder: zlib level and strategy. Default: chosen per frame.
    /// - Throws: ``ImgToolError`` for a frame that does not decode; `cancelled`.
    public func encodedPNG(plays: Int? = nil, depth: SampleDepth? = nil, encoder: PNGEncoder = PNGEncoder())
        async throws(ImgToolError) -> [UInt8]
    {
        var sink = ByteSink()
        try await writePNG(into: &sink, plays: plays, depth: depth, encoder: encoder, progress: nil)
        return sink.bytes
    }

    func writePNG(
        into sink: inout ByteSink, plays: Int?, depth: SampleDepth?, encoder: PNGEncoder,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        guard info.isAnimated else {
            let image = try frame(at: 0, depth: depth).image
            try sink.append(try encoder.encode(image))
            return
        }
        // Frames are analysed as they arrive and held until the storage is settled, so that
        // usually the same reader goes on to write them (one decode per frame).
        var analysis = PNGLayout.Analysis(knownOpaque: isOpaque, allowsGray: encoder.allowsGray)
        let reader = try makeFrameReader(depth: depth)
        let budget = PNGLayout.lookAheadBytes(canvasPixels: info.width * info.height)
        var held: [Frame?] = []
        var heldBytes = 0
        var rereads = false
        while !analysis.isSettled, let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
            analysis.add(frame.image)
            held.append(frame)
            heldBytes += frame.image.pixelCount * (frame.image.depth == .eight ? 4 : 8)
            if heldBytes > budget && !analysis.isSettled {
                // Undecided with the look-ahead full: finish choosing without holding frames,
                // then read the source again to write.
                held.removeAll()
                rereads = true
                while !analysis.isSettled, let frame = try reader.nextFrame() {
                    if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
                    analysis.add(frame.image)
                }
                break
            }
        }
        let writer = try APNGWriter(
            sink: sink, width: info.width, height: info.height, frameCount: info.frameCount, plays: plays ?? info.plays,
            layout: analysis.layout, encoder: encoder)
        // The reader's errors name the input; the writer's are the output's.
        let rest = rereads ? try makeFrameReader(depth: depth) : reader
        var next = 0
        try await writer.append(
            from: { () throws(ImgToolError) in
                if next < held.count, let frame = held[next] {
                    held[next] = nil  // written frames are not kept
                    next += 1
                    return (frame.image, frame.info.delay)
                }
                return try rest.nextFrame().map { ($0.image, $0.info.delay) }
            },
            progress: progress)
        try writer.finish()
        sink = writer.sink
    }
}

extension PNGLayout {
    /// How many bytes of decoded frames the APNG writer holds while it chooses the storage: two
    /// 8-bit canvases (one 16-bit), and at least 16 MiB, so that a small animation is always
    /// decoded once. A frame that settles the choice is kept whatever its size.
    /// - Parameter canvasPixels: the pixels of one canvas.
    static func lookAheadBytes(canvasPixels: Int) -> Int { max(8 * canvasPixels, 16 << 20) }
}
