/// GIF87a and GIF89a, read through giflib record by record (frames decoded on demand).
public struct GIFCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/gif``.
    public var format: ImageFormat { .gif }
    /// "Graphics Interchange Format".
    public var displayName: String { "Graphics Interchange Format" }
    /// `gif`.
    public var extensions: [String] { ["gif"] }
    /// Reads stills and animations.
    public var capabilities: CodecCapabilities { [.read, .readAnimation] }

    /// `GIF87a` or `GIF89a`.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
    }

    /// Parses the records (no pixels).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try GIFSource(data: data, limits: limits)
    }
}
