extension TextOperation {
    /// `--text` and the words that follow it to set its options, as `convert` and `batch` job
    /// lines take them.
    public static let words: Set<String> = [
        "--text", "--font", "--font-size", "--color", "--stroke-color", "--stroke-width", "--gravity", "--offset",
        "--width", "--align", "--opacity", "--from", "--to",
    ]

    /// Sets the option `word` (one of ``words`` but `--text`) from its value as typed.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public mutating func set(_ word: String, to value: String) throws(ImgToolError) {
        func number(_ range: ClosedRange<Double>, _ expected: String) throws(ImgToolError) -> Double {
            guard let number = Double(value), number.isFinite, range.contains(number) else {
                throw ImgToolError(.invalidArgument, "\(word) \(value): expected \(expected)")
            }
            return number
        }
        func parsedColor() throws(ImgToolError) -> RGBAColor {
            guard let color = RGBAColor(parsing: value) else {
                throw ImgToolError(
                    .invalidArgument, "\(word) \(value): expected #rgb, #rrggbb, #rrggbbaa or a colour name")
            }
            return color
        }
        func milliseconds() throws(ImgToolError) -> Duration {
            .microseconds(Int64((try number(0...1e9, "milliseconds from the start, 0 or more") * 1000).rounded()))
        }
        switch word {
        case "--font": font = value
        case "--font-size":
            fontSize = try number(1...TextCaption.maxFontSize, "a size from 1 to \(Int(TextCaption.maxFontSize)) px")
        case "--color": color = try parsedColor()
        case "--stroke-color": strokeColor = try parsedColor()
        case "--stroke-width": strokeWidth = try number(0...TextCaption.maxFontSize, "a width in pixels, 0 or more")
        case "--gravity":
            guard let gravity = Gravity(rawValue: value.lowercased()) else {
                throw ImgToolError(
                    .invalidArgument,
                    "--gravity \(value): expected one of \(Gravity.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.gravity = gravity
        case "--offset":
            let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], abs(x) <= 1 << 24, abs(y) <= 1 << 24 else {
                throw ImgToolError(.invalidArgument, "--offset \(value): expected X,Y in pixels")
            }
            offsetX = x
            offsetY = y
        case "--width":
            guard let width = Int(value), width >= 1, width <= 1 << 20 else {
                throw ImgToolError(.invalidArgument, "--width \(value): expected a width in pixels above 0")
            }
            self.width = width
        case "--align":
            guard let alignment = TextAlignment(rawValue: value.lowercased()) else {
                throw ImgToolError(.invalidArgument, "--align \(value): expected left, center or right")
            }
            self.alignment = alignment
        case "--opacity": opacity = try number(0...1, "a number from 0 to 1")
        case "--from": from = try milliseconds()
        case "--to": to = try milliseconds()
        default: throw ImgToolError(.invalidArgument, "\(word) is not an option of --text")
        }
    }
}
