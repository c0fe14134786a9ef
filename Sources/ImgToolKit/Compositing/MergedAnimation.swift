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
        var source: (any FrameSource)?
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
        let backgroundAnimated = background.animation != nil || background.converted != nil
        isOpaque = !backgroundAnimated && firstFrame.firstTranslucentRow() == nil
        layers = inputs.map { input in
            let source = input.converted ?? input.animation
            return Layer(name: input.name, still: source == nil ? input.image : nil, source: source)
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
        info.adoptDescription(of: background.info)
        info.delaysArePlayTimes = true
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
