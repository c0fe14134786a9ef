/// GIF87a and GIF89a, read through giflib record by record (frames decoded on demand), written
/// by imgtool's own streaming writer (``write(_:into:options:progress:)``).
public struct GIFCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/gif``.
    public var format: ImageFormat { .gif }
    /// "Graphics Interchange Format".
    public var displayName: String { "Graphics Interchange Format" }
    /// `gif`.
    public var extensions: [String] { ["gif"] }
    /// Reads and writes stills and animations, with one-bit transparency.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

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

    /// Writes `source` as a GIF, exactly when every frame fits a palette.
    ///
    /// Exact when every frame has at most ``ImageWriteOptions/colors`` colours (the transparent
    /// index aside) and, after ``ImageWriteOptions/alphaThreshold`` (default 128) or flattening
    /// onto ``ImageWriteOptions/background``, one-bit alpha: the file decodes to exactly those
    /// frames, with one global colour table, or local ones for frames whose colours it lacks.
    /// Frames that do not fit are quantized in OkLab to one global palette and dithered as
    /// ``ImageWriteOptions/dither`` says (default ``ImageWriteOptions/Dither/ordered``, which does
    /// not flicker). Each frame is stored as the rectangle that changes (disposal none or
    /// background, never previous), unchanged pixels as the transparent index where that is
    /// smaller. A GIF source keeps its delays exactly (0 included); other timelines are rounded
    /// to centiseconds by running total, never 0 or 1 cs, and identical consecutive frames are
    /// merged. Plays: ``ImageWriteOptions/plays``, else the source's; 1 writes no loop extension,
    /// N the NETSCAPE2.0 loop value N - 1, forever 0; a delay past 655.35 s and plays past 65536
    /// are clamped (``AnimationLimits``). Memory: a few canvases, whatever the frame
    /// count (the source is read twice).
    /// - Throws: ``ImgToolError``: `invalidArgument` for ``ImageWriteOptions/colors`` outside
    ///   2...256, an alpha threshold outside 0...256 or a side above 65535;
    ///   decoding errors from `source`; `writeFailed`; `cancelled`.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let color = try OutputColor(source, options: options, container: .none)
        try GIFWriter(options: options).write(color.source, into: &sink, progress: progress)
    }

    /// ``write(_:into:options:progress:)`` in the calling thread, for callers outside Swift
    /// concurrency (a fuzzer's callback, a C caller): the same bytes, the same errors.
    /// - Throws: as ``write(_:into:options:progress:)``.
    public func writeSynchronously(_ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions)
        throws(ImgToolError)
    {
        let color = try OutputColor(source, options: options, container: .none)
        try GIFWriter(options: options).write(color.source, into: &sink, progress: nil)
    }
}
