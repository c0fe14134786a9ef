/// A ``FrameSource`` whose frames are another source's composited frames, resized.
///
/// Each frame is resized after it has been composited (never a partial frame on its own), so
/// disposal and blending happen at the source's size and every output frame is a whole canvas.
/// The frame count, every delay and the number of plays are kept; ``info`` reports the new
/// size, with each frame's region the whole canvas, drawn with ``FrameBlend/source`` and
/// ``FrameDisposal/none``. Writers re-optimize what they write (changed rectangles, palettes
/// built from the resized pixels), so write a resized animation through the
/// ``CodecRegistry`` like any other source.
///
/// One ``Resampler`` (one set of weight tables) serves every frame. Frames are resized in the
/// reader's ``FrameReader/nextFrame()``, synchronously, on both cores for large frames; memory
/// stays at the source reader's canvases plus one resized frame.
public struct ResizedFrameSource: FrameSource, FrameSkippingSource, FrameSelectingSource {
    /// The source whose frames are resized.
    public let base: any FrameSource
    /// The resize applied to every frame.
    public let resampler: Resampler
    /// The base's information with the new size and whole-canvas frames.
    public let info: ImageInfo
    /// Opaque when the base is: filtering opaque pixels gives opaque pixels.
    public var isOpaque: Bool { base.isOpaque }

    /// Wraps `base`, resizing its frames as `spec` resolves against its canvas.
    /// - Parameters:
    ///   - base: the source to resize.
    ///   - spec: the size asked for.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light. Default `false`.
    ///   - shrinkingFirst: the fast path for large reductions (see ``Resampler``). Default: when
    ///     `spec` is a thumbnail.
    ///   - limits: the resized canvas is checked against `maxPixels`, and the resized animation
    ///     against `maxFrames` and `maxTotalPixels`, before anything is allocated.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty canvas; `tooLarge`.
    public init(
        _ base: any FrameSource, spec: ResizeSpec, filter: ResampleFilter = .lanczos3, linear: Bool = false,
        shrinkingFirst: Bool? = nil, limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        let canvas = PixelSize(width: base.info.width, height: base.info.height)
        let geometry = try spec.resolve(against: canvas, limits: limits)
        try self.init(
            base, geometry: geometry, filter: filter, linear: linear,
            shrinkingFirst: shrinkingFirst ?? spec.isThumbnail,
            limits: limits)
    }

    /// Wraps `base`, resizing its frames to `geometry` (scaled size and crop).
    /// - Parameters:
    ///   - base: the source to resize.
    ///   - geometry: the scaled size and the part of it kept.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light. Default `false`.
    ///   - shrinkingFirst: the fast path for large reductions (see ``Resampler``). Default `false`.
    ///   - limits: checked as by ``init(_:spec:filter:linear:shrinkingFirst:limits:)``.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty canvas or a crop outside the
    ///   scaled size; `tooLarge`.
    public init(
        _ base: any FrameSource, geometry: ResizeGeometry, filter: ResampleFilter = .lanczos3,
        linear: Bool = false, shrinkingFirst: Bool = false, limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        let canvas = PixelSize(width: base.info.width, height: base.info.height)
        let resampler = try Resampler(
            from: canvas, scaledTo: geometry.scaledSize, croppedTo: geometry.crop, filter: filter, linear: linear,
            shrinkingFirst: shrinkingFirst, limits: limits)
        try self.init(base, resampler: resampler, limits: limits)
    }

    /// Wraps `base`, resizing its frames with `resampler` (made for its canvas; its transfer
    /// curve is set here from the base's colour description when it filters in linear light).
    init(_ base: any FrameSource, resampler: Resampler, limits: DecodingLimits) throws(ImgToolError) {
        precondition(resampler.sourceSize == PixelSize(width: base.info.width, height: base.info.height))
        let resampler = resampler.withTransfer(resampler.linear ? TransferCurve(describing: base.info.color) : .sRGB)
        let size = resampler.outputSize
        try limits.checkAnimation(frames: base.info.frameCount, width: size.width, height: size.height)
        var info = base.info
        info.width = size.width
        info.height = size.height
        info.frames = base.info.frames.map { frame in
            FrameInfo(
                index: frame.index, delay: frame.delay,
                region: FrameRegion(x: 0, y: 0, width: size.width, height: size.height), disposal: .none,
                blend: .source)
        }
        self.base = base
        self.resampler = resampler
        self.info = info
    }

    /// A reader of the base's composited frames, each resized.
    /// - Parameter depth: output depth; `nil` keeps the base's.
    /// - Throws: ``ImgToolError`` from the base.
    ///
    /// A one-frame base that streams its rows (a JPEG or PNG) is resized as it is decoded, when the
    /// depth asked for is 8 bits or the base's: its rows go into the resampler as they are made,
    /// and the full-size image is never held.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        if depth != .sixteen, let streaming = base as? any RowStreamingSource {
            return StreamedResizeReader(
                source: streaming, depth: depth, resampler: resampler, frames: info.frames)
        }
        return ResizedFrameReader(
            base: try base.makeFrameReader(depth: depth), resampler: resampler, frames: info.frames)
    }

    /// Each frame is resized on its own: the base starts at frame `start` (a video seeks to it).
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        ResizedFrameReader(
            base: try base.frameReader(from: start, depth: depth), resampler: resampler, frames: info.frames)
    }

    /// Only the frames asked for are read from the base and resized.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        ResizedFrameReader(
            base: try base.frameReader(selecting: frames, depth: depth), resampler: resampler, frames: info.frames)
    }
}

/// The one frame of a ``RowStreamingSource`` resized as it is decoded; when the source does not
/// stream this image, every frame is read and resized by a ``ResizedFrameReader``.
final class StreamedResizeReader: FrameReader {
    private let source: any RowStreamingSource
    private let depth: SampleDepth?
    private let resampler: Resampler
    private let frames: [FrameInfo]
    /// Whether the streamed frame has been returned.
    private var streamed = false
    /// The reader used when the source does not stream.
    private var fallback: ResizedFrameReader?

    init(source: any RowStreamingSource, depth: SampleDepth?, resampler: Resampler, frames: [FrameInfo]) {
        self.source = source
        self.depth = depth
        self.resampler = resampler
        self.frames = frames
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if let fallback { return try fallback.nextFrame() }
        if streamed { return nil }
        if let first = frames.first, frames.count == 1, let image = try resampler.resample(rowsOf: source) {
            streamed = true
            return Frame(info: first, image: image)
        }
        let reader = ResizedFrameReader(
            base: try source.makeFrameReader(depth: depth), resampler: resampler, frames: frames)
        fallback = reader
        return try reader.nextFrame()
    }
}

/// Reads the base's frames in order and resizes each one, two frames in flight: while frame `i`
/// is resized on a second thread, the base composites frame `i + 1` on this one (the resize of
/// a frame depends on nothing but that frame). Memory: one composited frame more than the base.
final class ResizedFrameReader: FrameReader {
    private let base: any FrameReader
    private let resampler: Resampler
    private let frames: [FrameInfo]
    /// The frame being resized on a second thread, started before the frame before it was
    /// returned, so that it runs while the caller works on that one.
    private var resizing: (frame: Frame, resized: Forked<PixelBuffer>)?
    /// The base's frame after the one being resized (composited while it was), the end, or the
    /// base's error; `nil` before the first call.
    private var upcoming: Result<Frame?, ImgToolError>?

    init(base: any FrameReader, resampler: Resampler, frames: [FrameInfo]) {
        self.base = base
        self.resampler = resampler
        self.frames = frames
    }

    /// A reader let go before its last frame (a `--frames` range that ends early, a failure
    /// after it) waits for the resize it started: no work of a reader outlives it, and the
    /// frame goes with it.
    deinit {
        _ = resizing?.resized.join()
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if upcoming == nil {
            upcoming = Result { () throws(ImgToolError) in try base.nextFrame() }
            advance()
        }
        guard let (frame, resized) = resizing else {
            _ = try upcoming?.get()  // the base's error, or the end
            return nil
        }
        let image = resized.join()
        resizing = nil
        // The next frame is resized while the caller works on this one.
        advance()
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
        return Frame(info: info(for: frame), image: image)
    }

    /// Starts resizing the upcoming frame on a second thread and composites the one after it
    /// meanwhile (the base reads on this thread only). At the end, or after an error, nothing
    /// is started: the next call reports it.
    private func advance() {
        guard case .success(let next?) = upcoming else { return }
        let (resampler, image) = (self.resampler, next.image)
        guard image.width == resampler.sourceSize.width, image.height == resampler.sourceSize.height else {
            upcoming = .failure(
                ImgToolError(
                    .corrupt,
                    "frame \(next.index) is \(image.width)x\(image.height), not the \(resampler.sourceSize) canvas"))
            return
        }
        resizing = (next, fork { resampler.resampleChecked(image) })
        upcoming = Result { () throws(ImgToolError) in try base.nextFrame() }
    }

    /// The frame's table entry at the new size.
    private func info(for frame: Frame) -> FrameInfo {
        if frames.indices.contains(frame.index) { return frames[frame.index] }
        return FrameInfo(
            index: frame.index, delay: frame.info.delay,
            region: FrameRegion(x: 0, y: 0, width: resampler.outputSize.width, height: resampler.outputSize.height),
            disposal: .none, blend: .source)
    }
}
