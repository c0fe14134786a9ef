/// Composes a WebP's frames in order on one canvas, exactly as libwebp's `WebPAnimDecoder` does,
/// so that imgtool shows the canvases that libwebp, Chromium and Pillow show.
///
/// The canvas (the `VP8X` size) starts transparent; the `ANIM` background colour is ignored. Each
/// frame's bitstream is decoded by libwebp (`WebPDecode`, RGBA) and drawn at its offset: copied
/// over its rectangle, transparent pixels included, when the frame says "do not blend", else
/// blended with libwebp's straight-alpha source-over (``WebPBlend``). A frame that disposes to
/// background has its rectangle cleared to transparent before the next frame is drawn.
/// `WebPAnimDecoder` treats some frames as key frames (the first; a full-canvas frame without
/// alpha or without blending; a frame after a full-canvas or key frame disposed to background)
/// and draws them onto a cleared canvas without blending; within a frame that follows a frame
/// disposed to background, the pixels inside the disposed rectangle are copied, not blended.
/// This reader follows the same rules, since blending onto transparent pixels is not exact in
/// libwebp's integer arithmetic.
///
/// Frames are decoded through ``DecodeAhead``, on the other cores while this one composes.
/// Memory is one canvas and the few canvas-sized buffers of the decode-ahead window, whatever
/// the frame count. A one-shot object used inside one task and never shared; the frames it returns
/// are `Sendable` values. Releasing it stops its helper threads.
final class WebPFrameReader: FrameReader {
    private let source: WebPSource
    private let depth: SampleDepth
    private let decoding: DecodeAhead<DecodedFrame>
    private var canvas: [UInt8]
    /// The frame drawn last: what the next frame's key-frame test and disposal need.
    private var previous: (region: FrameRegion, disposes: Bool, isKey: Bool)?
    private var index = 0
    /// The first error; frames after it are never shown, so it is thrown again.
    private var failure: ImgToolError?

    /// Prepares to compose the source's frames.
    /// - Parameters:
    ///   - depth: the output depth; WebP samples are 8-bit, 16-bit output widens them (x 257).
    ///   - helpers: threads that decode ahead; `nil` picks ``DecodeAhead/helpers(frameCount:pixels:)``.
    init(source: WebPSource, depth: SampleDepth, helpers: Int? = nil) {
        self.source = source
        self.depth = depth
        canvas = [UInt8](repeating: 0, count: source.info.width * source.info.height * 4)
        let frames = source.file.frames
        let pixels = frames.reduce(0) { $0 + $1.info.region.width * $1.info.region.height }
        let canvasBytes = source.info.width * source.info.height * 4
        decoding = DecodeAhead(
            frameCount: frames.count,
            helpers: helpers ?? DecodeAhead<DecodedFrame>.helpers(frameCount: frames.count, pixels: pixels),
            window: Self.window(canvasBytes: canvasBytes)
        ) { index, spare, _ throws(ImgToolError) in
            try Self.decode(frames[index], of: source, reusing: spare)
        }
    }

    deinit {
        decoding.stop()
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if let failure { throw failure }
        guard index < source.file.frames.count else {
            decoding.stop()
            return nil
        }
        do throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before WebP frame \(index)") }
            let frame = try compose(source.file.frames[index])
            index += 1
            if index == source.file.frames.count { decoding.stop() }
            return frame
        } catch {
            failure = error
            decoding.stop()
            throw error
        }
    }

    private func compose(_ frame: WebPFile.Frame) throws(ImgToolError) -> Frame {
        let width = source.info.width
        let height = source.info.height
        let region = frame.info.region
        let isFull = region.width == width && region.height == height
        let isKey: Bool
        if frame.info.index == 0 || ((!frame.hasAlpha || frame.info.blend == .source) && isFull) {
            isKey = true
        } else if let previous, previous.disposes {
            isKey = previous.region.width == width && previous.region.height == height || previous.isKey
        } else {
            isKey = false
        }
        let decoded = try decoding.decoded(frame.info.index, isCancelled: { Task.isCancelled })

        defer { decoding.recycle(decoded) }
        if isKey && isFull {
            // The frame is the whole canvas: take its buffer, and offer the old one for reuse.
            swap(&canvas, &decoded.pixels)
        } else {
            let pixels = decoded.pixels
            let disposed = previous.flatMap { $0.disposes ? $0.region : nil }
            if isKey {
                if frame.info.index > 0 {
                    canvas.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                }
            } else if let disposed {
                WebPBlend.clear(disposed, in: &canvas, width: width)
            }
            let blends = frame.info.blend == .over && !isKey
            WebPBlend.draw(pixels, region: region, onto: &canvas, width: width, blends: blends, keeping: disposed)
        }
        previous = (region, frame.info.disposal == .background, isKey)

        // The canvas is never handed out (`unsharedCopy()`): the next frame is drawn on it in
        // place, or it goes back to the decoders, while an encoder may still read this one.
        let shown = PixelBuffer(width: width, height: height, rgba8: canvas)
        var image = depth == .sixteen ? shown.converted(to: .sixteen) : shown.unsharedCopy()
        image.metadata = ImageMetadata(format: .webp, bitDepth: 8, colorType: source.info.colorType)
        return Frame(info: frame.info, image: image)
    }

    /// Frames decoded ahead at most, beyond the one being composed: as many as fit in 12 MiB of
    /// canvas-sized buffers (one 1920x1080 canvas; a 480x270 animation keeps DecodeAhead's own,
    /// smaller window), so that memory stays a few canvases whatever their size.
    static func window(canvasBytes: Int) -> Int {
        max(1, (12 << 20) / max(canvasBytes, 1))
    }

    /// Decodes one frame's bitstream with libwebp into the first `width * height * 4` bytes of a
    /// canvas-sized buffer (`spare`, a recycled one, when there is one): every buffer has the same
    /// size, so buffers are reused whatever the frames' sizes and the heap does not fragment.
    private static func decode(_ frame: WebPFile.Frame, of source: WebPSource, reusing spare: DecodedFrame?)
        throws(ImgToolError) -> DecodedFrame
    {
        let region = frame.info.region
        let canvasCount = source.info.width * source.info.height * 4
        let decoded = spare ?? DecodedFrame()
        if decoded.pixels.count != canvasCount {
            decoded.pixels = [UInt8](unsharedUninitializedCapacity: canvasCount) { buffer, initialized in
                adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
                initialized = canvasCount  // only the frame's part is read, after WebPDecode wrote it
            }
        }
        let count = region.width * region.height * 4
        // The buffer is referenced by `decoded` alone (a canvas handed out in a frame that is
        // still held is the exception, and is then copied), so this writes in place.
        let result: Result<Void, WebPBitstream.StatusError> = decoded.pixels.withUnsafeMutableBytes { buffer in
            do throws(WebPBitstream.StatusError) {
                try WebPBitstream.decode(
                    source.data, in: frame.bitstream, width: region.width, height: region.height,
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let status) = result {
            let what = source.file.isAnimated ? "ANMF frame \(frame.info.index) (offset \(frame.offset))" : "image"
            let kind = frame.isLossless ? "VP8L" : "VP8"
            let code: ImgToolError.Code = status.code == 1 ? .tooLarge : .corrupt
            throw ImgToolError(
                code, "corrupt WebP: the \(kind) bitstream of the \(what) does not decode (libwebp: \(status))",
                cause: status.description)
        }
        return decoded
    }

    /// A decoded frame's pixels in a canvas-sized buffer, owned by one object so that the buffer
    /// moves through ``DecodeAhead`` by reference: an array passed along by value is shared for a
    /// moment at each hand-over (the pipeline's spare list and the decoder), and writing into it
    /// then copies all of it.
    ///
    /// `@unchecked Sendable`, as ``GIFFrameIndices``: a buffer has one owner at a time.
    /// ``DecodeAhead`` hands it from the thread that decodes into it to the reader that composes
    /// it under its lock, and nobody touches a buffer while it sits in the pipeline's tables.
    final class DecodedFrame: @unchecked Sendable {
        var pixels: [UInt8] = []
    }
}
