/// Composites the frames of a ``MergedAnimation`` in order.
///
/// A reader is a one-shot object used inside one task and never shared; it keeps one
/// ``FrameReader`` per animated input, started again from frame 0 when that input loops.
final class MergedFrameReader: FrameReader {
    private let animation: MergedAnimation
    private let depth: SampleDepth?
    private let cursors: [FrameCursor?]
    private var next = 0

    init(animation: MergedAnimation, depth: SampleDepth?) {
        self.animation = animation
        self.depth = depth
        cursors = animation.layers.map { layer in
            layer.source.map { source in FrameCursor(name: layer.name) { () throws(ImgToolError) in source } }
        }
    }

    /// Composites the next merged frame (frame 0 was composited by the merge and is reused).
    /// - Returns: the frame, or `nil` after the last one.
    /// - Throws: ``ImgToolError`` naming the input whose frame failed to decode (`corrupt`,
    ///   `truncated`, `tooLarge`), or `cancelled` when the task was cancelled.
    func nextFrame() throws(ImgToolError) -> Frame? {
        let segments = animation.timeline.segments
        guard next < segments.count else { return nil }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before merged frame \(next)") }
        let segment = segments[next]
        var canvas: PixelBuffer
        if next == 0 {
            canvas = animation.firstFrame
        } else {
            var images: [PixelBuffer] = []
            images.reserveCapacity(animation.layers.count)
            for (position, layer) in animation.layers.enumerated() {
                images.append(try image(of: layer, at: position, frame: segment.frames[position]))
            }
            let background = images.removeFirst()
            canvas = OverlayCompositor.composite(images, onto: background, placement: animation.placement)
        }
        if let depth, depth != canvas.depth { canvas = canvas.converted(to: depth) }
        defer { next += 1 }
        return Frame(info: animation.info.frames[next], image: canvas)
    }

    /// Frame `index` of the layer at `position`: the still image, or the animation's frame,
    /// reading on from the last one shown (or from frame 0 again when it looped).
    private func image(of layer: MergedAnimation.Layer, at position: Int, frame index: Int) throws(ImgToolError)
        -> PixelBuffer
    {
        if let still = layer.still { return still }
        guard let cursor = cursors[position] else { preconditionFailure("a layer is a still image or an animation") }
        return try cursor.image(at: index)
    }
}
