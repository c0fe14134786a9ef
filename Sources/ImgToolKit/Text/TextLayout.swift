/// Lays out a caption's text once: paragraphs at line feeds, each split into runs of one
/// direction (FriBidi's embedding levels), one script and one font (``FontSet``'s choice per
/// character), each run shaped by HarfBuzz with the whole paragraph as context; lines broken at
/// spaces (and between CJK characters) where the shaped advances pass the width; each line's runs
/// put in visual order (Unicode's rule L2), aligned, and stacked at the first font's line height.
///
/// Positions are in 1/64 px, x right and y down from the block's top-left corner.
struct TextLayout {
    /// One glyph to draw: which font, which glyph, its pen position.
    struct Placed {
        var face: Int
        var glyph: UInt32
        var x: Int
        var y: Int
    }

    /// The glyphs, in drawing order.
    private(set) var glyphs: [Placed] = []
    /// The widest line's advance, 1/64 px.
    private(set) var width = 0
    /// The lines' height in all, 1/64 px.
    private(set) var height = 0

    /// Lays out `text`.
    /// - Parameters:
    ///   - text: the caption; line feeds start new paragraphs.
    ///   - fonts: the fonts, at the size to draw.
    ///   - maxWidth: the width lines are broken at, in pixels; `nil` breaks only at line feeds.
    ///   - alignment: where each line goes within the widest.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the first character no font has.
    init(_ text: String, fonts: FontSet, maxWidth: Int?, alignment: TextAlignment) throws(ImgToolError) {
        let primary = fonts.faces[0].extents
        let lineHeight = max(64, primary.ascender - primary.descender + primary.lineGap)
        var lines: [[Placed]] = []
        var lineWidths: [Int] = []
        let paragraphs = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for paragraph in paragraphs {
            let scalars = paragraph.filter { $0 != "\r" }
            let laid = try Self.layParagraph(Array(scalars), fonts: fonts, maxWidth: maxWidth.map { $0 * 64 })
            for line in laid {
                lines.append(line.glyphs)
                lineWidths.append(line.width)
            }
        }
        width = lineWidths.max() ?? 0
        height = lines.count * lineHeight
        for (number, line) in lines.enumerated() {
            let spare = width - lineWidths[number]
            let shift =
                switch alignment {
                case .left: 0
                case .center: spare / 2
                case .right: spare
                }
            let baseline = primary.ascender + number * lineHeight
            glyphs += line.map { Placed(face: $0.face, glyph: $0.glyph, x: $0.x + shift, y: $0.y + baseline) }
        }
    }

    /// A run: code points of one level, script and font, and its glyphs (visual order).
    private struct Run {
        var range: Range<Int>
        var level: UInt8
        var face: Int
        var glyphs: [ShapedGlyph] = []
    }

    /// One paragraph's lines: glyphs positioned from the line's left end and baseline.
    private static func layParagraph(_ scalars: [Unicode.Scalar], fonts: FontSet, maxWidth: Int?) throws(ImgToolError)
        -> [(glyphs: [Placed], width: Int)]
    {
        guard !scalars.isEmpty else { return [([], 0)] }
        let codes = scalars.map(\.value)
        let (levels, _) = try TextUnicode.bidiLevels(codes)
        let faces = try chooseFonts(scalars, fonts: fonts)
        let scripts = resolvedScripts(codes)
        // Runs of one level, font and script.
        var runs: [Run] = []
        var start = 0
        for index in 1...codes.count {
            if index == codes.count || levels[index] != levels[start] || faces[index] != faces[start]
                || scripts[index] != scripts[start]
            {
                runs.append(Run(range: start..<index, level: levels[start], face: faces[start]))
                start = index
            }
        }
        // Shaped with the whole paragraph as context; each code point's advance is the sum of its
        // cluster's glyphs', for breaking lines.
        var advances = [Int](repeating: 0, count: codes.count)
        for index in runs.indices {
            let run = runs[index]
            runs[index].glyphs = try fonts.faces[run.face].shape(
                codes, range: run.range, rightToLeft: run.level & 1 == 1, script: scripts[run.range.lowerBound])
            for glyph in runs[index].glyphs where advances.indices.contains(glyph.cluster) {
                advances[glyph.cluster] += glyph.xAdvance
            }
        }
        let lines = breakLines(scalars, advances: advances, scripts: scripts, maxWidth: maxWidth)
        return lines.map { line in placeLine(line, runs: runs) }
    }

    /// The font of each code point: marks, joiners and selectors stay with the character before
    /// them, and common characters (spaces, punctuation, digits) too when its font has them.
    private static func chooseFonts(_ scalars: [Unicode.Scalar], fonts: FontSet) throws(ImgToolError) -> [Int] {
        var faces = [Int](repeating: 0, count: scalars.count)
        for (index, scalar) in scalars.enumerated() {
            let properties = scalar.properties
            let previous = index > 0 ? faces[index - 1] : nil
            let attaches: Bool =
                switch properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .spacingMark, .format: true
                default: properties.isEmojiModifier || properties.isVariationSelector
                }
            if let previous, attaches, fonts.faces[previous].hasGlyph(scalar) || properties.isDefaultIgnorableCodePoint
            {
                faces[index] = previous
                continue
            }
            let common = TextUnicode.script(of: scalar.value) == TextLayout.commonScript
            if let previous, common, !properties.isEmojiPresentation, !fonts.faces[previous].isColor,
                fonts.faces[previous].hasGlyph(scalar)
            {
                faces[index] = previous
                continue
            }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            let color = properties.isEmojiPresentation || (properties.isEmoji && next == "\u{FE0F}")
            if let found = fonts.face(for: scalar, color: color) {
                faces[index] = found
            } else if properties.isDefaultIgnorableCodePoint || properties.generalCategory == .control {
                // Drawn as nothing by HarfBuzz in any font.
                faces[index] = previous ?? 0
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                throw ImgToolError(
                    .invalidArgument,
                    "--text: no font can draw U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) "
                        + "\"\(scalar.escaped(asASCII: false))\" (\(fonts.faces[0].name) and its fallbacks have no glyph for it)"
                )
            }
        }
        return faces
    }

    /// HarfBuzz's `Zyyy` (common), `Zinh` (inherited) and `Zzzz` (unknown) script tags.
    static let commonScript: UInt32 = 0x5A79_7979
    static let inheritedScript: UInt32 = 0x5A69_6E68
    static let unknownScript: UInt32 = 0x5A7A_7A7A

    /// Each code point's script, common and inherited ones taking the script before them (or
    /// the first after them at the start).
    private static func resolvedScripts(_ codes: [UInt32]) -> [UInt32] {
        var scripts = codes.map { TextUnicode.script(of: $0) }
        func isReal(_ script: UInt32) -> Bool {
            script != commonScript && script != inheritedScript && script != unknownScript
        }
        let first = scripts.first(where: isReal) ?? 0
        var current = first
        for index in scripts.indices {
            if isReal(scripts[index]) { current = scripts[index] } else { scripts[index] = current }
        }
        return scripts
    }

    /// HarfBuzz's tags of the scripts whose characters may be broken between (Han, Hiragana,
    /// Katakana).
    private static let breakableScripts: Set<UInt32> = [0x4861_6E69, 0x4869_7261, 0x4B61_6E61]

    /// The lines of one paragraph, as ranges of code points without the spaces they were broken
    /// at. Without `maxWidth`, one line.
    private static func breakLines(
        _ scalars: [Unicode.Scalar], advances: [Int], scripts: [UInt32], maxWidth: Int?
    ) -> [Range<Int>] {
        guard let maxWidth else { return [0..<scalars.count] }
        func isSpace(_ index: Int) -> Bool { scalars[index] == " " || scalars[index] == "\u{3000}" }
        var lines: [Range<Int>] = []
        var start = 0
        var width = 0
        // The last place the line may end, and where the next starts after it.
        var lastBreak: (end: Int, next: Int)?
        var index = 0
        while index < scalars.count {
            if isSpace(index) {
                // A run of spaces: the line may end before it.
                var end = index
                while end < scalars.count, isSpace(end) { end += 1 }
                if index > start { lastBreak = (index, end) }
                for space in index..<end { width += advances[space] }
                index = end
                continue
            }
            if index > start,
                breakableScripts.contains(scripts[index]) || breakableScripts.contains(scripts[index - 1]),
                !isSpace(index - 1)
            {
                lastBreak = (index, index)
            }
            width += advances[index]
            if width > maxWidth, let found = lastBreak, found.end > start {
                lines.append(start..<found.end)
                start = found.next
                width = advances[start...index].reduce(0, +)
                lastBreak = nil
            }
            index += 1
        }
        var end = scalars.count
        while end > start, isSpace(end - 1) { end -= 1 }
        lines.append(start..<end)
        return lines
    }

    /// One line's glyphs from its left end: its runs' glyphs within `line`, runs in visual order.
    private static func placeLine(_ line: Range<Int>, runs: [Run]) -> (glyphs: [Placed], width: Int) {
        var pieces: [(level: UInt8, face: Int, glyphs: [ShapedGlyph])] = []
        for run in runs where run.range.overlaps(line) {
            pieces.append((run.level, run.face, run.glyphs.filter { line.contains($0.cluster) }))
        }
        // Rule L2: from the highest level to the lowest odd one, reverse every sequence of runs
        // at that level or higher.
        if let highest = pieces.map(\.level).max(), let lowestOdd = pieces.map(\.level).filter({ $0 & 1 == 1 }).min() {
            for level in stride(from: Int(highest), through: Int(lowestOdd), by: -1) {
                var index = 0
                while index < pieces.count {
                    guard pieces[index].level >= level else {
                        index += 1
                        continue
                    }
                    var end = index
                    while end < pieces.count, pieces[end].level >= level { end += 1 }
                    pieces[index..<end].reverse()
                    index = end
                }
            }
        }
        var placed: [Placed] = []
        var pen = 0
        for piece in pieces {
            for glyph in piece.glyphs {
                placed.append(Placed(face: piece.face, glyph: glyph.glyph, x: pen + glyph.xOffset, y: -glyph.yOffset))
                pen += glyph.xAdvance
            }
        }
        return (placed, pen)
    }
}

/// Where each line of a caption goes within the widest: `--align`.
public enum TextAlignment: String, Sendable, Hashable, Codable, CaseIterable {
    /// Left ends aligned.
    case left
    /// Centred (the default).
    case center
    /// Right ends aligned.
    case right
}
