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

    /// The colour type for a PNG colour type number, or `nil` for an invalid number.
    public init?(pngCode: Int) {
        guard let match = Self.allCases.first(where: { $0.pngCode == pngCode }) else { return nil }
        self = match
    }
}

/// Which colour-management data a file carries (PNG chunks, a JPEG's ICC profile). imgtool
/// reports them but applies none of them:
/// samples are delivered as stored, as Pillow and ImageMagick read them.
public struct ColorMetadata: Sendable, Hashable, Codable {
    /// The file has a `gAMA` chunk.
    public var hasGamma: Bool
    /// The file has an `sRGB` chunk.
    public var hasSRGB: Bool
    /// The file has an ICC profile (PNG: an `iCCP` chunk; JPEG: APP2 `ICC_PROFILE` segments).
    public var hasICCProfile: Bool

    /// Creates colour metadata; every flag defaults to `false`.
    public init(hasGamma: Bool = false, hasSRGB: Bool = false, hasICCProfile: Bool = false) {
        self.hasGamma = hasGamma
        self.hasSRGB = hasSRGB
        self.hasICCProfile = hasICCProfile
    }
}
