extension FrameSource {
    /// Writes the image as a PNG, or as an APNG when it is animated, storing every frame
    /// exactly in the smallest way that fits them all: a palette (with `tRNS`) when at most 256
    /// colours occur in the whole animation, grey, RGB when every pixel is opaque, 16-bit only
    /// when a sample needs it. GIF to APNG keeps every frame, delay and the number of plays.
    ///
    /// An animation is decoded once: each frame is analysed as it arrives and held until no
    /// later frame can change the choice (more than 256 colours, not grey, and translucent or
    /// opaque by the source's ``isOpaque``), or until the last frame; then the held frames and
    /// the rest are written, each as the rectangle that changed, compressed on the other cores
    /// while the next frame is decoded. Frames are held as they are up to two 8-bit canvases
    /// (at least 16 MiB), then zlib-compressed up to four times that. Only an animation still
    /// undecided past that (many frames of few colours, or opacity unknown) is decoded a second
    /// time. Memory stays at a few canvases whatever the frame count.
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

    /// - Parameter lookAhead: bytes of frames held as they are and compressed while the storage
    ///   is open; `nil` (the default) for ``PNGLayout/lookAheadBytes(canvasPixels:)`` and
    ///   ``PNGLayout/packedLookAheadBytes(canvasPixels:)``.
    func writePNG(
        into sink: inout ByteSink, plays: Int?, depth: SampleDepth?, encoder: PNGEncoder,
        progress: (@Sendable (Int) -> Void)?, lookAhead: (decoded: Int, packed: Int)? = nil
    ) async throws(ImgToolError) {
        guard info.isAnimated else {
            let image = try frame(at: 0, depth: depth).image
            try sink.append(try encoder.encode(image))
            return
        }
        // Frames under 20 ms folded and delays past 65535 s clamped, as every animated writer
        // does (``WrittenTiming``, ``AnimationLimits``).
        if let retimed = retimedForWriting(as: .apng) {
            try await retimed.writePNG(
                into: &sink, plays: plays, depth: depth, encoder: encoder, progress: progress, lookAhead: lookAhead)
            return
        }
        // Frames are analysed as they arrive and held until the storage is settled, so that
        // usually the same reader goes on to write them (one decode per frame): as they are up
        // to the look-ahead, then compressed.
        var analysis = PNGLayout.Analysis(knownOpaque: isOpaque, allowsGray: encoder.allowsGray)
        let reader = try makeFrameReader(depth: depth)
        let canvasPixels = info.width * info.height
        let budget = lookAhead?.decoded ?? PNGLayout.lookAheadBytes(canvasPixels: canvasPixels)
        let packedBudget = lookAhead?.packed ?? PNGLayout.packedLookAheadBytes(canvasPixels: canvasPixels)
        var held: [HeldFrame?] = []
        var heldBytes = 0
        var packedBytes = 0
        var rereads = false
        while !analysis.isSettled, let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
            analysis.add(frame.image)
            let bytes = frame.image.pixelCount * (frame.image.depth == .eight ? 4 : 8)
            if heldBytes + bytes <= budget || analysis.isSettled {
                held.append(.decoded(frame))
                heldBytes += bytes
                continue
            }
            let packed = try PackedFrame(frame)
            held.append(.packed(packed))
            packedBytes += packed.bytes.count
            if packedBytes > packedBudget {
                // Undecided with the look-ahead full even compressed: finish choosing without
                // holding frames, then read the source again to write.
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
            sink: sink, width: info.width, height: info.height, frameCount: info.frameCount,
            plays: AnimationLimits.apng.clamped(plays: plays ?? info.plays),
            layout: analysis.layout, encoder: encoder)
        // The reader's errors name the input; the writer's are the output's.
        let rest = rereads ? try makeFrameReader(depth: depth) : reader
        var next = 0
        try await writer.append(
            from: { () throws(ImgToolError) in
                if next < held.count, let kept = held[next] {
                    held[next] = nil  // written frames are not kept
                    next += 1
                    let frame =
                        switch kept {
                        case .decoded(let frame): frame
                        case .packed(let packed): try packed.unpacked()
                        }
                    return (frame.image, frame.info.delay)
                }
                return try rest.nextFrame().map { ($0.image, $0.info.delay) }
            },
            progress: progress)
        try writer.finish()
        sink = writer.sink
    }
}

/// A frame read while the PNG storage was being chosen, kept for writing.
private enum HeldFrame {
    case decoded(Frame)
    case packed(PackedFrame)
}

extension PNGLayout {
    /// How many bytes of compressed frames the APNG writer holds, past ``lookAheadBytes(canvasPixels:)``
    /// of frames as they are, before it gives up holding and reads the source again: four times
    /// as much, 32 bytes a canvas pixel and at least 64 MiB (some 100 frames of a 1920x1080 GIF).
    /// - Parameter canvasPixels: the pixels of one canvas.
    static func packedLookAheadBytes(canvasPixels: Int) -> Int { max(32 * canvasPixels, 64 << 20) }

    /// How many bytes of decoded frames the APNG writer holds while it chooses the storage: two
    /// 8-bit canvases (one 16-bit), and at least 16 MiB, so that a small animation is always
    /// decoded once. A frame that settles the choice is kept whatever its size.
    /// - Parameter canvasPixels: the pixels of one canvas.
    static func lookAheadBytes(canvasPixels: Int) -> Int { max(8 * canvasPixels, 16 << 20) }
}
