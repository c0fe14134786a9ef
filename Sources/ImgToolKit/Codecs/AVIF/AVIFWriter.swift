internal import CAVIF

/// Writes a ``FrameSource`` as an AVIF with libavif (libaom encodes): a still for one frame, an
/// image sequence otherwise, each frame the whole canvas, alpha when the source has any.
///
/// - Quality 0-100 (default 60) becomes an AV1 quantizer as libavif 1.x maps its `quality`
///   option, `q = round((100 - quality) x 63 / 100)`, used as the range `q - 1 ... q + 1`: the
///   default is `avifenc`'s own default range, 24-26. Alpha is lossless, as `avifenc` keeps it.
/// - Lossless (without a quality, the default for a lossless source: PNG, APNG, GIF, lossless
///   WebP) stores RGB as 4:4:4 with the identity matrix at quantizer 0: every sample comes back.
///   A quality given means lossy (``ImageWriteOptions/writesLossless(source:)``).
/// - The compression level 0-9 becomes libaom's speed `10 - level` (default 6, `avifenc`'s).
/// - Both cores: libaom runs with as many threads as there are processors; a sequence without
///   row-based multithreading, with which libaom 3.6 mis-encodes frames (see `encode`).
/// - 8-bit sources are written at 8 bits; deeper ones at 10 (12 when lossless). Colour: the ICC
///   profile, or the `nclx` code points of sRGB. Sequences use a 1 ms timescale (coarser for one
///   that lasts more than 2^32 - 1 ms, ``timescale(for:)``), durations rounded from the running
///   sum, after frames under 20 ms are folded (``WrittenTiming``, as every animated writer does)
///   and delays past 2^32 - 1 ms clamped (``AnimationLimits``); libavif 0.11 writes no edit
///   list, so a sequence plays as a player loops it (browsers: forever), whatever
///   ``ImageWriteOptions/plays`` says (a note says so).
struct AVIFWriter {
    let lossless: Bool
    let quality: Int
    let level: Int
    let background: RGBAColor?
    /// The threads libaom may use (default: one per processor).
    var threads = availableProcessors
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    init(options: ImageWriteOptions, source info: ImageInfo) {
        lossless = options.writesLossless(source: info)
        quality = options.quality ?? 60
        level = options.compressionLevel ?? 4
        background = options.background
    }

    /// This writer carrying what `color` says: the ICC profile, EXIF and XMP.
    func describing(_ color: OutputColor) -> AVIFWriter {
        var writer = self
        if case .icc(let profile) = color.description { writer.icc = profile.data }
        writer.exif = color.exif
        writer.xmp = color.xmp
        return writer
    }

    /// The AV1 quantizer for `quality` (libavif 1.x's mapping).
    static func quantizer(forQuality quality: Int) -> Int {
        ((100 - quality) * 63 + 50) / 100
    }

    /// Encodes `source` into `sink`.
    /// - Throws: ``ImgToolError``: `invalidArgument` for a quality outside 0-100, a level outside
    ///   0-9 or a canvas over 65536 pixels a side; a decoding error from `source`; `writeFailed`
    ///   when libavif fails; `cancelled`.
    func encode(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        let source = source.timedForWriting(as: .avif)
        let info = source.info
        guard (0...100).contains(quality) else {
            throw ImgToolError(.invalidArgument, "AVIF quality \(quality) is out of range: 0...100")
        }
        guard (0...9).contains(level) else {
            throw ImgToolError(.invalidArgument, "AVIF compression level \(level) is out of range: 0...9")
        }
        guard (1...65536).contains(info.width), (1...65536).contains(info.height) else {
            throw ImgToolError(
                .invalidArgument, "cannot write a \(info.width)x\(info.height) AVIF: sides must be 1...65536")
        }
        let deep = info.bitDepth > 8
        let depth: UInt32 = deep ? (lossless ? 12 : 10) : 8
        guard let encoder = avifEncoderCreate() else { throw ImgToolError(.writeFailed, "out of memory for libavif") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.maxThreads = Int32(clamping: threads)
        encoder.pointee.speed = Int32(10 - level)
        let q = lossless ? 0 : Int32(Self.quantizer(forQuality: quality))
        encoder.pointee.minQuantizer = lossless ? 0 : max(q - 1, 0)
        encoder.pointee.maxQuantizer = lossless ? 0 : min(q + 1, 63)
        encoder.pointee.minQuantizerAlpha = 0
        encoder.pointee.maxQuantizerAlpha = 0
        let (unit, timescale) = try Self.timescale(for: info)
        encoder.pointee.timescale = timescale

        let single = info.frames.count <= 1
        // libaom 3.6 (Debian 12's) with row-based multithreading, which libavif turns on for more
        // than one thread, mis-encodes some frames of a sequence at speeds 5 and 6 with libavif's
        // SSIM tuning: what the encoder reconstructs differs from what every decoder does (aomenc
        // --test-decode reports the mismatch; CDEF on screen content such as a GIF's), and the
        // frames predicted from it drift until the next key frame (issue 41: counter digits as
        // black and pink blocks from frame 25 on). Without it, every machine writes the frames one
        // thread writes (as fast at the sizes of animations, measured at 320x240). A still (one
        // intra frame, nothing predicted from it, encoded all-intra) keeps it.
        if !single { avifEncoderSetCodecSpecificOption(encoder, "row-mt", "0") }
        let reader = try source.makeFrameReader(depth: deep ? .sixteen : .eight)
        guard let first = try reader.nextFrame() else {
            throw ImgToolError(.corrupt, "the image has no frames to write")
        }
        // A still's alpha is known from its pixels; a sequence's from what the source says.
        let hasAlpha = background == nil && !source.isOpaque && (!single || first.image.firstTranslucentRow() != nil)
        var written = 0
        var timeline = MillisecondTimeline(maximum: Int(UInt32.max), unit: unit)
        var next: Frame? = first
        while let frame = next {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing AVIF frame \(written)") }
            var image = frame.image
            if let background { image = image.flattened(onto: background) }
            let duration = timeline.duration(of: frame.info.delay)
            try add(
                image, to: encoder, depth: depth, hasAlpha: hasAlpha, first: written == 0,
                duration: UInt64(duration), single: single)
            written += 1
            progress?(written)
            next = single ? nil : try reader.nextFrame()
        }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let finished = avifEncoderFinish(encoder, &output)
        guard finished == AVIF_RESULT_OK, let bytes = output.data else {
            throw Self.failure(finished, encoder, "finish the file")
        }
        try sink.append(Array(UnsafeBufferPointer(start: bytes, count: output.size)))
    }

    /// The unit of the durations and its timescale: milliseconds, or 10 ms, 100 ms or seconds
    /// when the sequence lasts longer than 2^32 - 1 ms. libavif 0.11 stores each sample's
    /// duration and the track's (the sum) in 32 bits of the timescale, modulo 2^32: a 5,000,000 s
    /// frame would read back as 705,032.704 s. Each delay is at most 2^32 - 1 ms already
    /// (``AnimationLimits``).
    /// - Throws: ``ImgToolError`` `invalidArgument` when the sequence lasts longer than 2^32 - 1
    ///   seconds (136 years), which no timescale holds.
    static func timescale(for info: ImageInfo) throws(ImgToolError) -> (unit: Duration, timescale: UInt64) {
        guard info.frameCount > 1 else { return (.milliseconds(1), 1000) }
        let total = info.frames.reduce(Duration.zero) { $0 + max($1.delay, .zero) }
        let units: [(Duration, UInt64)] = [
            (.milliseconds(1), 1000), (.milliseconds(10), 100), (.milliseconds(100), 10), (.seconds(1), 1),
        ]
        for (unit, timescale) in units where (total / unit).rounded() + Double(info.frameCount) <= Double(UInt32.max) {
            return (unit, timescale)
        }
        throw ImgToolError(
            .invalidArgument,
            "cannot write an AVIF sequence that plays for \(AnimationLimits.seconds(total)): libavif 0.11 holds 2^32 - 1 s"
        )
    }

    /// Converts one frame to YUV and hands it to the encoder.
    private func add(
        _ frame: PixelBuffer, to encoder: UnsafeMutablePointer<avifEncoder>, depth: UInt32, hasAlpha: Bool,
        first: Bool, duration: UInt64, single: Bool
    ) throws(ImgToolError) {
        guard
            let image = avifImageCreate(
                UInt32(frame.width), UInt32(frame.height), depth, AVIF_PIXEL_FORMAT_YUV444)
        else { throw ImgToolError(.writeFailed, "out of memory for an AVIF frame") }
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(
            lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        // libavif refuses a frame whose code points differ from the first's, so every frame of a
        // sequence with a profile says "unspecified"; the profile and metadata go with the first.
        if icc != nil {
            image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_UNSPECIFIED)
            image.pointee.transferCharacteristics = avifTransferCharacteristics(
                AVIF_TRANSFER_CHARACTERISTICS_UNSPECIFIED)
        }
        if first {
            icc?.withUnsafeBufferPointer { avifImageSetProfileICC(image, $0.baseAddress, $0.count) }
            exif?.withUnsafeBufferPointer { avifImageSetMetadataExif(image, $0.baseAddress, $0.count) }
            xmp?.withUnsafeBufferPointer { avifImageSetMetadataXMP(image, $0.baseAddress, $0.count) }
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = hasAlpha ? 0 : 1
        rgb.alphaPremultiplied = 0
        /// Reads the samples in place (8 or 16 bits, as their type is wide).
        func convert<S>(_ samples: [S]) -> avifResult {
            rgb.depth = UInt32(MemoryLayout<S>.size * 8)
            rgb.rowBytes = UInt32(frame.width * 4 * MemoryLayout<S>.size)
            return samples.withUnsafeBytes { bytes in
                rgb.pixels = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
                return avifImageRGBToYUV(image, &rgb)
            }
        }
        let converted: avifResult
        switch frame.samples {
        case .rgba8(let samples): converted = convert(samples)
        case .rgba16(let samples): converted = convert(samples)
        }
        guard converted == AVIF_RESULT_OK else { throw Self.failure(converted, encoder, "convert a frame to YUV") }
        let flags = avifAddImageFlags((single ? AVIF_ADD_IMAGE_FLAG_SINGLE : AVIF_ADD_IMAGE_FLAG_NONE).rawValue)
        let added = avifEncoderAddImage(encoder, image, duration, flags)
        guard added == AVIF_RESULT_OK else { throw Self.failure(added, encoder, "encode a frame") }
    }

    private static func failure(_ result: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>, _ what: String)
        -> ImgToolError
    {
        let name = String(cString: avifResultToString(result))
        let detail = withUnsafeBytes(of: &encoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let cause = detail.isEmpty ? name : "\(name): \(detail)"
        return ImgToolError(.writeFailed, "libavif could not \(what) (\(cause))", cause: cause)
    }
}
