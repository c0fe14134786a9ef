internal import CAVIF

/// One libavif decoding session over a copy of the file: parse, then the frames in order, each
/// converted to RGBA and shown as a browser shows it (``AVIFDisplay``).
///
/// libavif reads the bytes in place for as long as the decoder lives, so the session keeps its own
/// copy. A one-shot object used by one thread at a time; ``AVIFSource`` makes one to learn the
/// structure and each ``AVIFFrameReader`` one of its own.
final class AVIFDecoder {
    private let decoder: UnsafeMutablePointer<avifDecoder>
    private let bytes: UnsafeMutableRawBufferPointer
    /// Whether the file parsed only once libavif's strict checks were off (a missing `pixi`
    /// property, a clean aperture libavif's strict mode refuses).
    let isLenient: Bool

    /// Parses `data` (no pixels are decoded).
    /// - Parameter threads: how many threads the AV1 decoder may use.
    /// - Throws: ``ImgToolError``: `tooLarge` past `limits` (libavif is told the limits too, so
    ///   nothing larger is allocated), `truncated`, `corrupt`, `unsupportedFormat`.
    init(data: [UInt8], limits: DecodingLimits, threads: Int) throws(ImgToolError) {
        guard let decoder = avifDecoderCreate() else {
            throw ImgToolError(.tooLarge, "out of memory for an AVIF decoder")
        }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        self.bytes = bytes
        self.decoder = decoder
        decoder.pointee.maxThreads = Int32(clamping: max(threads, 1))
        decoder.pointee.imageSizeLimit = UInt32(clamping: limits.maxPixels)
        decoder.pointee.imageCountLimit = UInt32(clamping: limits.maxFrames)
        var result = Self.parse(decoder, bytes, count: data.count, strict: true)
        var lenient = false
        if result != AVIF_RESULT_OK, result == AVIF_RESULT_BMFF_PARSE_FAILED || result == AVIF_RESULT_INVALID_IMAGE_GRID
        {
            // What browsers still show (a missing `pixi`): parse again without the strict checks.
            if Self.parse(decoder, bytes, count: data.count, strict: false) == AVIF_RESULT_OK {
                result = AVIF_RESULT_OK
                lenient = true
            }
        }
        isLenient = lenient
        // Every property is set: on a throw, deinit destroys the decoder and frees the copy.
        guard result == AVIF_RESULT_OK else { throw Self.error(result, decoder, "cannot read the AVIF structure") }
    }

    deinit {
        avifDecoderDestroy(decoder)
        bytes.deallocate()
    }

    private static func parse(
        _ decoder: UnsafeMutablePointer<avifDecoder>, _ bytes: UnsafeMutableRawBufferPointer, count: Int, strict: Bool
    ) -> avifResult {
        decoder.pointee.strictFlags = strict ? avifStrictFlags(AVIF_STRICT_ENABLED.rawValue) : 0
        let set = avifDecoderSetIOMemory(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
        guard set == AVIF_RESULT_OK else { return set }
        return avifDecoderParse(decoder)
    }

    /// The image as parsed: size, depth, format, colour description, transforms, metadata.
    var image: UnsafeMutablePointer<avifImage> { decoder.pointee.image }
    /// The number of frames (1 for a still).
    var frameCount: Int { Int(decoder.pointee.imageCount) }
    /// Whether there is an alpha plane.
    var hasAlpha: Bool { decoder.pointee.alphaPresent != 0 }

    /// Frame `index`'s duration.
    func duration(of index: Int) -> Duration {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK, timing.timescale > 0 else {
            return .zero
        }
        let whole = timing.durationInTimescales / timing.timescale
        let rest = timing.durationInTimescales % timing.timescale
        let attoseconds = Double(rest) / Double(timing.timescale) * 1e18
        return Duration(
            secondsComponent: Int64(clamping: whole), attosecondsComponent: Int64(attoseconds.rounded()))
    }

    /// The colour description: the ICC profile, and the `nclx` code points.
    var colorDescription: (icc: [UInt8]?, cicp: ColorMetadata.CICP) {
        let image = image.pointee
        let icc =
            image.icc.size > 0 && image.icc.data != nil
            ? Array(UnsafeBufferPointer(start: image.icc.data, count: image.icc.size)) : nil
        let cicp = ColorMetadata.CICP(
            primaries: Int(image.colorPrimaries), transfer: Int(image.transferCharacteristics),
            matrix: Int(image.matrixCoefficients), fullRange: image.yuvRange == AVIF_RANGE_FULL)
        return (icc, cicp)
    }

    /// The EXIF and XMP payloads as stored.
    var metadata: (exif: [UInt8]?, xmp: [UInt8]?) {
        let image = image.pointee
        func copy(_ data: avifRWData) -> [UInt8]? {
            data.size > 0 && data.data != nil ? Array(UnsafeBufferPointer(start: data.data, count: data.size)) : nil
        }
        return (copy(image.exif), copy(image.xmp))
    }

    /// How the stored image is shown: its clean aperture, rotation and mirror.
    /// - Throws: ``ImgToolError`` `corrupt` for a clean aperture outside the image.
    func display() throws(ImgToolError) -> AVIFDisplay {
        let image = image.pointee
        let width = Int(image.width)
        let height = Int(image.height)
        var crop = FrameRegion(x: 0, y: 0, width: width, height: height)
        if image.transformFlags & avifTransformFlags(AVIF_TRANSFORM_CLAP.rawValue) != 0 {
            guard let region = AVIFCleanAperture(image.clap).region(inWidth: width, height: height) else {
                let clap = image.clap
                throw ImgToolError(
                    .corrupt,
                    "corrupt AVIF: the clean aperture (clap \(clap.widthN)/\(clap.widthD) x \(clap.heightN)/\(clap.heightD), offset \(Int32(bitPattern: clap.horizOffN))/\(clap.horizOffD), \(Int32(bitPattern: clap.vertOffN))/\(clap.vertOffD)) is not a whole-pixel rectangle inside the \(width)x\(height) image"
                )
            }
            crop = region
        }
        let hasRotation = image.transformFlags & avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue) != 0
        let hasMirror = image.transformFlags & avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue) != 0
        return AVIFDisplay(
            crop: crop, anticlockwiseTurns: hasRotation ? Int(image.irot.angle & 3) : 0,
            mirror: hasMirror ? (image.imir.mode == 0 ? .topBottom : .leftRight) : nil)
    }

    /// Decodes the next frame and converts it to RGBA at `depth` (straight alpha; alpha 255 when
    /// the file has none), as stored (no transforms).
    /// - Throws: ``ImgToolError`` `corrupt` or `truncated` naming the frame; `tooLarge` when
    ///   memory runs out.
    func nextImage(depth: SampleDepth, index: Int) throws(ImgToolError) -> PixelBuffer {
        let result = avifDecoderNextImage(decoder)
        guard result == AVIF_RESULT_OK else {
            throw Self.error(result, decoder, "cannot decode frame \(index)")
        }
        guard let image = decoder.pointee.image else {
            throw ImgToolError(.corrupt, "corrupt AVIF: frame \(index) has no image")
        }
        // libavif 0.11's 8-bit path copies limited-range monochrome luma without expanding it
        // to full range (its 16-bit path expands it): such images go through 16 bits.
        if depth == .eight, image.pointee.yuvFormat == AVIF_PIXEL_FORMAT_YUV400,
            image.pointee.yuvRange == AVIF_RANGE_LIMITED
        {
            return try convert(image, depth: .sixteen, index: index).converted(to: .eight)
        }
        return try convert(image, depth: depth, index: index)
    }

    /// `image` (the decoder's current frame) as RGBA at `depth`.
    private func convert(_ image: UnsafeMutablePointer<avifImage>, depth: SampleDepth, index: Int) throws(ImgToolError)
        -> PixelBuffer
    {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = depth == .sixteen ? 16 : 8
        rgb.alphaPremultiplied = 0
        let width = Int(image.pointee.width)
        let height = Int(image.pointee.height)
        var failure: avifResult = AVIF_RESULT_OK
        // An 8-bit alpha plane that is not premultiplied is copied by imgtool_avif_copy_alpha8,
        // sixteen pixels at a time; libavif, shown the frame without it, converts the colour
        // alone (the same colour: straight alpha does not touch it). libavif's own copy took a
        // sixth of the time of an AVIF sequence with an alpha plane (scripts/bench formats).
        var colour = image.pointee
        let alpha = colour.alphaPlane
        let copiesAlpha =
            depth == .eight && colour.depth == 8 && alpha != nil && colour.alphaRowBytes > 0
            && colour.alphaPremultiplied == 0
        if copiesAlpha {
            colour.alphaPlane = nil
            colour.alphaRowBytes = 0
        }
        let buffer = PixelBuffer(width: width, height: height, depth: depth) { (bytes: UnsafeMutableRawBufferPointer) in
            let pixels = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.pixels = pixels
            rgb.rowBytes = UInt32(width * 4 * (depth == .sixteen ? 2 : 1))
            failure = avifImageYUVToRGB(&colour, &rgb)
            if copiesAlpha, failure == AVIF_RESULT_OK, let alpha, let pixels {
                imgtool_avif_copy_alpha8(
                    alpha, Int(image.pointee.alphaRowBytes), pixels, Int(rgb.rowBytes), UInt32(width), UInt32(height))
            }
        }
        guard failure == AVIF_RESULT_OK else {
            throw Self.error(failure, decoder, "cannot convert frame \(index) to RGB")
        }
        return buffer
    }

    /// An ``ImgToolError`` for `result`, with libavif's diagnostic as the cause.
    private static func error(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>, _ what: String)
        -> ImgToolError
    {
        let name = String(cString: avifResultToString(result))
        let detail = text(of: &decoder.pointee.diag)
        let cause = detail.map { "\(name): \($0)" } ?? name
        let code: ImgToolError.Code
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA: code = .truncated
        case AVIF_RESULT_OUT_OF_MEMORY: code = .tooLarge
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED: code = .unsupportedFormat
        default:
            // libavif refuses sizes past the limits it was given before allocating them.
            let overLimit = detail.map { $0.contains("limit") || $0.contains("too large") } ?? false
            code = overLimit ? .tooLarge : .corrupt
        }
        let lead =
            code == .truncated ? "truncated AVIF" : code == .tooLarge ? "AVIF over the decoding limits" : "corrupt AVIF"
        return ImgToolError(code, "\(lead): \(what) (\(cause))", cause: cause)
    }

    private static func text(of diagnostics: UnsafeMutablePointer<avifDiagnostics>) -> String? {
        let text = withUnsafeBytes(of: &diagnostics.pointee.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? nil : text
    }
}

/// How a stored AVIF image is shown, in MIAF's order: the clean aperture (`clap`) cut out, then
/// turned anticlockwise (`irot`), then mirrored (`imir`).
struct AVIFDisplay: Sendable, Hashable {
    /// A mirror axis.
    enum Mirror: Sendable, Hashable {
        /// Top and bottom exchanged (`imir` mode 0; EXIF orientation 4).
        case topBottom
        /// Left and right exchanged (`imir` mode 1; EXIF orientation 2).
        case leftRight
    }

    /// The clean aperture, in stored pixels (the whole image when there is no `clap`).
    var crop: FrameRegion
    /// Quarter turns anticlockwise, 0 ... 3.
    var anticlockwiseTurns: Int
    /// The mirror after the turn, or `nil`.
    var mirror: Mirror?

    /// The displayed size.
    var size: PixelSize {
        anticlockwiseTurns % 2 == 0
            ? PixelSize(width: crop.width, height: crop.height) : PixelSize(width: crop.height, height: crop.width)
    }

    /// The turn and mirror as the EXIF orientation that does the same (what `info` reports as
    /// the orientation applied).
    var orientation: ImageOrientation {
        switch (anticlockwiseTurns, mirror) {
        case (0, nil): .up
        case (1, nil): .left
        case (2, nil): .down
        case (3, nil): .right
        case (0, .leftRight), (2, .topBottom): .upMirrored
        case (0, .topBottom), (2, .leftRight): .downMirrored
        case (1, .topBottom), (3, .leftRight): .leftMirrored
        default: .rightMirrored  // (1, left-right), (3, top-bottom)
        }
    }

    /// Whether the stored image is shown as it is.
    func isIdentity(storedWidth: Int, storedHeight: Int) -> Bool {
        crop == FrameRegion(x: 0, y: 0, width: storedWidth, height: storedHeight) && anticlockwiseTurns == 0
            && mirror == nil
    }

    /// `stored` as it is shown.
    func apply(to stored: PixelBuffer) -> PixelBuffer {
        var image = stored
        if crop != FrameRegion(x: 0, y: 0, width: stored.width, height: stored.height) {
            image = image.cropped(to: crop)
        }
        if anticlockwiseTurns != 0 { image = image.rotated(quarterTurns: -anticlockwiseTurns) }
        switch mirror {
        case .topBottom: image = image.flipped()
        case .leftRight: image = image.flopped()
        case nil: break
        }
        return image
    }
}

/// A clean aperture (`clap`, ISO/IEC 14496-12 12.1.4.3): a width and height, and the offset of
/// its centre from the image's, each a fraction.
struct AVIFCleanAperture: Sendable, Hashable {
    var width: (numerator: Int64, denominator: Int64)
    var height: (numerator: Int64, denominator: Int64)
    var horizontalOffset: (numerator: Int64, denominator: Int64)
    var verticalOffset: (numerator: Int64, denominator: Int64)

    static func == (a: Self, b: Self) -> Bool {
        a.width == b.width && a.height == b.height && a.horizontalOffset == b.horizontalOffset
            && a.verticalOffset == b.verticalOffset
    }

    func hash(into hasher: inout Hasher) {
        for part in [width, height, horizontalOffset, verticalOffset] {
            hasher.combine(part.numerator)
            hasher.combine(part.denominator)
        }
    }

    init(
        width: (Int64, Int64), height: (Int64, Int64), horizontalOffset: (Int64, Int64), verticalOffset: (Int64, Int64)
    ) {
        self.width = width
        self.height = height
        self.horizontalOffset = horizontalOffset
        self.verticalOffset = verticalOffset
    }

    /// libavif's box; the offsets' numerators are signed 32-bit values stored unsigned.
    init(_ box: avifCleanApertureBox) {
        self.init(
            width: (Int64(box.widthN), Int64(box.widthD)), height: (Int64(box.heightN), Int64(box.heightD)),
            horizontalOffset: (Int64(Int32(bitPattern: box.horizOffN)), Int64(box.horizOffD)),
            verticalOffset: (Int64(Int32(bitPattern: box.vertOffN)), Int64(box.vertOffD)))
    }

    /// The rectangle cut out of a `imageWidth` x `imageHeight` image: `width` x `height` whose
    /// left edge is at `horizontalOffset + (imageWidth - width) / 2` (and the top likewise).
    /// `nil` unless every edge falls on a whole pixel inside the image. Unlike libavif 0.11's
    /// helper, odd offsets in a subsampled image are accepted: the RGB image is cut, as browsers
    /// cut it.
    func region(inWidth imageWidth: Int, height imageHeight: Int) -> FrameRegion? {
        guard width.denominator > 0, height.denominator > 0, horizontalOffset.denominator > 0,
            verticalOffset.denominator > 0, width.numerator % width.denominator == 0,
            height.numerator % height.denominator == 0
        else { return nil }
        let clapWidth = width.numerator / width.denominator
        let clapHeight = height.numerator / height.denominator
        // left = dx + (W - w) / 2 = (2 dx.n + (W - w) dx.d) / (2 dx.d)
        let dx = horizontalOffset
        let dy = verticalOffset
        let left = 2 * dx.numerator + (Int64(imageWidth) - clapWidth) * dx.denominator
        let top = 2 * dy.numerator + (Int64(imageHeight) - clapHeight) * dy.denominator
        guard left % (2 * dx.denominator) == 0, top % (2 * dy.denominator) == 0 else { return nil }
        let x = left / (2 * dx.denominator)
        let y = top / (2 * dy.denominator)
        guard clapWidth > 0, clapHeight > 0, x >= 0, y >= 0, x + clapWidth <= imageWidth, y + clapHeight <= imageHeight
        else { return nil }
        return FrameRegion(x: Int(x), y: Int(y), width: Int(clapWidth), height: Int(clapHeight))
    }
}
