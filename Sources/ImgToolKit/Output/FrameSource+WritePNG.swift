extension FrameSource {
    /// Writes the image as a PNG, or as an APNG when it is animated, storing every frame
    /// exactly in the smallest way that fits them all: a palette (with `tRNS`) when at most 256
    /// colours occur in the whole animation, grey, RGB when every pixel is opaque, 16-bit only
    /// when a sample needs it. GIF to APNG keeps every frame, delay and the number of plays.
    ///
    /// An animation is decoded twice: once to choose the storage (stopping early once 8-bit
    /// RGBA is certain), once to write, each frame as the rectangle that changed, compressed on
    /// the other cores while the next frame is decoded. Memory stays at a few canvases.
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
        var analysis = PNGLayout.Analysis(knownOpaque: isOpaque)
        let first = try makeFrameReader(depth: depth)
        while !analysis.isSettled, let frame = try first.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
            analysis.add(frame.image)
        }
        let writer = try APNGWriter(
            sink: sink, width: info.width, height: info.height, frameCount: info.frameCount, plays: plays ?? info.plays,
            layout: analysis.layout, encoder: encoder)
        // The reader's errors name the input; the writer's are the output's.
        let reader = try makeFrameReader(depth: depth)
        try await writer.append(
            from: { () throws(ImgToolError) in try reader.nextFrame().map { ($0.image, $0.info.delay) } },
            progress: progress)
        try writer.finish()
        sink = writer.sink
    }
}
