/// Loads a background and overlays (files, URLs, standard input) and composites the overlays
/// onto the background in order, off the main actor.
///
/// The background and the first overlay are fetched and decoded by two `async let`s awaited
/// together; further overlays go through the ``ImageLoader``'s task group at the same time and
/// come back in input order. Compositing starts once everything has arrived, in a `@concurrent`
/// function, never on the caller's actor: it is ``MergeOperation``'s, the step `imgtool merge`
/// applies to its background. See ``OverlayCompositor`` for the arithmetic (exact
/// source-over, 16 bits when any input is 16-bit, gravity, offset, opacity, clipping). The
/// output has the background's size.
///
/// Load states of every input go to the loader's observer: the background is index 0 and the
/// overlays 1, 2, ...
///
/// Animated inputs: when any input is animated the result also carries a ``MergedAnimation``,
/// whose frames follow the union of the inputs' timelines (see ``MergeTimeline``) and are
/// composited on demand; ``APNGWriter`` writes them.
public struct ImageMerger: Sendable {
    /// The loader used for every input (its options decide concurrency and `keepGoing`).
    public let loader: ImageLoader
    /// Where and how the overlays are drawn.
    public let placement: OverlayPlacement
    /// Whether each overlay is converted into the background's colour space before it is drawn
    /// (the default): an untagged sRGB logo on a Display P3 photo keeps its colours. `false`
    /// draws the samples as stored, as tools without colour management do.
    public let convertsOverlayColors: Bool

    /// Creates a merger.
    public init(
        loader: ImageLoader = ImageLoader(), placement: OverlayPlacement = .centered, convertsOverlayColors: Bool = true
    ) {
        self.loader = loader
        self.placement = placement
        self.convertsOverlayColors = convertsOverlayColors
    }

    /// What a merge produced.
    public struct Result: Sendable {
        /// The composited image, the background's size, 16-bit when any input was; for an
        /// animated merge, its first frame (every input's frame 0).
        public var image: PixelBuffer
        /// The merged animation, when any input is animated; `nil` for still inputs.
        public var animation: MergedAnimation?
        /// What the background declared.
        public var backgroundInfo: ImageInfo
        /// Overlays that failed and were left out (only with ``ImageLoader/Options/keepGoing``),
        /// in input order.
        public var skipped: [ImgToolError]
        /// The inputs' warnings (``ImageInfo/warnings``: a GIF or JPEG cut short, ...), each with
        /// the input as given, the background's first, then the overlays' in input order.
        public var warnings: [(input: String, message: String)] = []
    }

    /// Loads `background` and `overlays` and composites them.
    /// - Parameters:
    ///   - background: the image drawn on; the output has its size.
    ///   - overlays: one or more images drawn in order.
    /// - Returns: the image, and the overlays skipped with `keepGoing`.
    /// - Throws: ``ImgToolError`` naming the failing input: any loading error (`notFound`,
    ///   `network`, `truncated`, `tooLarge`, `unsupportedFormat`, `corrupt` ...), always for the
    ///   background and, without `keepGoing`, for an overlay; `invalidArgument` when there is no
    ///   overlay or every overlay failed; `tooLarge` when merged animations would pass `maxFrames`
    ///   or `maxTotalPixels`; `cancelled`.
    public func merge(background: ImageInput, overlays: [ImageInput]) async throws(ImgToolError) -> Result {
        guard let first = overlays.first else {
            throw ImgToolError(.invalidArgument, "merge needs at least one overlay")
        }
        var (base, layers, skipped) = try await loadInputs(
            background: background, first: first, rest: Array(overlays.dropFirst()))
        guard !layers.isEmpty else {
            let reasons = skipped.map(\.description).joined(separator: "; ")
            throw ImgToolError(.invalidArgument, "every overlay failed to load, nothing to merge: \(reasons)")
        }
        let info = base.info
        let warnings = ([base] + layers).flatMap { loaded in loaded.info.warnings.map { (loaded.name, $0) } }
        if convertsOverlayColors { Self.convertColors(of: &layers, to: info.color.effectiveProfile) }
        let (image, animation) = try await Self.merged(
            background: consume base, overlays: layers, placement: placement, limits: loader.options.limits)
        return Result(
            image: image, animation: animation, backgroundInfo: info, skipped: skipped, warnings: warnings)
    }

    /// Loads everything: two `async let`s for the background and first overlay, the loader's task
    /// group for the rest, all running at once.
    private func loadInputs(
        background: ImageInput, first: ImageInput, rest: [ImageInput]
    ) async throws(ImgToolError) -> (LoadedImage, [LoadedImage], [ImgToolError]) {
        let loader = self.loader
        let keepGoing = loader.options.keepGoing
        // Every use is announced before any load starts: the first overlay's URL may also be a
        // later overlay's, and its bytes must outlive the first load for the group to share them
        await loader.expect([background, first] + rest)
        async let backgroundResult = loader.load(background, index: 0)
        async let firstResult = loader.loadOne(first, index: 1)
        async let restResults = loader.loadAnnouncedResults(rest, firstIndex: 2)
        do {
            let (base, firstOverlay) = try await (backgroundResult, firstResult)
            let others = await restResults
            var layers: [LoadedImage] = []
            var skipped: [ImgToolError] = []
            for result in [firstOverlay] + others {
                switch result {
                case .success(let image): layers.append(image)
                case .failure(let error):
                    if !keepGoing { throw error }
                    skipped.append(error)
                }
            }
            return (base, layers, skipped)
        } catch let error as ImgToolError {
            throw error
        } catch {
            throw ImgToolError(.cancelled, "cancelled")
        }
    }

    /// Composites on the global concurrent executor, whatever actor the caller is on.
    /// Converts each overlay whose colours are described otherwise into the background's colour
    /// space (`profile`, `nil` for sRGB): its first frame now, its animation as it is read. An
    /// untagged sRGB logo on a Display P3 photo keeps the colours it had. An overlay that cannot
    /// be converted (a profile Little CMS refuses) is left as it is.
    static func convertColors(of layers: inout [LoadedImage], to profile: ColorProfile?) {
        for index in layers.indices {
            let from = layers[index].info.color.effectiveProfile
            guard from.conversionKey != profile.conversionKey else { continue }
            if let image = try? layers[index].image.convertingColors(from: from, to: profile) {
                layers[index].image = image
            }
            layers[index].converted = layers[index].animation.map { $0.convertingColors(to: profile) }
            layers[index].info.color = ColorMetadata(profile: profile)
        }
    }

    /// ``MergeOperation``'s merge of the loaded inputs, on the global concurrent executor
    /// whatever actor the caller is on; a still background is composited in place.
    @concurrent
    static func merged(
        background: consuming LoadedImage, overlays: [LoadedImage], placement: OverlayPlacement,
        limits: DecodingLimits
    ) async throws(ImgToolError) -> (image: PixelBuffer, animation: MergedAnimation?) {
        try MergeOperation.merged(background: background, overlays: overlays, placement: placement, limits: limits)
    }
}

extension ImageMerger.Result {
    /// The merge as a source to write: ``animation``, or ``image`` described by the background.
    public var source: any FrameSource {
        animation ?? StillImageSource(image, describedBy: backgroundInfo)
    }
}
