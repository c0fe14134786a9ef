internal import CColor

/// An ICC colour profile: the bytes a file carries, and what they say about the pixels.
///
/// Made from the bytes a reader finds (PNG `iCCP`, JPEG APP2 `ICC_PROFILE`, WebP `ICCP`, GIF's
/// `ICCRGBG1012` extension); Little CMS parses them once, here, for the ``description`` and
/// ``colorSpace``. A profile Little CMS cannot read is still a value (``isUsable`` is `false`), so
/// that `info` can name it; readers warn about it and treat the image as sRGB.
public struct ColorProfile: Sendable, Hashable, Codable {
    /// The profile's colour space.
    public enum ColorSpace: String, Sendable, Hashable, Codable {
        /// Three channels: red, green, blue.
        case rgb = "RGB"
        /// One channel of grey.
        case gray = "GRAY"
        /// Four inks: cyan, magenta, yellow, black.
        case cmyk = "CMYK"
        /// Anything else (Lab, XYZ, multi-ink), or a profile that cannot be read.
        case other
    }

    /// The serialised profile, exactly as found.
    public let data: [UInt8]
    /// The English description (`desc` tag): "Display P3", "Adobe RGB (1998)"; `""` when the
    /// profile has none or cannot be read.
    public let description: String
    /// The data colour space the header declares.
    public let colorSpace: ColorSpace
    /// Whether Little CMS accepts the profile; `false` for a damaged or truncated one.
    public let isUsable: Bool
    /// Why the profile cannot be used, when it cannot.
    public let problem: String?
    /// Whether the profile is sRGB in all but its bytes (matrix/shaper with sRGB's colorants and
    /// curves, as most embedded "sRGB IEC61966-2.1" profiles are): conversions treat it as sRGB
    /// and skip the work, while writers still carry the bytes on.
    public let isSRGB: Bool

    /// Parses `data` with Little CMS. Never fails: an unreadable profile has
    /// ``isUsable`` `false` and a ``problem``.
    public init(data: [UInt8]) {
        self.data = data
        var info = imgtool_icc_info()
        var error = [CChar](repeating: 0, count: 128)
        let accepted = data.withUnsafeBufferPointer { bytes in
            imgtool_icc_inspect(bytes.baseAddress, bytes.count, &info, &error, error.count)
        }
        isUsable = accepted != 0
        isSRGB = accepted != 0 && info.is_srgb != 0
        problem = accepted != 0 ? nil : String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        description = accepted != 0 ? Self.text(of: info.description) : ""
        colorSpace =
            switch info.space {
            case IMGTOOL_ICC_SPACE_RGB: .rgb
            case IMGTOOL_ICC_SPACE_GRAY: .gray
            case IMGTOOL_ICC_SPACE_CMYK: .cmyk
            default: .other
            }
    }

    /// The sRGB profile (IEC 61966-2-1), as Little CMS builds it, described "sRGB IEC61966-2.1".
    public static let sRGB: ColorProfile = {
        var length = 0
        guard let bytes = imgtool_icc_make_srgb(&length) else { preconditionFailure("Little CMS cannot build sRGB") }
        defer { imgtool_icc_free(bytes) }
        return ColorProfile(data: Array(UnsafeBufferPointer(start: bytes, count: length)))
    }()

    /// An RGB profile from a white point and primaries (CIE xy) and a pure power transfer
    /// (`gamma`: decoded = encoded ^ gamma), or the sRGB curve when `gamma` is `nil`: what a PNG's
    /// `cHRM` and `gAMA` chunks describe.
    public static func rgb(
        white: (Double, Double), red: (Double, Double), green: (Double, Double), blue: (Double, Double),
        gamma: Double?, description: String
    ) -> ColorProfile? {
        let w = [white.0, white.1], r = [red.0, red.1], g = [green.0, green.1], b = [blue.0, blue.1]
        var length = 0
        guard let bytes = imgtool_icc_make_rgb(w, r, g, b, gamma ?? 0, description, &length) else { return nil }
        defer { imgtool_icc_free(bytes) }
        return ColorProfile(data: Array(UnsafeBufferPointer(start: bytes, count: length)))
    }

    /// The profile's transfer curves, encoded `0...1` to linear `0...1`, sampled at `count`
    /// evenly spaced points, one array per channel (R, G, B; a grey profile's curve three times);
    /// `nil` for a profile that is not matrix/shaper RGB or grey (a LUT profile has no such curves).
    func transferCurves(samples count: Int) -> [[Float]]? {
        guard isUsable, count >= 2 else { return nil }
        var out = [Float](repeating: 0, count: 3 * count)
        let ok = data.withUnsafeBufferPointer { bytes in
            imgtool_icc_sample_curves(bytes.baseAddress, bytes.count, &out, count)
        }
        guard ok != 0 else { return nil }
        return (0..<3).map { Array(out[$0 * count..<($0 + 1) * count]) }
    }

    private static func text<T>(of tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The warning a reader gives for a profile Little CMS cannot use, or `nil` for a usable one.
    var unusableWarning: String? {
        isUsable
            ? nil
            : "the ICC profile cannot be used (\(problem ?? "unreadable"), \(data.count) bytes); colours read as sRGB"
    }

    /// A one-line summary for people: "Display P3 (RGB)", or why it cannot be used.
    public var summary: String {
        guard isUsable else { return "unusable (\(problem ?? "unreadable"), \(data.count) bytes)" }
        let name = description.isEmpty ? "unnamed ICC profile" : description
        return "\(name) (\(colorSpace == .other ? "other" : colorSpace.rawValue))"
    }
}
