/// JSON text written by hand where a whole encoder is not needed: the command line's JSON lines
/// and the sprite sheet's layout file.
public enum JSONText {
    /// `text` as a JSON string literal: the quotation mark and the backslash escaped, line feed,
    /// carriage return and tab as `\n`, `\r` and `\t`, the other control characters as `\u00XX`,
    /// and every other character as it is (the text is UTF-8; nothing else needs escaping).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
