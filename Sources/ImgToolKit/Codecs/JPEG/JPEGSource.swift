/// A JPEG: one frame, decoded by ``JPEGDecoder`` when a reader asks for it.
///
/// Making the source reads the markers (size, colour space, EXIF orientation) and checks the
/// stored size against the limits; the frame is decoded turned upright when
/// ``DecodingOptions/autoOrient`` is on, and at 1/2, 1/4 or 1/8 of the stored size when
/// ``DecodingOptions/minimumSize`` allows. Data cut short decodes as libjpeg decodes it (the rows
/// or scans that arrived, the rest grey), with ``ImageInfo/isComplete`` `false` and a warning.
struct JPEGSource: RowStreamingSource, JPEGBitstreamSource {
    let data: [UInt8]
    let limits: DecodingLimits
    let header: JPEGHeader
    let orientation: ImageOrientation
    let scaleDenominator: Int
    let info: ImageInfo
    /// Which of libjpeg's warnings while decoding make the decode fail.
    let failOn: DecodingOptions.FailOn
    /// A JPEG has no alpha: every frame is opaque.
    var isOpaque: Bool { true }

    init(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError) {
        let header = try JPEGDecoder(limits: limits).header(of: data)
        try limits.checkPixels(width: header.width, height: header.height)
        if header.precision != 8 {
            throw ImgToolError(
                .unsupportedFormat, "unsupported JPEG: \(header.precision)-bit samples (imgtool decodes 8-bit JPEGs)")
        }
        let stored = PixelSize(width: header.width, height: header.height)
        let orientation =
            options.autoOrient ? header.exifOrientation.flatMap(ImageOrientation.init(rawValue:)) ?? .up : .up
        let denominator = Self.scaleDenominator(stored: stored, orientation: orientation, minimum: options.minimumSize)
        // libjpeg's scaled size: each side divided, rounded up (jdiv_round_up).
        let scaled = PixelSize(
            width: (stored.width + denominator - 1) / denominator,
            height: (stored.height + denominator - 1) / denominator)
        let shown = orientation.displayedSize(of: scaled)
        var info = ImageInfo(
            format: .jpeg, width: shown.width, height: shown.height, bitDepth: header.precision,
            colorType: header.components == 1 ? .gray : .rgb, isInterlaced: header.isProgressive,
            color: header.color,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: shown.width, height: shown.height),
                    disposal: .none, blend: .source)
            ],
            isComplete: !header.isTruncated, warnings: header.warnings)
        info.storedSize = stored
        info.exifOrientation = header.exifOrientation
        info.appliedOrientation = orientation
        info.hasEXIF = header.hasEXIF
        info.exif = header.exif
        info.xmp = header.xmp
        if let (segments, _) = JPEGSegmentLayout.headerSegments(data) {
            let extended = JPEGExtendedXMP.read(data, segments: segments, mainPacket: header.xmp)
            info.xmpExtension = extended.packet?.text
            info.xmpExtensionProblem = extended.problem
        }
        self.data = data
        self.limits = limits
        self.header = header
        self.orientation = orientation
        self.scaleDenominator = denominator
        self.info = info
        self.failOn = options.failOn
    }

    /// The largest DCT scaling (8, 4, 2, else 1) whose output is at least `minimum` (a displayed
    /// size) on both sides.
    static func scaleDenominator(stored: PixelSize, orientation: ImageOrientation, minimum: PixelSize?) -> Int {
        guard let minimum else { return 1 }
        let wanted = orientation.displayedSize(of: minimum)  // the same swap turns it back to stored axes
        for denominator in [8, 4, 2]
        where (stored.width + denominator - 1) / denominator >= wanted.width
            && (stored.height + denominator - 1) / denominator >= wanted.height
        {
            return denominator
        }
        return 1
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        OneFrameReader { [self] () throws(ImgToolError) in Frame(info: info.frames[0], image: try decode(depth: depth))
        }
    }

    /// Decodes the frame once, at 8 bits (or widened to 16 when asked).
    func decode(depth: SampleDepth?) throws(ImgToolError) -> PixelBuffer {
        let (image, warnings) = try JPEGDecoder(limits: limits).decode(
            data, scaleDenominator: scaleDenominator, orientation: orientation)
        try failOn.check(decodeWarnings: warnings) { $0 == JPEGDecoder.prematureEnd }
        guard image.width == info.width, image.height == info.height else {
            throw ImgToolError(
                .corrupt,
                "libjpeg decoded \(image.width)x\(image.height), the markers said \(info.width)x\(info.height)")
        }
        guard depth == .sixteen, case .rgba8(let samples) = image.samples else { return image }
        var wide = PixelBuffer(width: image.width, height: image.height, rgba16: samples.map { UInt16($0) * 257 })
        wide.metadata = image.metadata
        return wide
    }

    /// The stored rows are turned as the EXIF orientation says (when ``DecodingOptions/autoOrient``).
    var rowOrientation: ImageOrientation { orientation }

    /// The frame's stored rows as libjpeg makes them (see ``JPEGDecoder/stream(_:scaleDenominator:to:)``).
    func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata? {
        try JPEGDecoder(limits: limits).stream(data, scaleDenominator: scaleDenominator, to: consumer)
    }
}

extension JPEGSource {
    /// The file as it was read; `nil` for a file cut short, whose pixels (the rows that arrived,
    /// the rest grey) are written instead: libjxl cannot recompress a JPEG that ends early.
    func jpegBitstream() throws(ImgToolError) -> [UInt8]? { header.isTruncated ? nil : data }
}
