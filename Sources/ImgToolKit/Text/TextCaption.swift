/// A caption rasterised once: the text laid out (``TextLayout``), its glyphs' coverage drawn by
/// FreeType into a stroke layer and a fill layer, colour glyphs scaled to the size, and the three
/// composited (stroke colour, then fill colour, then colour glyphs, each source-over) into an
/// RGBA image cut to its ink: the box of the pixels that are not transparent.
///
/// This is synchronous CPU work with no isolation; the text step runs it once, when it is applied.
struct TextCaption {
    /// The ink, straight 8-bit RGBA; empty when the text draws nothing.
    let image: PixelBuffer

    /// The most code points a caption may have.
    static let maxScalars = 10_000
    /// The largest font size, in pixels.
    static let maxFontSize = 2_000.0
    /// The most pixels a caption's drawing area may have whatever the limits (32 Mi: its layers
    /// then take at most about 200 MB).
    static let maxCaptionPixels = 1 << 25

    /// Lays out and draws `text`.
    /// - Throws: ``ImgToolError`` `invalidArgument` (a usage error) for a font that does not exist,
    ///   a character no font has, or a caption larger than `limits.maxPixels`; `corrupt` naming a
    ///   damaged font.
    init(_ text: TextOperation, limits: DecodingLimits) throws(ImgToolError) {
        try text.validate()
        let fonts = try FontSet(font: text.font, size: text.fontSize)
        let layout = try TextLayout(
            text.text, fonts: fonts, maxWidth: text.width, alignment: text.alignment)
        let stroke = Int((text.strokeWidth * 64).rounded())
        // The box every glyph can reach: each glyph's pen plus its font's box, the stroke around.
        var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        let bounds = fonts.faces.map(\.bounds)
        for glyph in layout.glyphs {
            let font = bounds[glyph.face]
            let glyphBox = (
                glyph.x + font.xMin - stroke - 128, glyph.y - font.yMax - stroke - 128,
                glyph.x + font.xMax + stroke + 128, glyph.y - font.yMin + stroke + 128
            )
            box =
                box.map {
                    (
                        min($0.minX, glyphBox.0), min($0.minY, glyphBox.1), max($0.maxX, glyphBox.2),
                        max($0.maxY, glyphBox.3)
                    )
                }
                ?? glyphBox
        }
        guard let box else {
            image = PixelBuffer(width: 0, height: 0)
            return
        }
        let originX = box.minX >> 6
        let originY = box.minY >> 6
        let width = (box.maxX >> 6) - originX + 1
        let height = (box.maxY >> 6) - originY + 1
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let allowed = min(limits.maxPixels, Self.maxCaptionPixels)
        guard !overflow, pixels <= allowed, width <= 1 << 16, height <= 1 << 16 else {
            throw ImgToolError(
                .invalidArgument,
                "--text: the caption would be \(width)x\(height) pixels, more than the \(allowed) allowed "
                    + "(a smaller --font-size, a shorter text or --width)")
        }
        var fill = CoverageLayer(width: width, height: height)
        var strokeLayer = CoverageLayer(width: stroke > 0 ? width : 0, height: stroke > 0 ? height : 0)
        var colors: PixelBuffer?
        for glyph in layout.glyphs {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while drawing the caption") }
            let face = fonts.faces[glyph.face]
            let x = glyph.x - (originX << 6)
            let y = glyph.y - (originY << 6)
            if stroke > 0, !face.isColor {
                _ = try face.draw(glyph: glyph.glyph, x: x, y: y, strokeRadius: stroke, into: &strokeLayer)
            }
            guard let color = try face.draw(glyph: glyph.glyph, x: x, y: y, strokeRadius: 0, into: &fill) else {
                continue
            }
            // A colour bitmap at its strike's size: scaled to the font size.
            let scale = face.bitmapScale
            let size = PixelSize(
                width: max(1, Int((Double(color.image.width) * scale).rounded())),
                height: max(1, Int((Double(color.image.height) * scale).rounded())))
            let scaled =
                size.width == color.image.width && size.height == color.image.height
                ? color.image : try color.image.resized(to: size, filter: .lanczos3, limits: limits)
            let left = (x >> 6) + Int((Double(color.left) * scale).rounded())
            let top = (y >> 6) - Int((Double(color.top) * scale).rounded())
            if colors == nil { colors = PixelBuffer(width: width, height: height) }
            colors?.draw(scaled, at: (left, top), blend: .over)
        }
        image = Self.composite(
            fill: fill, stroke: stroke > 0 ? strokeLayer : nil, colors: colors, color: text.color,
            strokeColor: text.strokeColor)
    }

    /// The layers as one RGBA image, cut to the pixels that are not transparent.
    private static func composite(
        fill: CoverageLayer, stroke: CoverageLayer?, colors: PixelBuffer?, color: RGBAColor, strokeColor: RGBAColor
    ) -> PixelBuffer {
        let width = fill.width
        let height = fill.height
        var samples = [UInt8](repeating: 0, count: width * height * 4)
        let colorSamples = colors?.rgba8
        var minX = width
        var minY = height
        var maxX = -1
        var maxY = -1
        for index in 0..<(width * height) {
            var pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (0, 0, 0, 0)
            if let stroke, stroke.samples[index] > 0 {
                let alpha = UInt8((Int(strokeColor.alpha) * Int(stroke.samples[index]) + 127) / 255)
                SourceOver.blend8(source: (strokeColor.red, strokeColor.green, strokeColor.blue, alpha), over: &pixel)
            }
            if fill.samples[index] > 0 {
                let alpha = UInt8((Int(color.alpha) * Int(fill.samples[index]) + 127) / 255)
                SourceOver.blend8(source: (color.red, color.green, color.blue, alpha), over: &pixel)
            }
            if let colorSamples, colorSamples[index * 4 + 3] > 0 {
                let at = index * 4
                SourceOver.blend8(
                    source: (colorSamples[at], colorSamples[at + 1], colorSamples[at + 2], colorSamples[at + 3]),
                    over: &pixel)
            }
            guard pixel.a > 0 else { continue }
            samples[index * 4] = pixel.r
            samples[index * 4 + 1] = pixel.g
            samples[index * 4 + 2] = pixel.b
            samples[index * 4 + 3] = pixel.a
            let x = index % width
            let y = index / width
            minX = min(minX, x)
            maxX = max(maxX, x)
            minY = min(minY, y)
            maxY = max(maxY, y)
        }
        let whole = PixelBuffer(width: width, height: height, rgba8: samples)
        guard maxX >= minX, maxY >= minY else { return PixelBuffer(width: 0, height: 0) }
        return whole.cropped(to: FrameRegion(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1))
    }
}
