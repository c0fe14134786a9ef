extension ImageFormat {
    /// JPEG (JFIF or EXIF), still.
    public static let jpeg = ImageFormat(rawValue: "jpeg")
}

/// JPEG, read and written through libjpeg (libjpeg-turbo); the writer is ``JPEGEncoder``.
///
/// Reading: baseline, extended, progressive and arithmetic-coded 8-bit files; greyscale, YCbCr,
/// RGB, CMYK and YCCK (Adobe's inverted CMYK); restart markers. The EXIF orientation is applied
/// unless ``DecodingOptions/autoOrient`` is off, and ``DecodingOptions/minimumSize`` lets libjpeg
/// decode at 1/2, 1/4 or 1/8 of the size. ICC profiles are reported
/// (``ColorMetadata/hasICCProfile``), not applied. Data that ends early decodes as browsers and
/// libjpeg show it, the rows (or progressive scans) that arrived and the rest grey, with
/// ``ImageInfo/isComplete`` `false` and a warning in ``ImageInfo/warnings``; data that ends
/// before the first scan is a `truncated` error. Bytes after the end-of-image marker are ignored; corrupt data that libjpeg works around
/// decodes, with its warnings in ``ImageInfo/warnings`` (markers) or ``ImageMetadata/warnings``
/// (scan data).
///
/// Writing: the first frame only, flattened onto ``ImageWriteOptions/background`` (white when
/// `nil`). Options read: ``ImageWriteOptions/quality`` (default ``JPEGEncoder/defaultQuality``),
/// ``ImageWriteOptions/chroma`` (default 4:2:0 below quality 90, 4:4:4 from 90 up),
/// ``ImageWriteOptions/progressive``, ``ImageWriteOptions/background``. The ICC profile goes in
/// up to 255 APP2 segments of 65,519 bytes (16,707,345 bytes in all): a larger profile is not
/// kept, the pixels are converted to sRGB (with a note, ``ImageOutput/notes(for:options:)``), and
/// one asked for with ``ImageWriteOptions/ProfileChoice/convert(_:)`` is refused.
public struct JPEGCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/jpeg``.
    public var format: ImageFormat { .jpeg }
    /// "JPEG".
    public var displayName: String { "JPEG" }
    /// `jpg`, `jpeg`.
    public var extensions: [String] { ["jpg", "jpeg"] }
    /// Reads and writes stills; no alpha, no animation.
    public var capabilities: CodecCapabilities { [.read, .write] }

    /// `FF D8 FF`: the start-of-image marker and the first byte of the next marker.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: [0xFF, 0xD8, 0xFF])
    }

    /// Reads the markers up to the first scan (no pixels) and checks the stored size against
    /// `limits`.
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try JPEGSource(data: data, limits: limits, options: options)
    }

    /// Writes the first frame of `source` as a JPEG.
    /// - Throws: ``ImgToolError``: a decoding error from `source`, `invalidArgument` for a quality
    ///   outside 1-100, `writeFailed`, `cancelled`.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        // A JPEG XL recompressed from a JPEG gives that JPEG back, byte for byte (its metadata
        // edited as the options say), unless the pixels, colours or quality are to change.
        if case .keep = options.profile, options.quality == nil, options.chroma == nil, options.background == nil,
            !options.progressive,
            let stored = source as? any JPEGBitstreamSource, stored.info.format != .jpeg,
            let rebuilt = try stored.jpegBitstream(),
            let jpeg = JPEGMetadataEditor(choice: options.metadata).edited(rebuilt)
        {
            try sink.append(jpeg)
            progress?(1)
            return
        }
        let color = try OutputColor(
            source, options: options, container: .icc, profileLimit: JPEGEncoder.maxProfileBytes)
        let reader = try color.source.makeFrameReader(depth: .eight)
        guard let frame = try reader.nextFrame() else {
            throw ImgToolError(.corrupt, "the image has no frame to write")
        }
        let encoder = JPEGEncoder(
            quality: options.quality, progressive: options.progressive, background: options.background ?? .white,
            chroma: options.chroma
        ).describing(color)
        try encoder.write(frame.image, into: &sink)
        progress?(1)
    }
}
