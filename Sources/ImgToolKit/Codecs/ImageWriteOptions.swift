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
    /// Lossy quality 1-100 (JPEG, lossy WebP). `nil` (the default): the format's own default.
    public var quality: Int?
    /// Lossless compression (WebP). `nil` (the default): lossless when the source is lossless.
    public var lossless: Bool?
    /// Progressive (JPEG) or interlaced output. Default `false`.
    public var progressive: Bool
    /// Most colours per palette, 2-256 (GIF). Default 256.
    public var colors: Int
    /// How colours that a palette cannot hold are approximated (GIF). Default ``Dither/ordered``.
    public var dither: Dither
    /// Alpha at or above this is opaque, below it transparent, for formats with one-bit
    /// transparency (GIF). Default 128.
    public var alphaThreshold: Int
    /// When set, every frame is flattened onto this colour first (formats without alpha always
    /// flatten, onto white when this is `nil`).
    public var background: RGBAColor?

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
        alphaThreshold: Int = 128, background: RGBAColor? = nil
    ) {
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
