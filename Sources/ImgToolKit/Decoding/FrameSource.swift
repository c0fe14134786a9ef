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
