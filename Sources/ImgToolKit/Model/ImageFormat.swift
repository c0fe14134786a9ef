/// An image container format, named as `imgtool formats` lists it (`png`, `apng`, `gif`, ...).
///
/// A struct rather than an enum so that a format is declared beside its codec (in its own folder
/// under `Codecs/`) and the rest of the library does not change when one is added. Which formats
/// can be read and written is the ``CodecRegistry``'s business.
public struct ImageFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The format's short name, lower case (`png`, `gif`).
    public let rawValue: String

    /// The format named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A still PNG (no `acTL` chunk).
    public static let png = ImageFormat(rawValue: "png")
    /// An animated PNG (the file has an `acTL` chunk).
    public static let apng = ImageFormat(rawValue: "apng")
    /// A GIF, still or animated.
    public static let gif = ImageFormat(rawValue: "gif")

    /// The short name.
    public var description: String { rawValue }

    /// Sniffs the format from the first bytes, never from a name, asking the standard registry.
    ///
    /// An APNG is reported as ``png`` here: telling them apart needs the chunks before `IDAT`,
    /// which ``ImageSource`` reads.
    /// - Returns: the format, or `nil` when the signature is none imgtool knows.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        CodecRegistry.standard.codec(sniffing: Array(bytes.prefix(CodecRegistry.sniffLength)))?.format
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}

/// A PNG colour type, or how a GIF stores colour (always ``palette``).
public enum ColorType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Greyscale (PNG colour type 0).
    case gray
    /// RGB (PNG colour type 2).
    case rgb
    /// Indexed colour (PNG colour type 3; every GIF).
    case palette
    /// Greyscale with alpha (PNG colour type 4).
    case grayAlpha = "gray-alpha"
    /// RGB with alpha (PNG colour type 6).
    case rgba

    /// The PNG colour type number, as in IHDR.
    public var pngCode: Int {
        switch self {
        case .gray: 0
        case .rgb: 2
        case .palette: 3
        case .grayAlpha: 4
        case .rgba: 6
        }
    }

    /// Grey or RGB, with alpha or not (never ``palette``).
    init(isGray: Bool, hasAlpha: Bool) {
        self = isGray ? (hasAlpha ? .grayAlpha : .gray) : (hasAlpha ? .rgba : .rgb)
    }

    /// The colour type for a PNG colour type number, or `nil` for an invalid number.
    public init?(pngCode: Int) {
        guard let match = Self.allCases.first(where: { $0.pngCode == pngCode }) else { return nil }
        self = match
    }
}

/// How a file describes the colours of its pixels: an ICC profile, PNG's `sRGB`, `gAMA`, `cHRM` and
/// `cICP` chunks. Decoders deliver samples as stored (no transform: what the conformance corpus
/// records); ``effectiveProfile`` says what those samples mean, and writers carry it to the output
/// or convert to what the output can hold (see the Colour article).
public struct ColorMetadata: Sendable, Hashable, Codable {
    /// The file has a `gAMA` chunk.
    public var hasGamma: Bool
    /// The file has an `sRGB` chunk.
    public var hasSRGB: Bool
    /// The file has an ICC profile (PNG: an `iCCP` chunk; JPEG: APP2 `ICC_PROFILE` segments;
    /// WebP: an `ICCP` chunk; GIF: an `ICCRGBG1012` application extension), usable or not.
    public var hasICCProfile: Bool
    /// The ICC profile the file carries, when it could be read whole (``ColorProfile/isUsable``
    /// tells whether Little CMS accepts it).
    public var profile: ColorProfile?
    /// The `gAMA` value: the encoding exponent (0.45455 for a 2.2 display), or `nil`.
    public var gamma: Double?
    /// The `cHRM` white point and primaries (CIE x, y), or `nil`.
    public var chromaticities: Chromaticities?
    /// The `sRGB` chunk's rendering intent (0-3), or `nil`.
    public var srgbIntent: Int?
    /// The `cICP` chunk's code points (ITU-T H.273), or `nil`.
    public var cicp: CICP?

    /// A white point and three primaries, in CIE xy.
    public struct Chromaticities: Sendable, Hashable, Codable {
        /// White point x, y.
        public var white: [Double]
        /// Red x, y.
        public var red: [Double]
        /// Green x, y.
        public var green: [Double]
        /// Blue x, y.
        public var blue: [Double]

        /// Creates chromaticities from four (x, y) pairs.
        public init(white: [Double], red: [Double], green: [Double], blue: [Double]) {
            self.white = white
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// sRGB's (ITU-R BT.709 primaries, D65).
        public static let sRGB = Chromaticities(
            white: [0.3127, 0.3290], red: [0.64, 0.33], green: [0.30, 0.60], blue: [0.15, 0.06])
        /// Display P3's (DCI-P3 primaries, D65).
        public static let displayP3 = Chromaticities(
            white: [0.3127, 0.3290], red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060])
        /// ITU-R BT.2020's (D65).
        public static let bt2020 = Chromaticities(
            white: [0.3127, 0.3290], red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046])
    }

    /// Coding-independent code points (ITU-T H.273), as PNG's `cICP` chunk and AVIF's `nclx` carry them.
    public struct CICP: Sendable, Hashable, Codable {
        /// Colour primaries (1 BT.709/sRGB, 9 BT.2020, 12 Display P3).
        public var primaries: Int
        /// Transfer characteristics (13 sRGB, 8 linear, 16 PQ, 18 HLG).
        public var transfer: Int
        /// Matrix coefficients (0 for RGB).
        public var matrix: Int
        /// Whether samples use the full range.
        public var fullRange: Bool

        /// Creates code points.
        public init(primaries: Int, transfer: Int, matrix: Int = 0, fullRange: Bool = true) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
            self.fullRange = fullRange
        }
    }

    /// Creates colour metadata; nothing is present by default.
    public init(
        hasGamma: Bool = false, hasSRGB: Bool = false, hasICCProfile: Bool = false, profile: ColorProfile? = nil,
        gamma: Double? = nil, chromaticities: Chromaticities? = nil, srgbIntent: Int? = nil, cicp: CICP? = nil
    ) {
        self.hasGamma = hasGamma || gamma != nil
        self.hasSRGB = hasSRGB || srgbIntent != nil
        self.hasICCProfile = hasICCProfile || profile != nil
        self.profile = profile
        self.gamma = gamma
        self.chromaticities = chromaticities
        self.srgbIntent = srgbIntent
        self.cicp = cicp
    }

    /// Whether the file says anything at all about colour.
    public var isEmpty: Bool {
        !hasGamma && !hasSRGB && !hasICCProfile && chromaticities == nil && cicp == nil
    }
}
