/// `imgtool merge` as a step: overlays (files, URLs or `-`; still or animated) drawn in order
/// over an image, all placed the same way (one ``OverlayPlacement``: gravity, offset, opacity,
/// size), each converted into the image's colour space first, composited exactly
/// (``OverlayCompositor``: straight-alpha source-over, 16-bit when any input is).
///
/// The `merge` command is this step alone, applied to its background: ``ImageMerger`` loads the
/// background and the overlays at once and composites them as this step does.
/// ``OverlayOperation`` (`convert --overlay`) is one overlay with its own placement.
///
/// When the image and every overlay are still, frames are composited as they are read. When any
/// of them is animated, the result is a ``MergedAnimation``: one frame wherever any input
/// changes frame, every input keeping its own timing as browsers play it (``MergeTimeline``).
public struct MergeOperation: FrameOperation, Hashable, Codable {
    /// The overlays as typed, drawn in this order.
    public var overlays: [String]
    /// Where and how every overlay is drawn.
    public var placement: OverlayPlacement

    /// Overlays drawn in order with one placement (centred, opaque, their own size by default).
    public init(overlays: [String], placement: OverlayPlacement = .centered) {
        self.overlays = overlays
        self.placement = placement
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``): the overlays
    /// are loaded through the context's loader (events numbered from 1, the image being 0).
    /// - Throws: ``ImgToolError`` `invalidArgument` without overlays; an overlay's loading error;
    ///   `tooLarge` when the merged animation would pass the context's limits.
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        guard !overlays.isEmpty else { throw ImgToolError(.invalidArgument, "merge needs at least one overlay") }
        let inputs = try overlays.map { (text) throws(ImgToolError) in try ImageInput(text) }
        let layers = try await context.loader.load(inputs, firstIndex: 1)
        return try Self.composited(layers, onto: source, placement: placement, limits: context.limits)
    }

    /// Loaded `overlays` drawn onto `source`, lazily: a still image's frame is composited when a
    /// writer reads it; an animation's first frame is composited now.
    static func composited(
        _ overlays: [LoadedImage], onto source: any FrameSource, placement: OverlayPlacement, limits: DecodingLimits
    ) throws(ImgToolError) -> any FrameSource {
        var layers = overlays
        ImageMerger.convertColors(of: &layers, to: source.info.color.effectiveProfile)
        guard source.info.isAnimated || layers.contains(where: \.info.isAnimated) else {
            return MappedFrameSource(source, mapping: Mapping(overlays: layers.map(\.image), placement: placement))
        }
        let first = try source.frame(at: 0).image
        var background = LoadedImage(name: (source as? ImageSource)?.name ?? "image", info: source.info, image: first)
        if source.info.isAnimated { background.converted = source }
        return try animation(background: background, overlays: layers, placement: placement, limits: limits)
    }

    /// The merge of loaded inputs, as `imgtool merge` makes it (overlays already in the
    /// background's colour space): a still image composited now, in place when `background`'s
    /// pixels are not shared, or the merged animation with its first frame composited.
    /// - Throws: ``ImgToolError`` `tooLarge` when the merged animation would pass `limits`.
    static func merged(
        background: consuming LoadedImage, overlays: [LoadedImage], placement: OverlayPlacement,
        limits: DecodingLimits
    ) throws(ImgToolError) -> (image: PixelBuffer, animation: MergedAnimation?) {
        let isAnimated =
            background.animation != nil || background.converted != nil
            || overlays.contains(where: \.info.isAnimated)
        guard isAnimated else {
            let canvas = background.takeImage()
            return (OverlayCompositor.composite(overlays.map(\.image), onto: consume canvas, placement: placement), nil)
        }
        let merged = try animation(background: background, overlays: overlays, placement: placement, limits: limits)
        return (merged.firstFrame, merged)
    }

    /// The merged animation of `background` and `overlays` (one of them animated), its first
    /// frame composited now.
    private static func animation(
        background: LoadedImage, overlays: [LoadedImage], placement: OverlayPlacement, limits: DecodingLimits
    ) throws(ImgToolError) -> MergedAnimation {
        let firstFrame = OverlayCompositor.composite(
            overlays.map(\.image), onto: background.image, placement: placement)
        return try MergedAnimation(
            background: background, overlays: overlays, firstFrame: firstFrame, placement: placement, limits: limits)
    }

    /// Every frame of a still-only merge: the overlays drawn in order.
    struct Mapping: FrameMapping {
        let overlays: [PixelBuffer]
        let placement: OverlayPlacement

        var keepsOpacity: Bool { true }
        func outputSize(for input: PixelSize) -> PixelSize { input }

        func map(_ image: PixelBuffer) -> PixelBuffer {
            OverlayCompositor.composite(overlays, onto: image, placement: placement)
        }
    }
}

extension OverlayPlacement: Codable {
    private enum CodingKeys: String, CodingKey {
        case gravity, offsetX, offsetY, opacity, overlayWidth, overlayHeight, overlayFilter
    }

    /// Decodes a placement, its opacity checked as the initializer checks it.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            gravity: try values.decodeIfPresent(Gravity.self, forKey: .gravity) ?? .center,
            offsetX: try values.decodeIfPresent(Int.self, forKey: .offsetX) ?? 0,
            offsetY: try values.decodeIfPresent(Int.self, forKey: .offsetY) ?? 0,
            opacity: try values.decodeIfPresent(Double.self, forKey: .opacity) ?? 1,
            overlayWidth: try values.decodeIfPresent(ResizeSpec.Length.self, forKey: .overlayWidth),
            overlayHeight: try values.decodeIfPresent(ResizeSpec.Length.self, forKey: .overlayHeight),
            overlayFilter: try values.decodeIfPresent(ResampleFilter.self, forKey: .overlayFilter) ?? .lanczos3)
    }

    /// Encodes every field.
    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(gravity, forKey: .gravity)
        try values.encode(offsetX, forKey: .offsetX)
        try values.encode(offsetY, forKey: .offsetY)
        try values.encode(opacity, forKey: .opacity)
        try values.encodeIfPresent(overlayWidth, forKey: .overlayWidth)
        try values.encodeIfPresent(overlayHeight, forKey: .overlayHeight)
        try values.encode(overlayFilter, forKey: .overlayFilter)
    }
}
