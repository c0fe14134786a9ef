/// A source that can start reading at a later frame without decoding every frame before it,
/// because its frames do not all depend on the ones before (a join's inputs are composited
/// each on its own canvas).
///
/// Writers that encode stretches of an animation at once (``WebPWriter``'s two halves) use it
/// so that the second stretch does not decode the first.
protocol FrameSkippingSource: FrameSource {
    /// A one-shot reader whose first frame is frame `start` (frames after it follow in order),
    /// decoding only what frame `start` depends on.
    /// - Parameters:
    ///   - start: a frame index, `0..<info.frameCount`.
    ///   - depth: as ``FrameSource/makeFrameReader(depth:)``.
    /// - Throws: ``ImgToolError`` as ``FrameSource/makeFrameReader(depth:)`` and
    ///   ``FrameReader/nextFrame()``.
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader
}

extension FrameSource {
    /// A reader whose first frame is frame `start`: ``FrameSkippingSource``'s when the source is
    /// one, else a reader from frame 0 that has read and dropped the frames before `start`.
    /// - Throws: ``ImgToolError`` as ``FrameReader/nextFrame()``.
    func frameReader(from start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        if let skipping = self as? any FrameSkippingSource {
            return try skipping.makeFrameReader(startingAt: start, depth: depth)
        }
        let reader = try makeFrameReader(depth: depth)
        var read = 0
        while read < start, try reader.nextFrame() != nil {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before frame \(start)") }
            read += 1
        }
        return reader
    }
}
