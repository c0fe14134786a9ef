/// The container formats imgtool decodes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// A still PNG (no `acTL` chunk).
    case png
    /// An animated PNG (the file has an `acTL` chunk).
    case apng
    /// A GIF, still or animated.
    case gif

    /// Sniffs the format from the first bytes, never from a name.
    ///
    /// An APNG is reported as ``png`` here: telling them apart needs the chunks before `IDAT`,
    /// which ``ImageSource`` reads.
    /// - Returns: the format, or `nil` when the signature is none imgtool knows.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        if bytes.starts(with: pngSignature) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        return nil
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

/// Which colour-management chunks a PNG carries. imgtool reports them but applies none of them:
/// samples are delivered as stored, as Pillow and ImageMagick read them.
public struct ColorMetadata: Sendable, Hashable, Codable {
    /// The file has a `gAMA` chunk.
    public var hasGamma: Bool
    /// The file has an `sRGB` chunk.
    public var hasSRGB: Bool
    /// The file has an `iCCP` chunk.
    public var hasICCProfile: Bool

    /// Creates colour metadata; every flag defaults to `false`.
    public init(hasGamma: Bool = false, hasSRGB: Bool = false, hasICCProfile: Bool = false) {
        self.hasGamma = hasGamma
        self.hasSRGB = hasSRGB
        self.hasICCProfile = hasICCProfile
    }
}
