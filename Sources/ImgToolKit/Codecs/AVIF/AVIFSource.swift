internal import CAVIF

/// An AVIF, still or image sequence, parsed once by libavif: size, depth, alpha, frame timing,
/// colour description and metadata, no pixels.
///
/// Frames are decoded by ``AVIFFrameReader``, each shown as a browser shows it: the clean
/// aperture, rotation and mirror of the image (``AVIFDisplay``) applied, alpha straight (libavif
/// divides a premultiplied image), 10- and 12-bit samples kept as 16-bit ones (or rounded to 8
/// bits, `(v x 255 + 32767) / 65535`, when 8 are asked for).
struct AVIFSource: FrameSource {
    let info: ImageInfo
    /// The file, parsed again by each reader.
    let data: [UInt8]
    let limits: DecodingLimits
    let display: AVIFDisplay
    let hasAlpha: Bool
    /// Bits per sample as stored: 8, 10 or 12.
    let storedDepth: Int

    /// Parses `data` and checks its size and frame count against `limits`. The grids and
    /// overlays of its `meta` box are checked first, by ``HEIFItemGraph`` as a HEIF's are: libavif
    /// 0.11 allocates a grid's canvas from its descriptor before it compares it with the `ispe`
    /// (which is what `imageSizeLimit` sees).
    /// - Throws: ``ImgToolError``: `tooLarge`, `truncated`, `corrupt`, `unsupportedFormat`.
    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let graph = HEIFItemGraph(data)
        if let problem = graph.problem {
            throw ImgToolError(.corrupt, "corrupt AVIF: \(problem) (a grid's tiles must be coded images)")
        }
        try graph.checkDerivedImages(against: limits, format: "AVIF")
        let decoder = try AVIFDecoder(data: data, limits: limits, threads: 1)
        let image = decoder.image.pointee
        let storedWidth = Int(image.width)
        let storedHeight = Int(image.height)
        try limits.checkPixels(width: storedWidth, height: storedHeight, what: "AVIF image")
        let frameCount = decoder.frameCount
        guard frameCount > 0 else { throw ImgToolError(.corrupt, "corrupt AVIF: no image") }
        try limits.checkAnimation(frames: frameCount, width: storedWidth, height: storedHeight)
        let display = try decoder.display()
        guard display.crop.width > 0, display.crop.height > 0 else {
            throw ImgToolError(.corrupt, "corrupt AVIF: the clean aperture is empty")
        }

        let isGray = image.yuvFormat == AVIF_PIXEL_FORMAT_YUV400
        let hasAlpha = decoder.hasAlpha
        let colorType = ColorType(isGray: isGray, hasAlpha: hasAlpha)
        let isSequence = frameCount > 1
        let frames = (0..<frameCount).map { index in
            FrameInfo(
                index: index, delay: isSequence ? decoder.duration(of: index) : .zero,
                region: FrameRegion(x: 0, y: 0, width: display.size.width, height: display.size.height),
                disposal: .none, blend: .source)
        }
        let plays = isSequence ? AVIFMovie(data).plays : 1
        var warnings: [String] = []
        if decoder.isLenient {
            warnings.append(
                "libavif's strict checks refuse this AVIF (a missing pixi property, or a clean aperture at odd offsets); shown as browsers show it"
            )
        }
        let (icc, cicp) = decoder.colorDescription
        var info = ImageInfo(
            format: .avif, width: display.size.width, height: display.size.height, bitDepth: Int(image.depth),
            colorType: colorType,
            color: ColorMetadata(cicp: icc == nil && !(cicp.primaries == 2 && cicp.transfer == 2) ? cicp : nil),
            frames: frames,
            loopValue: isSequence ? plays : nil, plays: plays, warnings: warnings)
        info.storedSize = PixelSize(width: storedWidth, height: storedHeight)
        info.appliedOrientation = display.orientation
        info.exifOrientationIsInformational = true
        let (exif, xmp) = decoder.metadata
        info.describeMetadata(icc: icc, exif: exif.map(ISOBMFF.tiff(fromExifItem:)), xmp: xmp)
        self.info = info
        self.data = data
        self.limits = limits
        self.display = display
        self.hasAlpha = hasAlpha
        storedDepth = Int(image.depth)
    }

    var isOpaque: Bool { !hasAlpha }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try AVIFFrameReader(source: self, depth: depth ?? (storedDepth > 8 ? .sixteen : .eight))
    }
}

/// Decodes the frames of an ``AVIFSource`` in order with a libavif decoder of its own (the AV1
/// decoder on every core for frames of a megapixel or more), one frame in memory at a time.
final class AVIFFrameReader: FrameReader {
    private let source: AVIFSource
    private let depth: SampleDepth
    private let decoder: AVIFDecoder
    private var index = 0
    private var failure: ImgToolError?

    init(source: AVIFSource, depth: SampleDepth) throws(ImgToolError) {
        self.source = source
        self.depth = depth
        // dav1d's threads pay on large frames; on small ones (a 480x270 sequence) handing each
        // frame between threads costs more than it saves (scripts/bench formats: 68 ms on two
        // threads against 39 ms for libavif's own loop on one).
        let threads = source.info.width * source.info.height >= Self.threadedPixels ? availableProcessors : 1
        decoder = try AVIFDecoder(data: source.data, limits: source.limits, threads: threads)
    }

    /// Least pixels a frame for the AV1 decoder to run on every processor.
    static let threadedPixels = 1 << 20

    func nextFrame() throws(ImgToolError) -> Frame? {
        if let failure { throw failure }
        guard index < source.info.frames.count else { return nil }
        do throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before AVIF frame \(index)") }
            let stored = try decoder.nextImage(depth: depth, index: index)
            let expected = source.info.storedSize
            guard stored.width == expected.width, stored.height == expected.height else {
                throw ImgToolError(
                    .corrupt,
                    "corrupt AVIF: frame \(index) is \(stored.width)x\(stored.height), not \(expected.width)x\(expected.height)"
                )
            }
            var image = source.display.apply(to: stored)
            image.metadata = ImageMetadata(
                format: .avif, bitDepth: source.info.bitDepth, colorType: source.info.colorType,
                color: source.info.color)
            defer { index += 1 }
            return Frame(info: source.info.frames[index], image: image)
        } catch {
            failure = error
            throw error
        }
    }
}
