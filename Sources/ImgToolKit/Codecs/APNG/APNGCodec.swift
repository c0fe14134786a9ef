/// APNG named as its own format, so that `-o out.apng` and `--format apng` write one.
///
/// Reading is ``PNGCodec``'s (an APNG starts with the PNG signature); this entry only writes,
/// exactly as ``PNGCodec`` does.
public struct APNGCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/apng``.
    public var format: ImageFormat { .apng }
    /// "Animated PNG".
    public var displayName: String { "Animated PNG" }
    /// `apng`.
    public var extensions: [String] { ["apng"] }
    /// Reads (through ``PNGCodec``) and writes stills and animations.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// Never: ``PNGCodec`` claims the PNG signature and tells APNG from PNG.
    public func sniff(_ head: [UInt8]) -> Bool { false }

    /// As ``PNGCodec/makeSource(data:limits:options:)``.
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try PNGCodec().makeSource(data: data, limits: limits, options: options)
    }

    /// As ``PNGCodec/write(_:into:options:progress:)``.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        try await PNGCodec().write(source, into: &sink, options: options, progress: progress)
    }
}
