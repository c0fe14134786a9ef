/// An 8-bit straight-alpha colour, as options such as `--background` take it.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible, Codable {
    /// Red, 0-255.
    public var red: UInt8
    /// Green, 0-255.
    public var green: UInt8
    /// Blue, 0-255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) to 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour; alpha defaults to opaque.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)

    /// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` (the `#` optional) or one of the names `white`,
    /// `black`, `red`, `green`, `blue`, `gray`, `transparent`; `nil` for anything else.
    public init?(parsing text: String) {
        let named: [String: RGBAColor] = [
            "white": .white, "black": .black, "red": RGBAColor(red: 255, green: 0, blue: 0),
            "green": RGBAColor(red: 0, green: 128, blue: 0), "blue": RGBAColor(red: 0, green: 0, blue: 255),
            "gray": RGBAColor(red: 128, green: 128, blue: 128), "grey": RGBAColor(red: 128, green: 128, blue: 128),
            "transparent": RGBAColor(red: 0, green: 0, blue: 0, alpha: 0),
        ]
        let lowered = text.lowercased()
        if let color = named[lowered] {
            self = color
            return
        }
        let hex = lowered.hasPrefix("#") ? String(lowered.dropFirst()) : lowered
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        let digits = hex.compactMap { $0.hexDigitValue }.map(UInt8.init)
        switch digits.count {
        case 3:
            self.init(red: digits[0] * 17, green: digits[1] * 17, blue: digits[2] * 17)
        case 6, 8:
            let bytes = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
            self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
        default:
            return nil
        }
    }

    /// `#rrggbb`, or `#rrggbbaa` when not opaque.
    public var description: String {
        let parts = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + parts.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
