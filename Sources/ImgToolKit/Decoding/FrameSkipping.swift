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

/// A source that can hand out only some of its frames and do less for the others: a video does
/// not convert (or send from its decoder process) the frames passed over, and a step that changes
/// each frame on its own changes only the frames handed out. `--fps` asks for the frames it shows.
protocol FrameSelectingSource: FrameSource {
    /// A one-shot reader of the frames `frames` (ascending, each in `0..<info.frameCount`), in
    /// order, each with its own index; it ends early where the source does.
    /// - Throws: ``ImgToolError`` as ``FrameSource/makeFrameReader(depth:)`` and
    ///   ``FrameReader/nextFrame()``.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader
}

extension FrameSource {
    /// A reader of the frames `frames` (ascending): ``FrameSelectingSource``'s when the source is
    /// one, else a reader from the first of them that passes over the others.
    /// - Throws: ``ImgToolError`` as ``FrameReader/nextFrame()``.
    func frameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        if let selecting = self as? any FrameSelectingSource {
            return try selecting.makeFrameReader(selecting: frames, depth: depth)
        }
        return SelectedFrameReader(base: try frameReader(from: frames.first ?? 0, depth: depth), frames: frames)
    }
}

/// The base's frames whose indices are listed (ascending), the others read and passed over.
final class SelectedFrameReader: FrameReader {
    private let base: any FrameReader
    private let frames: [Int]
    private var next = 0

    init(base: any FrameReader, frames: [Int]) {
        self.base = base
        self.frames = frames
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard next < frames.count else { return nil }
        while let frame = try base.nextFrame() {
            guard frame.index >= frames[next] else {
                if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled at frame \(frame.index)") }
                continue
            }
            // A base that passed over a listed frame (it cannot: every base reads in order) ends here.
            guard frame.index == frames[next] else { return nil }
            next += 1
            return frame
        }
        return nil
    }
}
