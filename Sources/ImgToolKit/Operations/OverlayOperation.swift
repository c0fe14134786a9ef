/// `--overlay FILE` and its placement: draws an image (a file, URL or `-`; still or animated)
/// over every frame, converted into the image's colour space first, exactly (straight-alpha
/// source-over, 16-bit when either is). Alone it is centred, as `imgtool merge` draws it; an
/// animated overlay, or an overlay on an animation, makes one frame wherever either changes, as
/// `merge` does.
public struct OverlayOperation: FrameOperation, Hashable, Codable {
    /// The overlay as typed: a path, a URL or `-`.
    public var input: String
    /// Where nine positions put it.
    public var gravity: Gravity
    /// Pixels from the gravity's position (right and down are positive).
    public var offsetX: Int
    /// Pixels from the gravity's position, down.
    public var offsetY: Int
    /// Opacity, 0 to 1.
    public var opacity: Double
    /// The overlay's width as a percentage of the image's (its height follows), or `nil` for
    /// its own size. ``width``, when set, takes its place.
    public var widthPercent: Double?
    /// The overlay's width: pixels, or a percentage of the image's width; with ``height`` `nil`,
    /// the height keeps the overlay's aspect. As `merge --overlay-width` (``OverlayPlacement/overlayWidth``).
    public var width: ResizeSpec.Length?
    /// The overlay's height: pixels, or a percentage of the image's height; with ``width`` and
    /// ``widthPercent`` `nil`, the width keeps the overlay's aspect.
    public var height: ResizeSpec.Length?
    /// Whether the overlay is repeated across the whole image, from the top-left corner (gravity
    /// and offset then ignored).
    public var tiles: Bool

    /// An overlay of `input`, centred, at its own size, opaque, not tiled by default.
    public init(
        input: String, gravity: Gravity = .center, offsetX: Int = 0, offsetY: Int = 0, opacity: Double = 1,
        widthPercent: Double? = nil, width: ResizeSpec.Length? = nil, height: ResizeSpec.Length? = nil,
        tiles: Bool = false
    ) {
        self.width = width
        self.height = height
        self.input = input
        self.gravity = gravity
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.opacity = opacity
        self.widthPercent = widthPercent
        self.tiles = tiles
    }

    /// The placement as the compositor takes it.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an opacity outside 0-1 or a size not above 0.
    public func placement() throws(ImgToolError) -> OverlayPlacement {
        if let widthPercent, !(widthPercent > 0 && widthPercent <= 10_000) {
            throw ImgToolError(.invalidArgument, "--overlay \(input): the size must be a percentage above 0")
        }
        return try OverlayPlacement(
            gravity: tiles ? .northWest : gravity, offsetX: tiles ? 0 : offsetX, offsetY: tiles ? 0 : offsetY,
            opacity: opacity, overlayWidth: width ?? widthPercent.map { .percent($0) }, overlayHeight: height)
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        let placement = try placement()
        var layers = [try await context.loader.load(ImageInput(input), index: 1)]
        ImageMerger.convertColors(of: &layers, to: source.info.color.effectiveProfile)
        let overlay = layers[0]
        guard overlay.info.isAnimated else {
            return MappedFrameSource(
                source, mapping: Mapping(overlay: overlay.image, placement: placement, tiles: tiles))
        }
        // An animated overlay: the merge's own timeline and compositor, the source as background.
        return try MergeOperation.composited([overlay], onto: source, placement: placement, limits: context.limits)
    }

    struct Mapping: FrameMapping {
        let overlay: PixelBuffer
        let placement: OverlayPlacement
        let tiles: Bool

        var keepsOpacity: Bool { true }
        func outputSize(for input: PixelSize) -> PixelSize { input }

        func map(_ image: PixelBuffer) -> PixelBuffer {
            guard tiles else { return OverlayCompositor.composite([overlay], onto: image, placement: placement) }
            let size = placement.overlaySize(
                overlay: PixelSize(width: overlay.width, height: overlay.height),
                canvas: PixelSize(width: image.width, height: image.height))
            guard size.width > 0, size.height > 0 else { return image }
            let tile =
                size == PixelSize(width: overlay.width, height: overlay.height)
                ? overlay : (try? overlay.resized(to: size, filter: placement.overlayFilter)) ?? overlay
            var canvas = image
            let depth = OverlayCompositor.workingDepth(background: image, overlays: [tile])
            if canvas.depth != depth { canvas = canvas.converted(to: depth) }
            let drawn = tile.depth == depth ? tile : tile.converted(to: depth)
            var at = OverlayPlacement.tiled(placement)
            for y in stride(from: 0, to: image.height, by: size.height) {
                for x in stride(from: 0, to: image.width, by: size.width) {
                    at.offsetX = x
                    at.offsetY = y
                    OverlayCompositor.draw(drawn, onto: &canvas, placement: at)
                }
            }
            return canvas
        }
    }
}

extension OverlayPlacement {
    /// `placement` for drawing tiles already sized: from the top-left corner, no sizing.
    static func tiled(_ placement: OverlayPlacement) -> OverlayPlacement {
        var tile = placement
        tile.gravity = .northWest
        tile.overlayWidth = nil
        tile.overlayHeight = nil
        return tile
    }
}
