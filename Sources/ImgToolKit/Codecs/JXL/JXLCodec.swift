internal import CJXL

extension ImageFormat {
    /// JPEG XL: a bare codestream or an ISO BMFF container, still or animated.
    public static let jxl = ImageFormat(rawValue: "jxl")
}

/// JPEG XL, stills and animations, read and written with libjxl; a JPEG converted to JPEG XL is
/// recompressed losslessly, and such a file converted back to JPEG gives the original file.
///
/// What a viewer shows: the coalesced frames (each blended as the file says), the orientation
/// applied, alpha straight, samples above 8 bits kept at 16, in the colour space of the decoded
/// pixels (whose ICC profile goes to ``ImageInfo/color``). ``ImageInfo/plays`` and
/// ``ImageInfo/loopValue`` are the header's loop count (0 forever); delays come from the frames'
/// ticks.
public struct JXLCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/jxl``.
    public var format: ImageFormat { .jxl }
    /// "JPEG XL".
    public var displayName: String { "JPEG XL" }
    /// `jxl`.
    public var extensions: [String] { ["jxl"] }
    /// Reads and writes stills and animations, with alpha.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// A codestream (`FF 0A`) or the container's signature box.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: [0xFF, 0x0A])
            || head.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    }

    /// Parses the file (headers only).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try JXLSource(data: data, limits: limits)
    }

    /// Writes a still or an animated JPEG XL, or recompresses a JPEG losslessly
    /// (``JXLWriter``: lossless, quality, level, colour and metadata).
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let writer = JXLWriter(options: options, source: source.info)
        if writer.transcodes(source) {
            try writer.encode(source, into: &sink, progress: progress)
            return
        }
        let color = try OutputColor(source, options: options, container: .icc)
        try writer.describing(color).encode(color.source, into: &sink, progress: progress)
    }
}
