internal import CJXL

extension ImageFormat {
    /// JPEG XL: a bare codestream or an ISO BMFF container, still or animated.
    public static let jxl = ImageFormat(rawValue: "jxl")
}

/// JPEG XL, stills and animations, read and written with libjxl; a JPEG converted to JPEG XL is
/// recompressed losslessly, and such a file converted back to JPEG gives the original file.
///
/// Reading shows what a viewer shows: the coalesced frames (each blended as the file says), the
/// orientation applied, alpha straight, samples above 8 bits kept at 16, in the colour space of
/// the decoded pixels (whose ICC profile goes to ``ImageInfo/color``; none for sRGB). The `Exif`
/// and `xml ` boxes, Brotli-compressed (`brob`) or not, give ``ImageInfo/exif`` and
/// ``ImageInfo/xmp``.
/// ``ImageInfo/plays`` and ``ImageInfo/loopValue`` are the header's loop count (0 forever);
/// delays come from the frames' ticks.
///
/// Writing:
/// - A JPEG read as it is (no operation, the profile kept, no quality asked) is recompressed
///   losslessly: its DCT coefficients and the data to rebuild it byte for byte (about a fifth
///   smaller). Its metadata segments are edited first as ``ImageWriteOptions/metadata`` says
///   (none by default: no EXIF, XMP, comment or GPS position; the ICC profile and an EXIF
///   orientation stay), and the file rebuilt from the JPEG XL is that edited JPEG, byte for byte;
///   with ``ImageWriteOptions/MetadataChoice/keepWithGPS``, the original file. libjxl takes the
///   ICC profile's APP2 segments only in order: segments out of order are put in order first (the
///   rebuilt JPEG has them so), and a JPEG whose segments do not make one profile is encoded from
///   its pixels; ``ImageOutput/notes(for:options:)`` says which.
/// - Otherwise pixels are encoded. ``ImageWriteOptions/lossless`` keeps every sample (default,
///   ``ImageWriteOptions/writesLossless(source:)``: lossy when a quality is given, else lossless
///   when the source is: PNG, APNG, GIF, lossless WebP).
///   ``ImageWriteOptions/quality`` 1-100 becomes a Butteraugli distance as `cjxl` maps it: 100 is
///   0 (lossless), 30-99 `0.1 + (100 - q) x 0.09`, below 30 `6.4 + 2.5^((30 - q) / 5) / 6.25`; a
///   lossy write without a quality uses distance 1 (quality 90), `cjxl`'s default.
/// - ``ImageWriteOptions/compressionLevel`` 0-9 becomes libjxl's effort (1, 2, 3, 5, 7, 7, 8, 8,
///   9, 9; default 4: effort 7, `cjxl`'s). libjxl's thread pool has a thread per processor.
/// - 8-bit sources are written at 8 bits, deeper ones at 16; the ICC profile, else sRGB; EXIF
///   and XMP in `Exif` and `xml ` boxes; animations in milliseconds (1 ms at least a frame) with
///   the loop count.
public struct JXLCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/jxl``.
    public var format: ImageFormat { .jxl }
    /// "JPEG XL".
    public var displayName: String { "JPEG XL" }
    /// `jxl`.
    public var extensions: [String] { ["jxl"] }
    /// Reads and writes stills and animations, with alpha.
    public var capabilities: CodecCapabilities { [.read, .readAnimation, .write, .writeAnimation, .writeAlpha] }

    /// Whether libjxl could be loaded (it is loaded on first use, not at start-up).
    public var isAvailable: Bool { RuntimeLibrary.jxl.load() == nil }

    /// How libjxl is loaded, or why it cannot be.
    public var runtimeNote: String? { RuntimeLibrary.jxl.load() ?? "libjxl, loaded on first use" }

    /// A codestream (`FF 0A`) or the container's signature box.
    public func sniff(_ head: [UInt8]) -> Bool {
        head.starts(with: [0xFF, 0x0A])
            || head.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    }

    /// Parses the file (headers only).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try RuntimeLibrary.jxl.required()
        return try JXLSource(data: data, limits: limits)
    }

    /// Writes a still or an animated JPEG XL, or recompresses a JPEG losslessly, as described
    /// above.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        try RuntimeLibrary.jxl.required()
        let writer = JXLWriter(options: options, source: source.info)
        if let jpeg = try writer.recompressedJPEG(source) {
            try writer.recompress(jpeg, into: &sink, progress: progress)
            return
        }
        let color = try OutputColor(source, options: options, container: .icc)
        try writer.describing(color).encode(color.source, into: &sink, progress: progress)
    }
}

extension RuntimeLibrary {
    /// libjxl, loaded once per process on first use (see `CJXL/include/CJXL.h`).
    static let jxl = RuntimeLibrary(name: "libjxl", format: "JPEG XL", loader: imgtool_jxl_load)
}
