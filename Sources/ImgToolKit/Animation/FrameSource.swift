/// One composited frame: what a player shows while it is current.
public struct Frame: Sendable, Hashable {
    /// The frame's entry in the frame table (index, delay, region, disposal, blend).
    public var info: FrameInfo
    /// The whole canvas after the frame was drawn, canvas-sized.
    public var image: PixelBuffer

    /// Creates a frame.
    public init(info: FrameInfo, image: PixelBuffer) {
        self.info = info
        self.image = image
    }

    /// Position in the animation, from 0.
    public var index: Int { info.index }
}

/// An image whose structure has been parsed once (prepare-once), and whose frames are decoded
/// and composited on demand.
///
/// Conforming types hold the file's bytes and frame table, never decoded frames, so a source
/// costs about the size of its file however many frames it has. They are immutable and
/// `Sendable`: share one between tasks, and make a ``FrameReader`` in each task that decodes.
/// The animation scheduler depends on this protocol only, not on the GIF or APNG decoders.
public protocol FrameSource: Sendable {
    /// Format, canvas, frame table and loop count, as parsed when the source was made.
    var info: ImageInfo { get }

    /// Makes a one-shot reader that composites frames in order from frame 0.
    /// - Parameter depth: output depth; `nil` keeps the file's (16-bit PNG data gives 16-bit frames).
    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader

    /// Whether every pixel of every frame is known to be opaque without decoding (a format with
    /// no alpha, a merge onto an opaque still). `false` when unknown. Writers use it to skip
    /// looking for transparency. Default `false`.
    var isOpaque: Bool { get }
}

/// Composites the frames of one ``FrameSource`` in order, keeping one canvas (plus one saved
/// canvas for restore-to-previous) however many frames there are.
///
/// A reader is a one-shot object used inside one task and never shared; the frames it returns
/// are `Sendable` values.
public protocol FrameReader: AnyObject {
    /// Decodes and composites the next frame, or returns `nil` after the last one.
    /// - Throws: ``ImgToolError`` (`corrupt`, `truncated`, `tooLarge`, `cancelled`).
    func nextFrame() throws(ImgToolError) -> Frame?
}

extension FrameSource {
    /// Unknown: `false`.
    public var isOpaque: Bool { false }

    /// The composited frame at `index`, decoding and composing every frame before it
    /// (a composited frame depends on the ones before it).
    /// - Throws: ``ImgToolError`` `invalidArgument` when `index` is out of range, or a decoding error.
    public func frame(at index: Int, depth: SampleDepth? = nil) throws(ImgToolError) -> Frame {
        guard info.frames.indices.contains(index) else {
            throw ImgToolError(
                .invalidArgument, "frame \(index) does not exist: the image has \(info.frameCount) frames")
        }
        let reader = try makeFrameReader(depth: depth)
        while let frame = try reader.nextFrame() {
            if frame.index == index { return frame }
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before frame \(index)") }
        }
        throw ImgToolError(.truncated, "the data ends before frame \(index)")
    }
}
