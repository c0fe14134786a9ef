extension ImageFormat {
    /// AVIF: an AV1 image in an ISO BMFF (HEIF) container, still or an image sequence.
    public static let avif = ImageFormat(rawValue: "avif")
}

/// AVIF, stills and image sequences, read with libavif (dav1d decodes the AV1 data) and written
/// with it (libaom encodes; ``AVIFWriter`` says how options map).
///
/// What a browser shows: the primary image (or, for a file whose major brand is `avis`, its
/// image sequence), grids assembled and alpha attached by libavif, the clean aperture, rotation
/// and mirror applied (MIAF's order, ``AVIFDisplay``), alpha straight, 10- and 12-bit samples
/// kept at 16 bits. An EXIF orientation inside an AVIF is informational and not applied.
/// ``ImageInfo/plays`` follows the edit list (``AVIFMovie``); ``ImageInfo/loopValue`` holds the
/// same number. The `nclx` colour description (or ICC profile) goes to ``ImageInfo/color``.
public struct AVIFCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/avif``.
    public var format: ImageFormat { .avif }
    /// "AVIF".
    public var displayName: String { "AV1 Image File Format" }
    /// `avif`, `avifs`.
    public var extensions: [String] { ["avif", "avifs"] }
    /// Reads and writes stills and sequences, with alpha.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// An `ftyp` box whose major brand, or one of the compatible brands within the first bytes,
    /// is `avif` or `avis`.
    public func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let end = min(max(size, 8), head.count)
        let brands = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        return brands.contains { at in
            at + 4 <= end
                && (head[at..<at + 4].elementsEqual("avif".utf8) || head[at..<at + 4].elementsEqual("avis".utf8))
        }
    }

    /// Parses the file (no pixels).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try AVIFSource(data: data, limits: limits)
    }

    /// Writes a still AVIF, or an image sequence when `source` has more than one frame
    /// (``AVIFWriter``: quality, lossless, level, colour and metadata).
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let color = try OutputColor(source, options: options, container: .icc)
        try AVIFWriter(options: options, source: source.info).describing(color)
            .encode(color.source, into: &sink, progress: progress)
    }
}
