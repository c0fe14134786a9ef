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
