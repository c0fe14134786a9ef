extension ImageFormat {
    /// WebM and Matroska video (VP8, VP9, AV1, H.264 ...), read with FFmpeg.
    public static let webm = ImageFormat(rawValue: "webm")
}

/// WebM and Matroska video, read with libavformat and libavcodec (FFmpeg), loaded at run time
/// as for ``MP4Codec``. VP8 and VP9 alpha (a WebM track with `alpha_mode` 1) is kept: libvpx's
/// decoders read it.
///
/// Written as VP9 in WebM, with libvpx (linked) and imgtool's own muxer, whether or not FFmpeg is
/// installed. Options read when writing:
/// - ``ImageWriteOptions/quality`` 0-100 (default 60) becomes VP9's constant-quality level
///   `cq = round((100 - quality) x 63 / 100)` (libvpx's Q mode, ffmpeg's `-crf` with `-b:v 0`):
///   60 is cq 25.
/// - ``ImageWriteOptions/compressionLevel`` 0-9 (default 4) becomes libvpx's `cpu-used`
///   `9 - level`: the default is cpu-used 5, 9 the slowest and smallest.
/// - ``ImageWriteOptions/lossless`` `true` only (a video is lossy by default, whatever the
///   source): VP9 lossless, 4:4:4 with RGB kept as GBR, every colour sample kept.
/// - ``ImageWriteOptions/background``: frames flattened onto it; without it, alpha is written
///   when a frame has a translucent pixel (a second VP9 stream in BlockAdditions, alpha mode 1,
///   as Chrome and Firefox play it).
///
/// Frames are BT.709 limited-range 4:2:0, as the track's Colour element says; odd sides are
/// padded to even by repeating the last column or row; timestamps in milliseconds from the
/// delays (a variable frame rate kept; a file's delays of 10 ms or less play as 100 ms, as in
/// browsers). WebM has no play count: browsers play a video once, or forever with `loop`.
public struct WebMCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/webm``.
    public var format: ImageFormat { .webm }
    /// "WebM" (Matroska too), short so that messages and `info` spell it so rather than WEBM.
    public var displayName: String { "WebM" }
    /// `webm`, `mkv`.
    public var extensions: [String] { ["webm", "mkv"] }
    /// Reads (when FFmpeg's libraries are installed) and writes, with alpha.
    public var capabilities: CodecCapabilities { [.read, .write, .writeAnimation, .writeAlpha] }

    /// Whether libavformat and libavcodec could be loaded.
    public var isAvailable: Bool { VideoLibrary.problem == nil }

    /// FFmpeg's versions and how they are loaded, or what to install (for reading: writing needs
    /// only libvpx, which is linked).
    public var runtimeNote: String? {
        VideoLibrary.problem.map { "\($0) (to read; writing needs nothing more)" } ?? VideoLibrary.note
    }

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

    /// Writes a VP9 WebM of every frame, with the options described above.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let color = try OutputColor(source, options: options, container: .none)
        try WebMWriter(options: options).encode(color.source, into: &sink, progress: progress)
    }
}
