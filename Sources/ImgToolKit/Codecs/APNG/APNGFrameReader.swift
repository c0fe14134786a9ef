/// Composes an APNG's frames in order on one canvas, as the APNG specification says: before a
/// frame is drawn, the previous frame's region is disposed of (`none` keeps it, `background`
/// clears it to transparent black, `previous` puts back what was there before that frame); the
/// frame is then drawn with `source` (replace) or `over` (exact source-over, ``SourceOver``).
///
/// Each frame's zlib data is decoded by libpng through ``DecodeAhead``, which decodes the next
/// frames on the other cores while this one is composed.
///
/// Each reader is one play: its canvas starts transparent black. Memory is one canvas, for
/// `previous` disposal one saved copy of the frame's region, and the few decoded frames of the
/// decode-ahead window. A one-shot object used inside one task; the frames it returns are
/// `Sendable` values. Releasing it stops its helper threads.
final class APNGFrameReader: FrameReader {
    private let source: APNGSource
    private let depth: SampleDepth
    private let decoding: DecodeAhead<PixelBuffer>
    private var canvas: PixelBuffer
    /// What the current frame's region held before the frame was drawn (`previous` disposal).
    private var saved: PixelBuffer?
    /// The disposal due before the next frame is drawn.
    private var pending: (region: FrameRegion, disposal: FrameDisposal)?
    private var index = 0

    /// Prepares to compose the source's frames.
    /// - Parameter helpers: threads that decode ahead; `nil` picks
    ///   ``DecodeAhead/helpers(frameCount:pixels:)``.
    init(source: APNGSource, depth: SampleDepth, helpers: Int? = nil) {
        self.source = source
        self.depth = depth
        self.canvas = PixelBuffer(width: source.info.width, height: source.info.height, depth: depth)
        let count = source.isFallback ? 0 : source.frames.count
        let pixels = source.info.frames.reduce(0) { $0 + $1.region.width * $1.region.height }
        decoding = DecodeAhead(
            frameCount: count,
            helpers: helpers ?? DecodeAhead<PixelBuffer>.helpers(frameCount: count, pixels: pixels)
        ) { index, _, _ throws(ImgToolError) in
            try Self.decode(source.frames[index], index: index, of: source, depth: depth)
        }
    }

    deinit {
        decoding.stop()
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if source.isFallback {
            guard index == 0 else { return nil }
            index = 1
            return Frame(info: source.info.frames[0], image: try source.defaultImage(depth: depth))
        }
        guard index < source.frames.count else {
            decoding.stop()
            return nil
        }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before APNG frame \(index)") }
        let info = source.info.frames[index]
        let pixels = try decoding.decoded(index, isCancelled: { Task.isCancelled })

        if let pending {
            switch pending.disposal {
            case .none: break
            case .background: canvas.clear(pending.region)
            case .previous:
                if let saved { canvas.draw(saved, at: (pending.region.x, pending.region.y), blend: .source) }
            }
        }
        // dispose_op previous on the first frame acts as background (APNG 1.0, fcTL).
        let disposal = index == 0 && info.disposal == .previous ? .background : info.disposal
        saved = disposal == .previous ? canvas.cropped(to: info.region) : nil
        canvas.draw(pixels, at: (info.region.x, info.region.y), blend: info.blend)
        pending = (info.region, disposal)
        index += 1
        if index == source.frames.count { decoding.stop() }
        // The canvas is never handed out (`unsharedCopy()`): the next frame is drawn on it in
        // place while an encoder may still read this one.
        return Frame(info: info, image: canvas.unsharedCopy())
    }

    /// Decodes one frame's pixels with libpng, from its rebuilt PNG stream.
    private static func decode(_ frame: APNGFrame, index: Int, of source: APNGSource, depth: SampleDepth)
        throws(ImgToolError) -> PixelBuffer
    {
        let region = frame.control.region
        let stream = APNGFrameStream.make(frame, of: source.file, data: source.data)
        let pixels: PixelBuffer
        do throws(ImgToolError) {
            pixels = try PNGDecoder(limits: source.limits).decode(stream, depth: depth)
        } catch {
            let code: ImgToolError.Code = error.code == .truncated ? .corrupt : error.code
            let origin = frame.isDefaultImage ? "IDAT" : "fdAT data"
            throw ImgToolError(
                code,
                "corrupt APNG frame \(index) (\(region), fcTL at offset \(frame.offset), \(origin)): \(error.message)",
                cause: error.cause)
        }
        guard pixels.width == region.width, pixels.height == region.height else {
            throw ImgToolError(
                .corrupt,
                "corrupt APNG frame \(index): libpng decoded \(pixels.width)x\(pixels.height), expected \(region.width)x\(region.height)"
            )
        }
        return pixels
    }
}
