/// PNG and APNG: read through libpng (APNG chunks parsed by imgtool, each frame decoded by
/// libpng), written by ``PNGEncoder`` and ``APNGWriter``.
///
/// Reading sniffs the PNG signature and tells still from animated by an `acTL` chunk before
/// the first `IDAT`. Writing stores every frame exactly in the smallest layout that fits all of
/// them (palette, grey, RGB, 16-bit only when needed); an animated source becomes an APNG, a
/// still one a PNG. Options read: ``ImageWriteOptions/plays``, ``ImageWriteOptions/depth``,
/// ``ImageWriteOptions/compressionLevel``.
public struct PNGCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/png``.
    public var format: ImageFormat { .png }
    /// "Portable Network Graphics".
    public var displayName: String { "Portable Network Graphics" }
    /// `png`.
    public var extensions: [String] { ["png"] }
    /// Reads and writes stills and animations.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// The eight-byte PNG signature.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: ImageFormat.pngSignature)
    }

    /// An APNG source when the file has an `acTL` chunk before `IDAT`, else a still one.
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        if let animated = try APNGSource(data: data, limits: limits) { return animated }
        return try StillPNGSource(data: data, limits: limits)
    }

    /// A still PNG is decoded straight from the file; an APNG is read whole.
    public func makeSource(path: String, descriptor: Int32, limits: DecodingLimits, options: DecodingOptions)
        throws(ImgToolError) -> (any FrameSource)?
    {
        guard FileBytes.isStillPNG(descriptor) else { return nil }
        return try StillPNGSource(path: path, descriptor: descriptor, limits: limits)
    }

    /// Writes a PNG, or an APNG when `source` is animated.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        // --background flattens every frame onto it first, as every writer does.
        let flattened: any FrameSource =
            options.background.map { MappedFrameSource(source, mapping: FlattenMapping(color: $0)) } ?? source
        let color = try OutputColor(flattened, options: options, container: .png)
        let encoder = try PNGEncoder(compressionLevel: options.compressionLevel).describing(color)
        try await color.source.writePNG(
            into: &sink, plays: options.plays, depth: options.depth, encoder: encoder, progress: progress)
    }
}
