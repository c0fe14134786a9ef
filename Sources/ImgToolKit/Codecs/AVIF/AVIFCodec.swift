internal import CAVIF

extension ImageFormat {
    /// AVIF: an AV1 image in an ISO BMFF (HEIF) container, still or an image sequence.
    public static let avif = ImageFormat(rawValue: "avif")
}

/// AVIF, stills and image sequences, read with libavif (dav1d decodes the AV1 data) and written
/// with it (libaom encodes).
///
/// Reading shows what a browser shows: the primary image (or, for a file whose major brand is
/// `avis`, its image sequence), grids assembled and alpha attached by libavif, then the clean
/// aperture cut, the rotation (`irot`, anticlockwise) and the mirror (`imir`) applied, in MIAF's
/// order; alpha straight; 10- and 12-bit samples kept at 16 bits (or rounded to 8,
/// `(v x 255 + 32767) / 65535`). An EXIF orientation inside an AVIF is informational and not
/// applied. ``ImageInfo/plays`` follows the track's edit list as libavif's later
/// `repetitionCount` does (no edit list: forever); ``ImageInfo/loopValue`` holds the same number.
/// The `nclx` colour description (or ICC profile) goes to ``ImageInfo/color``.
///
/// Options read when writing:
/// - ``ImageWriteOptions/quality`` 0-100 (default 60) becomes an AV1 quantizer as libavif 1.x maps
///   its `quality`, `q = round((100 - quality) x 63 / 100)`, used as the range `q - 1 ... q + 1`:
///   the default is `avifenc`'s own, 24-26. Alpha is lossless, as `avifenc` keeps it.
/// - ``ImageWriteOptions/lossless`` (default, ``ImageWriteOptions/writesLossless(source:)``:
///   lossy when a quality is given, else lossless when the source is: PNG, APNG, GIF, lossless
///   WebP): 4:4:4 with the identity matrix at quantizer 0, every sample kept; quality is unused.
/// - ``ImageWriteOptions/compressionLevel`` 0-9 becomes libaom's speed `10 - level` (default 4:
///   speed 6, `avifenc`'s). libaom uses every processor.
/// - 8-bit sources are written at 8 bits, deeper ones at 10 (12 when lossless). Sequences use a
///   1 ms timescale, each frame 1 ms at least; libavif 0.11 writes no edit list, so a sequence
///   plays as a player loops it (browsers: forever).
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

    /// Whether libavif could be loaded (it is loaded on first use, not at start-up).
    public var isAvailable: Bool { RuntimeLibrary.avif.load() == nil }

    /// How libavif is loaded, or why it cannot be.
    public var runtimeNote: String? { RuntimeLibrary.avif.load() ?? "libavif, loaded on first use" }

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
        try RuntimeLibrary.avif.required()
        return try AVIFSource(data: data, limits: limits)
    }

    /// Writes a still AVIF, or an image sequence when `source` has more than one frame, with the
    /// options described above, the colour profile and the metadata chosen.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        try RuntimeLibrary.avif.required()
        let color = try OutputColor(source, options: options, container: .icc)
        try AVIFWriter(options: options, source: source.info).describing(color)
            .encode(color.source, into: &sink, progress: progress)
    }
}

extension RuntimeLibrary {
    /// libavif, loaded once per process on first use (see `CAVIF/include/CAVIF.h`).
    static let avif = RuntimeLibrary(name: "libavif", format: "AVIF", loader: imgtool_avif_load)
}
