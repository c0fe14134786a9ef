extension ImageFormat {
    /// WebP, still (lossy `VP8 `, lossless `VP8L`, with or without alpha) or animated.
    public static let webp = ImageFormat(rawValue: "webp")
}

/// WebP, still and animated: read by parsing the RIFF chunks and decoding each bitstream with
/// libwebp, frames composited exactly as libwebp's `WebPAnimDecoder` composites them (the canvas
/// starts transparent, the ANIM background colour is ignored, libwebp's blend and key-frame
/// rules); written with libwebp's `WebPEncode` (stills) and `WebPAnimEncoder` (animations).
///
/// Reading decodes the next frames on the other cores while one is composited; a file cut short
/// keeps its complete frames (``ImageInfo/isComplete`` is `false`, with a warning);
/// ``ImageInfo/compression`` says lossy, lossless or mixed; ``ImageInfo/loopValue`` and
/// ``ImageInfo/plays`` are the ANIM loop count (0 forever, N plays). The EXIF orientation a
/// WebP may carry is not applied: libwebp and browsers ignore it.
///
/// Options read when writing: ``ImageWriteOptions/lossless`` (default,
/// ``ImageWriteOptions/writesLossless(source:)``: lossy when a quality is given, else lossless
/// when the source is lossless: PNG, APNG, GIF, lossless WebP; lossless output keeps every sample
/// exactly, the colour of transparent pixels included), ``ImageWriteOptions/quality`` (0-100,
/// default 75 as `cwebp`; with `lossless` set it trades time for size, as `cwebp -lossless -q`), ``ImageWriteOptions/plays`` (default:
/// as the source says, 0-65535) and ``ImageWriteOptions/background`` (flatten first when set).
/// Delays are written in whole milliseconds, rounded from the running sum so that no frame
/// drifts; a frame identical to the one before is merged into its duration by the encoder.
public struct WebPCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/webp``.
    public var format: ImageFormat { .webp }
    /// "WebP".
    public var displayName: String { "WebP" }
    /// `webp`.
    public var extensions: [String] { ["webp"] }
    /// Reads and writes stills and animations, with alpha.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// `RIFF`, four size bytes, `WEBP`.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.count >= 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
    }

    /// Parses the chunks and the frame table (no pixels).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try WebPSource(data: data, limits: limits)
    }

    /// Writes a still WebP, or an animated one when `source` has more than one frame.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let color = try OutputColor(source, options: options, container: .icc)
        try await WebPWriter(options: options, source: source.info).describing(color)
            .write(color.source, into: &sink, progress: progress)
    }

    /// The file ``write(_:into:options:progress:)`` writes, encoded on the calling thread: for
    /// callers outside a task (the fuzzers, tools). Blocks for as long as libwebp encodes.
    /// - Parameters:
    ///   - source: the image; its frames are decoded as they are encoded.
    ///   - options: as ``write(_:into:options:progress:)`` reads them. Default: a faithful copy.
    /// - Returns: the WebP file.
    /// - Throws: ``ImgToolError`` as ``write(_:into:options:progress:)``.
    public func encoded(_ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions())
        throws(ImgToolError) -> [UInt8]
    {
        var sink = ByteSink()
        let color = try OutputColor(source, options: options, container: .icc)
        try WebPWriter(options: options, source: source.info).describing(color)
            .encode(color.source, into: &sink, progress: nil)
        return sink.bytes
    }
}
