/// One image format's reader and writer: the unit the ``CodecRegistry`` lists.
///
/// A codec lives in its own folder under `Codecs/` (the sniffer, the ``FrameSource`` that reads
/// the format, the writer and its options) and is one line in ``CodecRegistry/standard``. Nothing
/// else in the library or the command line names a format: readers are chosen by the bytes
/// (``sniff(_:)``), writers by the output's extension or an explicit format name. This is
/// libvips's `foreign/` shape (a loader and a saver per format, each with an `is_a` test) and
/// Nuke's `ImageDecoderRegistry` (matchers asked in turn).
///
/// Codecs are stateless values: each call makes its own one-shot decoder or encoder.
public protocol ImageCodec: Sendable {
    /// The format, as `imgtool formats` names it.
    var format: ImageFormat { get }
    /// The format's long name for people ("Portable Network Graphics").
    var displayName: String { get }
    /// File-name extensions, lower case without the dot, the preferred one first (`jpg`, `jpeg`).
    var extensions: [String] { get }
    /// What the codec can do.
    var capabilities: CodecCapabilities { get }
    /// Whether the codec can work on this machine (a library it loads at run time is there).
    /// Default `true`.
    var isAvailable: Bool { get }
    /// What the codec loads at run time and in which state it is, for `imgtool formats`; `nil`
    /// (the default) for a codec built in.
    var runtimeNote: String? { get }

    /// Whether `head` (the first ``CodecRegistry/sniffLength`` bytes of the input, or all of a
    /// shorter one) is this format's signature. Only readers are asked.
    func sniff(_ head: [UInt8]) -> Bool

    /// Parses the structure of the whole file in `data` (headers, frame table) and checks every
    /// declared size against `limits`, decoding no pixels.
    /// - Throws: ``ImgToolError`` (`corrupt`, `truncated`, `tooLarge`, `unsupportedFormat`); the
    ///   registry adds the input's name.
    func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource

    /// Opens the file at `path` (already open as `descriptor`, positioned anywhere) without reading
    /// it whole, when the codec can decode straight from the file; `nil` to have the file read into
    /// memory and passed to ``makeSource(data:limits:options:)``. Default: `nil`.
    func makeSource(path: String, descriptor: Int32, limits: DecodingLimits, options: DecodingOptions)
        throws(ImgToolError) -> (any FrameSource)?

    /// Encodes every frame of `source` (or its first frame, for a codec without
    /// ``CodecCapabilities/writeAnimation``) into `sink`, streaming: memory stays at a few
    /// canvases whatever the number of frames.
    /// - Parameters:
    ///   - source: the image; its frames are decoded as they are written.
    ///   - sink: where the bytes go.
    ///   - options: format options; a codec ignores those that do not apply to it.
    ///   - progress: called with the number of frames written so far.
    /// - Throws: ``ImgToolError``: a decoding error from `source`, `writeFailed`, `cancelled`,
    ///   `invalidArgument` for options out of range; `unsupportedFormat` from a codec that
    ///   cannot write (the default).
    func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError)
}

extension ImageCodec {
    /// Built in: always available.
    public var isAvailable: Bool { true }

    /// Built in: nothing loaded at run time.
    public var runtimeNote: String? { nil }

    /// Decodes from memory: the file is read whole.
    public func makeSource(path: String, descriptor: Int32, limits: DecodingLimits, options: DecodingOptions)
        throws(ImgToolError) -> (any FrameSource)?
    {
        nil
    }

    /// A codec that reads only: throws `unsupportedFormat`.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        throw ImgToolError(.unsupportedFormat, "imgtool cannot write \(displayName) (\(format)) files")
    }
}

extension ImageCodec {
    /// Encodes every frame of `source` in memory, as ``write(_:into:options:progress:)`` does.
    /// - Throws: as ``write(_:into:options:progress:)``.
    public func encode(_ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions())
        async throws(ImgToolError) -> [UInt8]
    {
        var sink = ByteSink()
        try await write(source, into: &sink, options: options, progress: nil)
        return sink.bytes
    }
}
