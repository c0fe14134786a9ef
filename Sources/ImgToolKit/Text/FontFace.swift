internal import CText

/// One open font (FreeType face and HarfBuzz font, through CText): the only Swift file that calls
/// CText, so every pointer of the text step stays here.
///
/// A one-shot object used inside one task (``TextCaption`` makes, uses and drops it while it lays
/// out and rasterises a caption), never shared.
final class FontFace {
    private let handle: OpaquePointer
    /// The font as the user named it, or the file found for it.
    let name: String
    /// Whether its glyphs are colour bitmaps (Noto Color Emoji's CBDT).
    let isColor: Bool

    /// Opens face `index` of the font file in `bytes`.
    /// - Throws: ``ImgToolError`` `corrupt` naming the font, with FreeType's reason, or
    ///   `unsupportedFormat` when the libraries cannot be loaded.
    init(bytes: [UInt8], index: Int, name: String) throws(ImgToolError) {
        try Self.loadLibraries()
        var error = [CChar](repeating: 0, count: 256)
        let opened = bytes.withUnsafeBufferPointer { data in
            imgtool_text_font_open(data.baseAddress, data.count, Int32(clamping: index), &error, error.count)
        }
        guard let opened else {
            throw ImgToolError(.corrupt, "not a usable font: \(Self.string(error))", input: name)
        }
        handle = opened
        self.name = name
        isColor = imgtool_text_font_is_color(opened) != 0
    }

    deinit { imgtool_text_font_close(handle) }

    /// Loads FreeType, HarfBuzz and FriBidi (`imgtool_text_load`).
    /// - Throws: ``ImgToolError`` `unsupportedFormat` naming the missing library's package.
    static func loadLibraries() throws(ImgToolError) {
        var message: UnsafePointer<CChar>?
        guard imgtool_text_load(&message) == 1 else {
            throw ImgToolError(.unsupportedFormat, "--text cannot draw: \(message.map { String(cString: $0) } ?? "")")
        }
    }

    /// Sets the size in pixels per em (`imgtool_text_font_set_size`).
    func setSize(_ pixels: Double) throws(ImgToolError) {
        var error = [CChar](repeating: 0, count: 256)
        guard imgtool_text_font_set_size(handle, pixels, &error, error.count) == 1 else {
            throw ImgToolError(.corrupt, "the font cannot be sized: \(Self.string(error))", input: name)
        }
    }

    /// How much colour bitmaps are scaled to the size set.
    var bitmapScale: Double { imgtool_text_font_bitmap_scale(handle) }

    /// The family name the font declares.
    var family: String { String(cString: imgtool_text_font_family(handle)) }

    /// Whether the font has a glyph for `scalar`.
    func hasGlyph(_ scalar: Unicode.Scalar) -> Bool { imgtool_text_font_glyph(handle, scalar.value) != 0 }

    /// Ascender, descender (negative) and line gap, 1/64 px.
    var extents: (ascender: Int, descender: Int, lineGap: Int) {
        var ascender: Int32 = 0
        var descender: Int32 = 0
        var gap: Int32 = 0
        imgtool_text_font_extents(handle, &ascender, &descender, &gap)
        return (Int(ascender), Int(descender), Int(gap))
    }

    /// The box every glyph fits in, 1/64 px from the pen, y up.
    var bounds: (xMin: Int, yMin: Int, xMax: Int, yMax: Int) {
        var box: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        imgtool_text_font_bounds(handle, &box.0, &box.1, &box.2, &box.3)
        return (Int(box.0), Int(box.1), Int(box.2), Int(box.3))
    }

    /// HarfBuzz's glyphs for `text[range]` (the rest is context), in visual order.
    /// - Throws: ``ImgToolError`` `tooLarge` when HarfBuzz runs out of memory.
    func shape(_ text: [UInt32], range: Range<Int>, rightToLeft: Bool, script: UInt32) throws(ImgToolError)
        -> [ShapedGlyph]
    {
        let count = text.withUnsafeBufferPointer { codes in
            imgtool_text_font_shape(
                handle, codes.baseAddress, Int32(codes.count), Int32(range.lowerBound), Int32(range.count),
                rightToLeft ? 1 : 0, script)
        }
        guard count >= 0 else { throw ImgToolError(.tooLarge, "HarfBuzz ran out of memory shaping the text") }
        var glyphs = [imgtool_text_glyph](repeating: imgtool_text_glyph(), count: Int(count))
        glyphs.withUnsafeMutableBufferPointer { out in
            imgtool_text_font_copy_glyphs(handle, out.baseAddress, Int32(out.count))
        }
        return glyphs.map { glyph in
            ShapedGlyph(
                glyph: glyph.glyph, cluster: Int(glyph.cluster), xAdvance: Int(glyph.x_advance),
                yAdvance: Int(glyph.y_advance), xOffset: Int(glyph.x_offset), yOffset: Int(glyph.y_offset))
        }
    }

    /// Draws glyph `glyph` with its pen at `x`, `y` (1/64 px, y down, on `layer`'s pixels): its
    /// coverage, or with `strokeRadius` > 0 its stroke's, into `layer` (source-over of coverage:
    /// `a + b - a·b/255`); a colour glyph's pixels are returned instead, to be scaled by
    /// ``bitmapScale`` and drawn with their origin.
    /// - Throws: ``ImgToolError`` `corrupt` naming the font, with FreeType's reason.
    func draw(glyph: UInt32, x: Int, y: Int, strokeRadius: Int, into layer: inout CoverageLayer)
        throws(ImgToolError) -> ColorGlyph?
    {
        var bitmap = imgtool_text_bitmap()
        var error = [CChar](repeating: 0, count: 256)
        // Whole pixels, floored, and the 1/64 fraction the outline is moved by.
        let wholeX = x >> 6
        let wholeY = y >> 6
        guard
            imgtool_text_font_render(
                handle, glyph, Int32(x & 63), Int32(y & 63), Int32(clamping: strokeRadius), &bitmap, &error,
                error.count) == 1
        else {
            throw ImgToolError(.corrupt, "glyph \(glyph) cannot be drawn: \(Self.string(error))", input: name)
        }
        let width = Int(bitmap.width)
        let height = Int(bitmap.height)
        let pitch = Int(bitmap.pitch)
        guard width > 0, height > 0, let pixels = bitmap.pixels else { return nil }
        let left = wholeX + Int(bitmap.left)
        let top = wholeY - Int(bitmap.top)
        if bitmap.color == 1 {
            // B, G, R, A premultiplied: straight RGBA for the compositor.
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            for row in 0..<height {
                let source = pixels + row * pitch
                for column in 0..<width {
                    let b = source[column * 4]
                    let g = source[column * 4 + 1]
                    let r = source[column * 4 + 2]
                    let a = source[column * 4 + 3]
                    let out = (row * width + column) * 4
                    guard a > 0 else { continue }
                    func straight(_ value: UInt8) -> UInt8 {
                        UInt8(min(255, (Int(value) * 255 + Int(a) / 2) / Int(a)))
                    }
                    rgba[out] = straight(r)
                    rgba[out + 1] = straight(g)
                    rgba[out + 2] = straight(b)
                    rgba[out + 3] = a
                }
            }
            return ColorGlyph(
                image: PixelBuffer(width: width, height: height, rgba8: rgba), left: Int(bitmap.left),
                top: Int(bitmap.top))
        }
        // Only the rows and columns that land on the layer.
        let x0 = max(0, -left)
        let x1 = min(width, layer.width - left)
        let y0 = max(0, -top)
        let y1 = min(height, layer.height - top)
        guard x0 < x1, y0 < y1 else { return nil }
        let layerWidth = layer.width
        layer.samples.withUnsafeMutableBufferPointer { samples in
            for row in y0..<y1 {
                let source = pixels + row * pitch
                let target = (top + row) * layerWidth + left
                for column in x0..<x1 {
                    let a = Int(source[column])
                    guard a > 0 else { continue }
                    let b = Int(samples[target + column])
                    samples[target + column] = UInt8(a + b - (a * b + 127) / 255)
                }
            }
        }
        return nil
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// What ``FontFace`` gives ``TextLayout``: one shaped glyph, in 1/64 px.
struct ShapedGlyph: Sendable, Hashable {
    /// The glyph's index in its font.
    var glyph: UInt32
    /// The index of the first code point of its cluster in the paragraph.
    var cluster: Int
    /// The advance, right.
    var xAdvance: Int
    /// The advance, up.
    var yAdvance: Int
    /// The offset from the pen, right.
    var xOffset: Int
    /// The offset from the pen, up.
    var yOffset: Int
}

/// One byte of coverage per pixel, rows top down.
struct CoverageLayer {
    let width: Int
    let height: Int
    var samples: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        samples = [UInt8](repeating: 0, count: width * height)
    }
}

/// A colour glyph as stored (straight RGBA), and its top-left corner from the pen, y up, at the
/// bitmap's own size.
struct ColorGlyph {
    var image: PixelBuffer
    var left: Int
    var top: Int
}

/// Unicode facts from HarfBuzz and FriBidi.
enum TextUnicode {
    /// HarfBuzz's script tag for `scalar` (`imgtool_text_script`): `Zyyy` common, `Zinh` inherited.
    static func script(of scalar: UInt32) -> UInt32 { imgtool_text_script(scalar) }

    /// FriBidi's embedding level of each code point of one paragraph, and the paragraph's level.
    /// - Throws: ``ImgToolError`` `tooLarge` when FriBidi fails (out of memory).
    static func bidiLevels(_ text: [UInt32]) throws(ImgToolError) -> (levels: [UInt8], paragraph: UInt8) {
        var levels = [UInt8](repeating: 0, count: text.count)
        let paragraph = text.withUnsafeBufferPointer { codes in
            levels.withUnsafeMutableBufferPointer { out in
                imgtool_text_bidi_levels(codes.baseAddress, Int32(codes.count), out.baseAddress)
            }
        }
        guard paragraph >= 0 else { throw ImgToolError(.tooLarge, "FriBidi failed on a paragraph of the text") }
        return (levels, UInt8(paragraph))
    }

    /// Whether libfontconfig is installed (`imgtool_text_fontconfig_load`).
    static var hasFontconfig: Bool { imgtool_text_fontconfig_load() == 1 }

    /// The file and face of the installed font of family `family` (fontconfig), `nil` when none is
    /// installed or fontconfig is not.
    static func fontconfigFamily(_ family: String) -> (path: String, index: Int)? {
        var path = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        guard imgtool_text_fontconfig_family(family, &path, path.count, &index) == 1 else { return nil }
        return (String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), Int(index))
    }

    /// The file and face of an installed font that has `scalar` (fontconfig), preferring colour
    /// fonts when `color`; `nil` when none has it or fontconfig is not installed.
    static func fontconfigCovering(_ scalar: UInt32, color: Bool) -> (path: String, index: Int)? {
        var path = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        guard imgtool_text_fontconfig_covering(scalar, color ? 1 : 0, &path, path.count, &index) == 1 else {
            return nil
        }
        return (String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), Int(index))
    }
}
