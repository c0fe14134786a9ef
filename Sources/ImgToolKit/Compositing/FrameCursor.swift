/// Reads one input of a timeline (a merge's, a montage's) at the frames the timeline asks for,
/// in order, keeping one canvas: a frame asked for again is returned as it is, a later one is
/// read on to, an earlier one (the input looped) starts a new reader from frame 0.
///
/// A one-shot object used inside one task and never shared.
final class FrameCursor {
    private let name: String
    private let open: () throws(ImgToolError) -> any FrameSource
    private let depth: SampleDepth?
    private var reader: (any FrameReader)?
    private var shown: Frame?

    /// A cursor over the source `open` returns (called when the first frame is asked for, and
    /// again when the input loops); errors name `name`.
    init(name: String, depth: SampleDepth? = nil, open: @escaping () throws(ImgToolError) -> any FrameSource) {
        self.name = name
        self.depth = depth
        self.open = open
    }

    /// Frame `index`'s canvas.
    /// - Throws: ``ImgToolError`` naming the input: its decoding error, or `truncated` when it
    ///   ends before `index`.
    func image(at index: Int) throws(ImgToolError) -> PixelBuffer {
        if let shown, shown.index == index { return shown.image }
        if reader == nil || (shown?.index ?? -1) > index {
            shown = nil
            reader = try open().makeFrameReader(depth: depth)
        }
        while let frame = try reader?.nextFrame() {
            shown = frame
            if frame.index == index { return frame.image }
        }
        throw ImgToolError(.truncated, "the data ends before frame \(index)", input: name)
    }
}
