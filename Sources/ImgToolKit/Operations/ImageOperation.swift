/// One step of a pipeline: a transform from a ``FrameSource`` to a ``FrameSource``, lazy (frames
/// are made one at a time as a writer asks for them), composited frames in, timing kept unless
/// the operation is about timing.
///
/// A chain is an ordered list (`[ImageOperation]`), `Codable`, applied with
/// ``FrameSource/applying(_:context:)``: the command line and `batch` job lines parse their words
/// into this list, and the fluent methods (``FrameSource/cropped(to:)``,
/// ``FrameSource/rotated(byDegrees:background:)`` ...) build the same steps. Each case's value is
/// in its own file in this folder.
public enum ImageOperation: Sendable, Hashable, Codable {
    /// An exact box, or the largest centred box of an aspect ratio.
    case crop(CropOperation)
    /// Today's resampler: a width, a height, a box to fit inside, or a percentage.
    case resize(ResizeOperation)
    /// Clockwise by any angle; right angles are exact.
    case rotate(RotateOperation)
    /// Top-bottom (`flip`) or left-right (`flop`) mirror.
    case mirror(MirrorOperation)
    /// Removes the uniform border (the top-left pixel's colour); one box for a whole animation.
    case trim(TrimOperation)
    /// Adds a border.
    case pad(PadOperation)
    /// Gaussian blur, unsharp mask or grey.
    case filter(FilterOperation)
    /// Draws an image (still or animated) over every frame.
    case overlay(OverlayOperation)
    /// Draws images (still or animated) over every frame, all placed the same way: `imgtool merge`.
    case merge(MergeOperation)
    /// Changes the timing: speed, reverse, boomerang, a range of frames, the number of plays.
    case timing(TimingOperation)
    /// Lays the frames out as one still sprite sheet.
    case sheet(SheetOperation)
    /// Draws a caption over every frame, or over the frames of an interval.
    case text(TextOperation)

    /// The step as a ``FrameOperation``.
    public var operation: any FrameOperation {
        switch self {
        case .crop(let step): step
        case .resize(let step): step
        case .rotate(let step): step
        case .mirror(let step): step
        case .trim(let step): step
        case .pad(let step): step
        case .filter(let step): step
        case .overlay(let step): step
        case .merge(let step): step
        case .timing(let step): step
        case .sheet(let step): step
        case .text(let step): step
        }
    }

    /// The images this step reads besides the one it changes (overlays), as typed.
    public var inputs: [String] {
        switch self {
        case .overlay(let step): [step.input]
        case .merge(let step): step.overlays
        default: []
        }
    }
}

/// What every operation does: makes a source from a source.
public protocol FrameOperation: Sendable {
    /// The source this step makes from `source`. Nothing is decoded here except what the step
    /// must know first (``TrimOperation`` reads every frame once to find its box; an overlay is
    /// loaded).
    /// - Throws: ``ImgToolError`` `invalidArgument` when the step does not fit the image (a crop
    ///   box outside it, a frame range past its end), or the overlay's loading error.
    func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError) -> any FrameSource
}

/// What operations may need from their caller: the loader for overlays (files, URLs, standard
/// input) and the limits every decoded size is checked against.
public struct OperationContext: Sendable {
    /// Loads overlays.
    public var loader: ImageLoader
    /// Sizes refused before allocating.
    public var limits: DecodingLimits
    /// How an input is decoded again when a step can use a cheaper decode (a thumbnail of a
    /// JPEG, at a reduced DCT scale).
    public var decoding: DecodingOptions

    /// Creates a context.
    public init(
        loader: ImageLoader = ImageLoader(), limits: DecodingLimits = .default, decoding: DecodingOptions = .default
    ) {
        self.loader = loader
        self.limits = limits
        self.decoding = decoding
    }
}

extension FrameSource {
    /// This source with `operations` applied in order.
    /// - Throws: the first step's ``ImgToolError``.
    public func applying(_ operations: [ImageOperation], context: OperationContext = OperationContext())
        async throws(ImgToolError) -> any FrameSource
    {
        var source: any FrameSource = self
        for step in operations {
            source = try await step.operation.apply(to: source, context: context)
        }
        return source
    }
}
