/// Draws ``ScaledImage``s in place with half-block cells: each cell is `▀` with the upper pixel
/// as its 24-bit foreground and the lower pixel as its background (a space with the background
/// when both are equal), and only cells that changed since the last frame are redrawn.
struct TerminalRenderer {
    /// Where the image's top-left cell goes, 1-based.
    var originColumn = 1
    var originRow = 1
    private var previous: ScaledImage?
    private var foreground: UInt32?
    private var background: UInt32?

    /// Forgets what is on screen, so the next frame is drawn whole (after a resize or a clear).
    mutating func invalidate() {
        previous = nil
        foreground = nil
        background = nil
    }

    /// Forgets the colour state (after something else wrote `ESC[0m`).
    mutating func resetColors() {
        foreground = nil
        background = nil
    }

    /// Appends the escape sequences that turn the last frame into `image` to `out`.
    /// `image.height` should be even: rows of pixels pair into rows of cells.
    /// - Returns: how many cells were redrawn.
    @discardableResult
    mutating func render(_ image: ScaledImage, into out: inout [UInt8]) -> Int {
        let sameSize = previous.map { $0.width == image.width && $0.height == image.height } ?? false
        let old = sameSize ? previous : nil
        let cellRows = (image.height + 1) / 2
        var redrawn = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            for cellRow in 0..<cellRows {
                let top = cellRow * 2 * image.width
                let bottom = cellRow * 2 + 1 < image.height ? top + image.width : -1
                var cursorValid = false
                for column in 0..<image.width {
                    let upper = pixels[top + column]
                    let lower = bottom >= 0 ? pixels[bottom + column] : 0
                    if let old {
                        let oldUpper = old.pixels[top + column]
                        let oldLower = bottom >= 0 ? old.pixels[bottom + column] : 0
                        if oldUpper == upper && oldLower == lower {
                            cursorValid = false
                            continue
                        }
                    }
                    if !cursorValid {
                        Escape.moveCursor(row: originRow + cellRow, column: originColumn + column, into: &out)
                        cursorValid = true
                    }
                    if upper == lower {
                        if background != lower {
                            Escape.color(lower, background: true, into: &out)
                            background = lower
                        }
                        out.append(0x20)
                    } else {
                        if foreground != upper {
                            Escape.color(upper, background: false, into: &out)
                            foreground = upper
                        }
                        if background != lower {
                            Escape.color(lower, background: true, into: &out)
                            background = lower
                        }
                        out.append(contentsOf: Escape.upperHalfBlock)
                    }
                    redrawn += 1
                }
            }
        }
        previous = image
        return redrawn
    }
}

/// Terminal escape sequences appended as bytes, without building strings per cell.
enum Escape {
    /// `ESC [ row ; column H`.
    /// U+2580 UPPER HALF BLOCK in UTF-8.
    static let upperHalfBlock: [UInt8] = [0xE2, 0x96, 0x80]
    /// `ESC [ 38;2;` and `ESC [ 48;2;`, kept as constants: an array literal per cell allocates.
    private static let foregroundPrefix: [UInt8] = [0x1B, 0x5B, 0x33, 0x38, 0x3B, 0x32, 0x3B]
    private static let backgroundPrefix: [UInt8] = [0x1B, 0x5B, 0x34, 0x38, 0x3B, 0x32, 0x3B]

    static func moveCursor(row: Int, column: Int, into out: inout [UInt8]) {
        out.append(0x1B)
        out.append(0x5B)
        appendDecimal(row, into: &out)
        out.append(0x3B)
        appendDecimal(column, into: &out)
        out.append(0x48)
    }

    /// `ESC [ 38;2;r;g;b m` (or 48 for the background) for a `0xRRGGBB` colour.
    static func color(_ rgb: UInt32, background: Bool, into out: inout [UInt8]) {
        out.append(contentsOf: background ? backgroundPrefix : foregroundPrefix)
        appendDecimal(Int(rgb >> 16 & 0xFF), into: &out)
        out.append(0x3B)
        appendDecimal(Int(rgb >> 8 & 0xFF), into: &out)
        out.append(0x3B)
        appendDecimal(Int(rgb & 0xFF), into: &out)
        out.append(0x6D)
    }

    /// The decimal digits of a non-negative `value`.
    static func appendDecimal(_ value: Int, into out: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, into: &out) }
        out.append(UInt8(48 + value % 10))
    }
}
