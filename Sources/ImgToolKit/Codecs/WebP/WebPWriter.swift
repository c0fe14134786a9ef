internal import CWebP

/// Writes WebP files with libwebp's encoders (the only encoding code that calls libwebp).
///
/// A still is encoded by `WebPEncode`; an animation by `WebPAnimEncoder`, fed one composited
/// canvas at a time with its timestamp: the encoder stores each frame as the rectangle that
/// changed (choosing per frame between dispose-none and dispose-to-background and between
/// blending and copying) or, where that is smaller, as a whole key frame (considered at
/// gif2webp's distances, unless every frame redraws the canvas, ``KeyFrames``), and merges a frame identical to the one before into its duration, so
/// the file plays exactly the canvases given for exactly their time. Timestamps are whole
/// milliseconds, rounded from the running sum of the delays so that no frame drifts, after
/// frames under 20 ms are folded (``WrittenTiming``, as every animated writer does).
///
/// Lossless output stores every pixel exactly, the colour of fully transparent pixels included
/// (`WebPConfig.exact`). Memory is a few canvases (the reader's and the encoder's previous and
/// current ones) plus the compressed frames, held at most twice, whatever the frame count.
///
/// libwebp reports errors by return code; each failure becomes an ``ImgToolError`` with
/// libwebp's `WebPEncodingError` or `WebPAnimEncoderGetError` text as its cause. The encoders
/// run on the calling thread (seconds of uninterruptible C for a long animation, so cancellation
/// is checked between frames).
struct WebPWriter {
    /// Encode losslessly (`VP8L`) rather than lossy (`VP8 ` with a lossless `ALPH` plane).
    let lossless: Bool
    /// libwebp's quality factor, 0-100: image quality for lossy output, effort for lossless.
    let quality: Int
    /// libwebp's method, 0-6: how hard the encoder searches (0 fastest, 6 smallest); a
    /// compression level of 7-9 (the scale PNG's zlib levels use) asks for 6.
    let method: Int
    /// How many times an animation plays, 0 forever; `nil`: as the source says.
    let plays: Int?
    /// A colour to flatten every frame onto first, or `nil` to keep alpha.
    let background: RGBAColor?
    /// `ICCP`, `EXIF` and `XMP ` chunks added to the file (see ``describing(_:)``).
    var metadataChunks: [(tag: String, data: [UInt8])] = []

    /// The settings for `options`, with the defaults taken from the source's `info`.
    init(options: ImageWriteOptions, source info: ImageInfo) {
        lossless = options.writesLossless(source: info)
        quality = options.quality ?? 75
        method = options.compressionLevel.map { min($0, 6) } ?? 4
        plays = options.plays
        background = options.background
    }

    /// Encodes `source` into `sink`: a still WebP for a one-frame source, else an animation.
    /// - Throws: ``ImgToolError``: `invalidArgument` for a quality outside 0-100 or a canvas over
    ///   16383 pixels a side; a decoding error from `source`; `writeFailed` when libwebp fails;
    ///   `cancelled`; `invalidArgument` for an animation that plays for more than 2^31 - 1 ms.
    ///   (A delay over 16777215 ms and plays over 65535 are clamped, ``AnimationLimits``.)
    func write(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        async throws(ImgToolError)
    {
        try encode(source, into: &sink, progress: progress)
    }

    /// ``write(_:into:progress:)`` on the calling thread, for callers outside a task (the fuzzers).
    func encode(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        let source = source.timedForWriting(as: .webp)
        let info = source.info
        guard (0...100).contains(quality) else {
            throw ImgToolError(.invalidArgument, "WebP quality \(quality) is out of range: 0...100")
        }
        guard method >= 0 else {
            throw ImgToolError(.invalidArgument, "WebP compression level \(method) is out of range: 0...9")
        }
        // Past 65535 plays, the most ANIM's loop count holds (``AnimationLimits``; noted before).
        let plays = AnimationLimits.webp.clamped(plays: self.plays ?? info.plays)
        // WebPAnimEncoder takes each frame's start as an int of milliseconds: a play past 2^31 - 1
        // ms (24.8 days, 128 frames of the longest delay) cannot be given to it.
        let total = info.frames.reduce(Duration.zero) { $0 + max($1.delay, .zero) }
        guard info.frameCount <= 1 || total <= .milliseconds(Int(Int32.max)) else {
            throw ImgToolError(
                .invalidArgument,
                "cannot write a WebP animation that plays for \(AnimationLimits.seconds(total)): libwebp's frame times end at 2147483.647 s"
            )
        }
        let maxSide = Int(WEBP_MAX_DIMENSION)
        guard (1...maxSide).contains(info.width), (1...maxSide).contains(info.height) else {
            throw ImgToolError(
                .invalidArgument, "cannot write a \(info.width)x\(info.height) WebP: sides must be 1...\(maxSide)")
        }
        let config = try makeConfig()
        if !info.isAnimated {
            let image = prepared(try source.frame(at: 0, depth: .eight).image)
            try sink.append(try addingMetadata(to: Self.encodeStill(image, config: config)))
            progress?(1)
            return
        }
        let pieces = try encodeAnimation(source, plays: plays, config: config, progress: progress)
        guard metadataChunks.isEmpty else {
            try sink.append(try addingMetadata(to: Array(pieces.joined())))
            return
        }
        for piece in pieces { try sink.append(piece) }
    }

    /// The frame ranges encoded at once, each by its own `WebPAnimEncoder`: two halves, the
    /// second on a helper thread, for an animation of at least 8 frames on two or more
    /// processors; else one. Each range after the first starts with a whole-canvas frame.
    static func segments(frameCount: Int, processors: Int = availableProcessors) -> [Range<Int>] {
        guard frameCount >= 8, processors >= 2 else { return [0..<frameCount] }
        return [0..<frameCount / 2, frameCount / 2..<frameCount]
    }

    /// Encodes an animation, in two halves at once when ``segments(frameCount:processors:)``
    /// says so: `WebPAnimEncoder` is sequential, so the second half runs on a plain thread
    /// (``forkJoinStoppingOnFailure(_:alongside:)``, seconds of blocking C work) with its own
    /// frame reader, which starts at its first frame (decoding the frames before it only where
    /// they show in it, ``FrameSkippingSource``), and the halves' frames are joined into one
    /// file (``WebPAnimationJoin``). The two encoders then keep both processors busy, so neither
    /// starts libwebp's own helper thread (`thread_level` 0).
    private func encodeAnimation(
        _ source: any FrameSource, plays: Int, config: WebPConfig, progress: (@Sendable (Int) -> Void)?
    ) throws(ImgToolError) -> [ArraySlice<UInt8>] {
        let segments = Self.segments(frameCount: source.info.frameCount)
        let written = Locked(0)
        let frameWritten: @Sendable () -> Void = {
            let count = written.withLock { count in
                count += 1
                return count
            }
            progress?(count)
        }
        guard segments.count == 2 else {
            return [
                try encodeSegment(
                    source, frames: segments[0], plays: plays, config: config,
                    shouldStop: { Task.isCancelled }, frameWritten: frameWritten
                ).bytes[...]
            ]
        }
        var config = config
        config.thread_level = 0
        let writer = self
        let halves = config
        let (second, first) = try forkJoinStoppingOnFailure(
            { (shouldStop: () -> Bool) throws(ImgToolError) in
                try writer.encodeSegment(
                    source, frames: segments[1], plays: plays, config: halves, shouldStop: shouldStop,
                    frameWritten: frameWritten)
            },
            alongside: { (shouldStop: () -> Bool) throws(ImgToolError) in
                try encodeSegment(
                    source, frames: segments[0], plays: plays, config: config, shouldStop: shouldStop,
                    frameWritten: frameWritten)
            })
        return try WebPAnimationJoin.join(
            [first, second], width: source.info.width, height: source.info.height, plays: plays)
    }

    /// One segment's file and how long its frames show in all, in ms.
    struct Segment: Sendable {
        var bytes: [UInt8]
        var duration: Int
    }

    /// Encodes the frames in `range` (timestamps counted from the animation's start) into one
    /// file with its own `WebPAnimEncoder`.
    ///
    /// The encoder is made when the range's second frame has been read: it looks for key frames
    /// (``KeyFrames``) unless that frame is redrawn almost everywhere (``isRedrawn(_:from:)``).
    private func encodeSegment(
        _ source: any FrameSource, frames range: Range<Int>, plays: Int, config: WebPConfig,
        shouldStop: () -> Bool, frameWritten: () -> Void
    ) throws(ImgToolError) -> Segment {
        let info = source.info
        let reader = try source.frameReader(from: range.lowerBound, depth: .eight)
        var elapsed = info.frames[..<min(range.lowerBound, info.frames.count)].reduce(Duration.zero) {
            $0 + max($1.delay, .zero)
        }
        let start = Self.timestamp(elapsed)
        var encoder: AnimationEncoder?
        var held: (image: PixelBuffer, timestamp: Int, index: Int)?
        while let frame = try reader.nextFrame(), frame.index < range.upperBound {
            defer { elapsed += max(frame.info.delay, .zero) }
            if shouldStop() { throw ImgToolError(.cancelled, "cancelled while writing frame \(frame.index)") }
            guard frame.index >= range.lowerBound else { continue }
            let image = prepared(frame.image)
            let timestamp = Self.timestamp(elapsed)
            if encoder == nil {
                guard let first = held else {
                    held = (image, timestamp, frame.index)
                    continue
                }
                let keyFrames: KeyFrames = Self.isRedrawn(image, from: first.image) ? .off : .considered
                let made = try AnimationEncoder(
                    width: info.width, height: info.height, plays: plays, lossless: lossless, keyFrames: keyFrames)
                try made.add(first.image, at: first.timestamp, index: first.index, config: config)
                frameWritten()
                held = nil
                encoder = made
            }
            try encoder?.add(image, at: timestamp, index: frame.index, config: config)
            frameWritten()
        }
        let finishing: AnimationEncoder
        if let encoder {
            finishing = encoder
        } else {
            finishing = try AnimationEncoder(
                width: info.width, height: info.height, plays: plays, lossless: lossless, keyFrames: .off)
        }
        if let first = held {
            try finishing.add(first.image, at: first.timestamp, index: first.index, config: config)
            frameWritten()
        }
        let end = Self.timestamp(elapsed)
        return Segment(bytes: try finishing.finish(at: end), duration: end - start)
    }

    /// Whether `WebPAnimEncoder` looks for key frames.
    enum KeyFrames {
        /// Every frame after the first is stored as the rectangle that changed (libwebp's default,
        /// as `img2webp`).
        case off
        /// As gif2webp: a key frame considered every 9 to 17 frames (lossless) or 3 to 5 (lossy),
        /// taken where it is smaller than the changed rectangle. Each frame considered is encoded
        /// twice (as a key frame and as a changed rectangle), about half the frames lossless and
        /// two in five lossy; it saves size where little changes: big.gif's 100 frames of
        /// 1920x1080, lossless, are 632,280 bytes with key frames and 635,464 without.
        case considered
    }

    /// Whether `image` differs from `previous` in at least nine pixels in ten: a canvas redrawn
    /// almost everywhere each frame (a video's frames, a panned photo: 98% of the pixels of
    /// `scripts/bench make`'s stills change), where the changed rectangle is the whole canvas and
    /// a key frame costs about as much, so looking for key frames only encodes frames twice.
    /// (The animation benchmark's GIFs change 50% to 79% of their pixels a frame; they keep key
    /// frames.) `false` for 16-bit buffers or different sizes.
    static func isRedrawn(_ image: PixelBuffer, from previous: PixelBuffer) -> Bool {
        guard let next = image.rgba8, let before = previous.rgba8, next.count == before.count, !next.isEmpty else {
            return false
        }
        let pixels = next.count / 4
        var changed = 0
        next.withUnsafeBytes { next in
            before.withUnsafeBytes { before in
                for offset in stride(from: 0, to: pixels * 4, by: 4)
                where next.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                    != before.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                {
                    changed += 1
                }
            }
        }
        return changed * 10 >= pixels * 9
    }

    /// A time in whole milliseconds, rounded half up.
    static func timestamp(_ time: Duration) -> Int {
        Int((time.milliseconds).rounded(.toNearestOrAwayFromZero))
    }

    /// The frame as written: 8-bit, flattened onto ``background`` when one is set.
    private func prepared(_ image: PixelBuffer) -> PixelBuffer {
        guard let background else { return image }
        var flat = image.converted(to: .eight)
        flat.withMutableRGBA8 { samples in
            samples.withUnsafeMutableBufferPointer { pixels in
                guard let base = pixels.baseAddress else { return }
                for pixel in stride(from: 0, to: pixels.count, by: 4) {
                    var under: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (
                        background.red, background.green, background.blue, background.alpha
                    )
                    SourceOver.blend8(
                        source: (base[pixel], base[pixel + 1], base[pixel + 2], base[pixel + 3]), over: &under)
                    (base[pixel], base[pixel + 1], base[pixel + 2], base[pixel + 3]) = under
                }
            }
        }
        return flat
    }

    /// libwebp's configuration: its defaults, with our quality, method (4 unless asked, as
    /// `cwebp`) and mode.
    private func makeConfig() throws(ImgToolError) -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw ImgToolError(.writeFailed, "libwebp refused its own configuration (a library version mismatch)")
        }
        config.lossless = lossless ? 1 : 0
        // Turned off for an animation's frames without transparent pixels (``AnimationEncoder/add``).
        config.exact = lossless ? 1 : 0
        config.quality = Float(quality)
        config.method = Int32(method)
        config.thread_level = 1
        guard WebPValidateConfig(&config) != 0 else {
            throw ImgToolError(.invalidArgument, "libwebp refused the settings (quality \(quality))")
        }
        return config
    }

    // MARK: - libwebp

    /// Encodes one still image.
    /// The corresponding C function is `WebPEncode` (with `WebPPictureImportRGBA` and a
    /// `WebPMemoryWriter`).
    private static func encodeStill(_ image: PixelBuffer, config: WebPConfig) throws(ImgToolError) -> [UInt8] {
        var config = config
        var picture = try Picture(image)
        defer { picture.free() }
        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        let ok = withUnsafeMutablePointer(to: &memory) { writer in
            picture.picture.writer = WebPMemoryWrite
            picture.picture.custom_ptr = UnsafeMutableRawPointer(writer)
            return WebPEncode(&config, &picture.picture)
        }
        guard ok != 0, let bytes = memory.mem else {
            throw ImgToolError(
                .writeFailed, "libwebp could not encode the \(image.width)x\(image.height) image",
                cause: encodingErrorText(picture.picture.error_code))
        }
        return Array(UnsafeBufferPointer(start: bytes, count: memory.size))
    }

    /// libwebp's name for a `WebPEncodingError`.
    static func encodingErrorText(_ code: WebPEncodingError) -> String {
        switch code {
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "VP8_ENC_ERROR_OUT_OF_MEMORY"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY"
        case VP8_ENC_ERROR_NULL_PARAMETER: "VP8_ENC_ERROR_NULL_PARAMETER"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "VP8_ENC_ERROR_INVALID_CONFIGURATION"
        case VP8_ENC_ERROR_BAD_DIMENSION: "VP8_ENC_ERROR_BAD_DIMENSION"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "VP8_ENC_ERROR_PARTITION0_OVERFLOW"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "VP8_ENC_ERROR_PARTITION_OVERFLOW"
        case VP8_ENC_ERROR_BAD_WRITE: "VP8_ENC_ERROR_BAD_WRITE"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "VP8_ENC_ERROR_FILE_TOO_BIG"
        case VP8_ENC_ERROR_USER_ABORT: "VP8_ENC_ERROR_USER_ABORT"
        default: "WebPEncodingError \(code.rawValue)"
        }
    }

    /// A `WebPPicture` holding a copy of an 8-bit RGBA image as ARGB.
    private struct Picture {
        var picture = WebPPicture()

        /// The corresponding C functions are `WebPPictureInit` and `WebPPictureImportRGBA`.
        init(_ image: PixelBuffer) throws(ImgToolError) {
            guard WebPPictureInit(&picture) != 0 else {
                throw ImgToolError(.writeFailed, "libwebp refused its own picture (a library version mismatch)")
            }
            picture.use_argb = 1
            picture.width = Int32(image.width)
            picture.height = Int32(image.height)
            let samples = image.converted(to: .eight).rgba8 ?? []
            let imported = samples.withUnsafeBufferPointer { rgba in
                WebPPictureImportRGBA(&picture, rgba.baseAddress, Int32(image.width * 4))
            }
            guard imported != 0 else {
                throw ImgToolError(.tooLarge, "out of memory for a \(image.width)x\(image.height) WebP picture")
            }
        }

        /// The corresponding C function is `WebPPictureFree`.
        mutating func free() {
            WebPPictureFree(&picture)
        }
    }

    /// One `WebPAnimEncoder`, freed when released.
    ///
    /// A one-shot object used inside one task and never shared.
    private final class AnimationEncoder {
        private var encoder: OpaquePointer?
        private let width: Int
        private let height: Int

        /// The corresponding C function is `WebPAnimEncoderNew`, with `WebPAnimEncoderOptionsInit`'s
        /// defaults (no key frames), gif2webp's key-frame distances when `keyFrames` is
        /// `.considered`, and a transparent background colour in ANIM.
        init(width: Int, height: Int, plays: Int, lossless: Bool, keyFrames: KeyFrames) throws(ImgToolError) {
            var options = WebPAnimEncoderOptions()
            guard WebPAnimEncoderOptionsInit(&options) != 0 else {
                throw ImgToolError(
                    .writeFailed, "libwebp refused its own animation options (a library version mismatch)")
            }
            options.anim_params.loop_count = Int32(plays)
            options.anim_params.bgcolor = 0
            if keyFrames == .considered {
                options.kmin = lossless ? 9 : 3
                options.kmax = lossless ? 17 : 5
            }
            guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
                throw ImgToolError(.tooLarge, "libwebp could not start a \(width)x\(height) animation (out of memory)")
            }
            self.encoder = encoder
            self.width = width
            self.height = height
        }

        deinit {
            if let encoder { WebPAnimEncoderDelete(encoder) }
        }

        /// Adds the canvas shown from `timestamp` ms on.
        ///
        /// A canvas without a fully transparent pixel is encoded with `exact` off even when
        /// lossless: the only transparent pixels libwebp then encodes are those it made
        /// transparent itself where the canvas did not change (the frame blended over the one
        /// before), whose colour never shows. Their colour is then free to predict, which makes
        /// frames smaller; the canvases decode exactly as given.
        /// The corresponding C function is `WebPAnimEncoderAdd`.
        func add(_ image: PixelBuffer, at timestamp: Int, index: Int, config: WebPConfig) throws(ImgToolError) {
            guard let encoder else { throw ImgToolError(.writeFailed, "the WebP animation was already ended") }
            var config = config
            if config.exact != 0, !Self.hasTransparentPixel(image) { config.exact = 0 }
            var picture = try Picture(image)
            defer { picture.free() }
            guard WebPAnimEncoderAdd(encoder, &picture.picture, Int32(clamping: timestamp), &config) != 0 else {
                throw ImgToolError(
                    .writeFailed, "libwebp could not encode frame \(index) (at \(timestamp) ms)", cause: errorText)
            }
        }

        /// Whether some pixel of an 8-bit `image` has alpha 0 (`true` for a 16-bit one: unknown).
        static func hasTransparentPixel(_ image: PixelBuffer) -> Bool {
            guard let samples = image.rgba8 else { return true }
            return samples.withUnsafeBufferPointer { samples in
                for alpha in stride(from: 3, to: samples.count, by: 4) where samples[alpha] == 0 { return true }
                return false
            }
        }

        /// Ends the animation at `timestamp` ms and returns the file. The encoder (its copy of
        /// every frame) is freed before the file is copied out of libwebp, so the animation is
        /// held at most twice.
        /// The corresponding C functions are `WebPAnimEncoderAdd` (with no picture),
        /// `WebPAnimEncoderAssemble` and `WebPAnimEncoderDelete`.
        func finish(at timestamp: Int) throws(ImgToolError) -> [UInt8] {
            guard let encoder else { throw ImgToolError(.writeFailed, "the WebP animation was already ended") }
            guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
                throw ImgToolError(
                    .writeFailed, "libwebp could not end the animation at \(timestamp) ms", cause: errorText)
            }
            var data = WebPData()
            WebPDataInit(&data)
            defer { WebPDataClear(&data) }
            guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else {
                throw ImgToolError(.writeFailed, "libwebp could not assemble the animation", cause: errorText)
            }
            WebPAnimEncoderDelete(encoder)
            self.encoder = nil
            return Array(UnsafeBufferPointer(start: bytes, count: data.size))
        }

        private var errorText: String {
            encoder.flatMap { WebPAnimEncoderGetError($0) }.map { String(cString: $0) } ?? ""
        }
    }
}
