/// Options for writing an image, shared by every codec; each codec reads the ones that apply to
/// its format and ignores the rest (``CodecRegistry`` documents which format reads which).
///
/// Every option defaults to "as the input says" or to the format's documented default, so
/// `ImageWriteOptions()` writes a faithful copy.
public struct ImageWriteOptions: Sendable, Hashable {
    /// How many times an animation plays, 0 forever. `nil` (the default): as the source says.
    public var plays: Int?
    /// Sample depth (PNG). `nil` (the default): the source's.
    public var depth: SampleDepth?
    /// Compression effort: the zlib level 0-9 (PNG; `nil`, the default, chooses per frame), or
    /// libwebp's method 0-6 (WebP: 0 is the fastest and largest, 7-9 mean 6; `nil` is 4, as
    /// `cwebp`).
    public var compressionLevel: Int?
    /// Lossy quality 1-100 (JPEG, WebP, AVIF, JPEG XL). `nil` (the default): the format's own
    /// default. Given without ``lossless``, WebP, AVIF and JPEG XL write lossy
    /// (``writesLossless(source:)``).
    public var quality: Int?
    /// JPEG chroma subsampling. `nil` (the default): 4:2:0 below quality 90, 4:4:4 from 90 up
    /// (see ``JPEGEncoder/fullChromaQuality``).
    public var chroma: JPEGEncoder.ChromaSubsampling? = nil
    /// Lossless compression (WebP, AVIF, JPEG XL). `nil` (the default): lossy when a ``quality``
    /// is given, else lossless when the source is (``writesLossless(source:)``).
    public var lossless: Bool?
    /// Progressive (JPEG) or interlaced output. Default `false`.
    public var progressive: Bool
    /// Most colours per palette, 2-256 (GIF). Default 256.
    public var colors: Int
    /// Lossy GIF compression, 0-200 on gifsicle's `--lossy` scale (GIF): the LZW encoder
    /// continues a string over pixels whose colour is within an error this sets (OkLab distance
    /// ``GIFLossy/maxError(for:)``), trading exactness for size. Default 0: off, every pixel
    /// exact.
    public var lossy: Int = 0
    /// How colours that a palette cannot hold are approximated (GIF). Default ``Dither/ordered``.
    public var dither: Dither
    /// Alpha at or above this is opaque, below it transparent, for formats with one-bit
    /// transparency (GIF). Default 128.
    public var alphaThreshold: Int
    /// When set, every frame is flattened onto this colour first (formats without alpha always
    /// flatten, onto white when this is `nil`).
    public var background: RGBAColor?
    /// The colour profile of the output. Default ``ProfileChoice/keep``: the pixels as they are,
    /// with the source's profile, where the format holds one (PNG, JPEG, WebP); converted to sRGB
    /// where it cannot (GIF).
    public var profile: ProfileChoice = .keep
    /// Which EXIF and XMP metadata the output carries. Default ``MetadataChoice/none``: none
    /// (private by default: no GPS position, camera serial or date leaks from a re-encoded photo).
    public var metadata: MetadataChoice = .none

    /// What happens to the colour profile on output.
    public enum ProfileChoice: Sendable, Hashable {
        /// The pixels unchanged and the source's profile with them; converted to sRGB for a
        /// format that cannot hold a profile (GIF). No conversion cost where a profile fits.
        case keep
        /// Converted to sRGB; a PNG says so with an `sRGB` chunk, other formats carry no profile.
        case sRGB
        /// Converted to this RGB profile, which the output carries (not GIF, which holds none).
        case convert(ColorProfile)
        /// Converted to sRGB and nothing written about colour: `--strip`.
        case strip
    }

    /// Which EXIF and XMP blocks are written.
    public enum MetadataChoice: String, Sendable, Hashable {
        /// None.
        case none
        /// The source's EXIF and XMP, with the orientation set to 1 when it was applied, EXIF's
        /// thumbnail dropped, and no GPS position.
        case keep
        /// As ``keep``, with the GPS position too.
        case keepWithGPS = "keep-gps"
    }

    /// How a palette writer approximates colours it cannot hold.
    public enum Dither: String, Sendable, Hashable, CaseIterable {
        /// Nearest palette colour: flat areas stay flat, gradients band.
        case none
        /// A pattern tied to canvas position, so static areas do not flicker between frames.
        case ordered
        /// Error diffusion (Floyd-Steinberg): finest for stills, flickers in animations.
        case diffusion
    }

    /// Creates options; every parameter has the documented default.
    public init(
        plays: Int? = nil, depth: SampleDepth? = nil, compressionLevel: Int? = nil, quality: Int? = nil,
        lossless: Bool? = nil, progressive: Bool = false, colors: Int = 256, dither: Dither = .ordered,
        alphaThreshold: Int = 128, background: RGBAColor? = nil, profile: ProfileChoice = .keep,
        metadata: MetadataChoice = .none
    ) {
        self.profile = profile
        self.metadata = metadata
        self.plays = plays
        self.depth = depth
        self.compressionLevel = compressionLevel
        self.quality = quality
        self.lossless = lossless
        self.progressive = progressive
        self.colors = colors
        self.dither = dither
        self.alphaThreshold = alphaThreshold
        self.background = background
    }
}
