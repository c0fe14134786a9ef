extension ImageFormat {
    /// WebM and Matroska video (VP8, VP9, AV1, H.264 ...), read with FFmpeg.
    public static let webm = ImageFormat(rawValue: "webm")
}

/// WebM and Matroska video, read with libavformat and libavcodec (FFmpeg), loaded at run time
/// as for ``MP4Codec``. VP8 and VP9 alpha (a WebM track with `alpha_mode` 1) is kept: libvpx's
/// decoders read it.
public struct WebMCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/webm``.
    public var format: ImageFormat { .webm }
    /// "WebM" (Matroska too), short so that messages and `info` spell it so rather than WEBM.
    public var displayName: String { "WebM" }
    /// `webm`, `mkv`.
    public var extensions: [String] { ["webm", "mkv"] }
    /// Reads (when FFmpeg's libraries are installed).
    public var capabilities: CodecCapabilities { [.read] }

    /// Whether libavformat and libavcodec could be loaded.
    public var isAvailable: Bool { VideoLibrary.problem == nil }

    /// FFmpeg's versions and how they are loaded, or what to install.
    public var runtimeNote: String? { VideoLibrary.note }

    /// An EBML header (`1A 45 DF A3`), which starts every Matroska and WebM file.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: [0x1A, 0x45, 0xDF, 0xA3])
    }

    /// Lists the frames with libavformat (nothing decoded).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try VideoSource(data: data, limits: limits, format: .webm, name: "WebM")
    }
}
