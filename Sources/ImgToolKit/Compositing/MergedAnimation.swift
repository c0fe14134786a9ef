/// The result of merging images when one or more of them is animated: the merged frames,
/// composited on demand in order, as a ``FrameSource`` (written by any codec, played like a file).
///
/// The merged animation has one frame per interval of ``timeline`` (every input keeps its own
/// timing, as browsers play it; see ``MergeTimeline``), the background's size, and plays as often
/// as its longest input does (``plays``). Each frame is composited exactly as a still merge is
/// (``OverlayCompositor``), from the frame each input shows during that interval.
///
/// Nothing is decoded until ``makeFrameReader(depth:)``; a reader keeps one frame reader per animated
/// input (one canvas each), so memory is bounded by the canvases, not by the number of frames.
/// Frame 0, which the merge already composited, is not composited again.
public struct MergedAnimation: FrameSource {
    /// One input of the merge: a still image's pixels, or an animation's source.
    struct Layer: Sendable {
        var name: String
        var still: PixelBuffer?
        var source: ImageSource?
    }

    /// The output frames: when each starts, how long it lasts, and which frame of each input it shows.
    public let timeline: MergeTimeline
    /// How many times the merged animation plays, 0 meaning forever. Default: as often as the
    /// longest input plays (the one whose play defines the timeline's length).
    public var plays: Int {
        get { info.plays }
        set { info.plays = newValue }
    }
    /// The merged image: the background's size, one frame per timeline segment (each the whole
    /// canvas, drawn with source blending), RGB when ``isOpaque`` and RGBA otherwise, at ``depth``;
    /// no loop value is stored, ``ImageInfo/plays`` is ``plays``.
    public private(set) var info: ImageInfo
    /// Canvas width (the background's).
    public let width: Int
    /// Canvas height (the background's).
    public let height: Int
    /// Sample depth of the merged frames: 16 when any input is 16-bit.
    public let depth: SampleDepth
    /// Whether every merged frame is opaque: true when the background is a still image with no
    /// translucent pixel (source-over never lowers alpha).
    public let isOpaque: Bool

    let layers: [Layer]
    let placement: OverlayPlacement
    /// Every input's frame 0 merged: the first merged frame.
    let firstFrame: PixelBuffer

    /// Builds the merge of `background` and `overlays` (at least one of them animated).
    /// - Parameters:
    ///   - background: its size is the output's.
    ///   - overlays: drawn in order.
    ///   - firstFrame: the merge of every input's frame 0 (what ``ImageMerger`` composites), whose
    ///     depth and opacity are the whole animation's.
    ///   - placement: where and how overlays are drawn.
    ///   - limits: `maxFrames` bounds the merged frame count, `maxTotalPixels` the frames times
    ///     the canvas.
    /// - Throws: ``ImgToolError`` `tooLarge` when the merge would pass either.
    init(
        background: LoadedImage, overlays: [LoadedImage], firstFrame: PixelBuffer, placement: OverlayPlacement,
        limits: DecodingLimits
    ) throws(ImgToolError) {
        let inputs = [background] + overlays
        let infos = inputs.map(\.info)
        timeline = try MergeTimeline(
            infos, delayPolicy: Self.delayPolicy, foldingAtOrBelow: Self.shortestClamped, maxFrames: limits.maxFrames)
        try limits.checkAnimation(
            frames: timeline.frameCount, width: background.info.width, height: background.info.height)
        width = background.info.width
        height = background.info.height
        depth = firstFrame.depth
        isOpaque = background.animation == nil && firstFrame.firstTranslucentRow() == nil
        layers = inputs.map { input in
            Layer(
                name: input.name, still: input.animation == nil ? input.image : nil, source: input.animation)
        }
        self.placement = placement
        self.firstFrame = firstFrame
        let (width, height, timeline) = (width, height, timeline)
        info = ImageInfo(
            format: background.info.format, width: width, height: height, bitDepth: depth == .sixteen ? 16 : 8,
            colorType: isOpaque ? .rgb : .rgba,
            frames: timeline.segments.enumerated().map { index, segment in
                FrameInfo(
                    index: index, delay: segment.duration,
                    region: FrameRegion(x: 0, y: 0, width: width, height: height),
                    disposal: .none, blend: .source)
            },
            plays: infos[timeline.longestInput].plays)
    }

    /// How inputs' delays are read: as browsers play them (a delay of 10 ms or less is 100 ms),
    /// which is also how `imgtool animate` plays them by default.
    public static let delayPolicy = DelayPolicy.browser

    /// The longest delay browsers stretch to 100 ms: no merged frame is this short, or the
    /// merged animation would play slower than its inputs.
    public static let shortestClamped = Duration.milliseconds(10)

    /// The number of merged frames.
    public var frameCount: Int { timeline.frameCount }

    /// Makes a one-shot reader of the merged frames, in order from the first.
    /// - Parameter depth: the depth of the frames returned; `nil` gives ``depth``.
    public func makeFrameReader(depth: SampleDepth?) -> any FrameReader {
        MergedFrameReader(animation: self, depth: depth)
    }
}

/// Composites the frames of a ``MergedAnimation`` in order.
///
/// A reader is a one-shot object used inside one task and never shared; it keeps one
/// ``FrameReader`` per animated input, started again from frame 0 when that input loops.
final class MergedFrameReader: FrameReader {
    private let animation: MergedAnimation
    private let depth: SampleDepth?
    private var readers: [(any FrameReader)?]
    private var shown: [Frame?]
    private var next = 0

    init(animation: MergedAnimation, depth: SampleDepth?) {
        self.animation = animation
        self.depth = depth
        readers = animation.layers.map { _ in nil }
        shown = animation.layers.map { _ in nil }
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
        guard let source = layer.source else { preconditionFailure("a layer is a still image or an animation") }
        if let current = shown[position], current.index == index { return current.image }
        if readers[position] == nil || (shown[position]?.index ?? -1) > index {
            shown[position] = nil
            readers[position] = try source.makeFrameReader(depth: nil)
        }
        while let frame = try readers[position]?.nextFrame() {
            shown[position] = frame
            if frame.index == index { return frame.image }
        }
        throw ImgToolError(.truncated, "the data ends before frame \(index)", input: layer.name)
    }
}
