/// `--text "STRING"` and its options: a caption drawn over every frame (or, with ``from`` and
/// ``to``, over the frames shown in that interval), placed as an overlay is.
///
/// The text is shaped by HarfBuzz (ligatures, kerning, joined Arabic, Indic scripts), reordered
/// for right-to-left scripts by FriBidi, drawn by FreeType (antialiased; a stroke by FT_Stroker;
/// colour emoji from Noto Color Emoji), with a per-character fallback to other fonts (DejaVu
/// Sans, the Noto fonts, Droid Sans Fallback for CJK, then any installed font fontconfig finds
/// for the character). It is rasterised once, when the step is applied, into an image of its ink,
/// which is then composited onto each frame as it is read (exact straight-alpha source-over,
/// faded by ``opacity``), as ``OverlayOperation`` draws a still. Colours are sRGB, converted into
/// the image's colour space.
public struct TextOperation: FrameOperation, Hashable, Codable {
    /// The caption. Line feeds start new lines.
    public var text: String
    /// A font file, or a family name found through fontconfig; `nil` for DejaVu Sans.
    public var font: String?
    /// Pixels per em. Default 32; at most 2,000.
    public var fontSize: Double
    /// The fill colour. Default white.
    public var color: RGBAColor
    /// The stroke's colour. Default black.
    public var strokeColor: RGBAColor
    /// How far the stroke reaches outside each glyph's outline, in pixels (it is drawn that far
    /// either side of the outline, under the fill); 0, the default, draws none.
    public var strokeWidth: Double
    /// Where the ink box goes. Default centre.
    public var gravity: Gravity
    /// Pixels from the gravity's position, right.
    public var offsetX: Int
    /// Pixels from the gravity's position, down.
    public var offsetY: Int
    /// The width lines are broken at (at spaces, and between CJK characters), in pixels; `nil`
    /// breaks only at line feeds.
    public var width: Int?
    /// Where each line goes within the widest. Default centre.
    public var alignment: TextAlignment
    /// Opacity, 0 to 1.
    public var opacity: Double
    /// The start of the interval the caption shows in, from the start of the animation: a frame
    /// gets the caption when the time it is first shown (the sum of the delays before it, read as
    /// players show them: ``DelayPolicy/browser``) is in `[from, to)`. `nil`: from the start.
    public var from: Duration?
    /// The end of that interval (not included); `nil`: to the end.
    public var to: Duration?

    /// A caption of `text` with the defaults: DejaVu Sans, 32 px, white, centred, no stroke.
    public init(
        text: String, font: String? = nil, fontSize: Double = 32, color: RGBAColor = .white,
        strokeColor: RGBAColor = .black, strokeWidth: Double = 0, gravity: Gravity = .center, offsetX: Int = 0,
        offsetY: Int = 0, width: Int? = nil, alignment: TextAlignment = .center, opacity: Double = 1,
        from: Duration? = nil, to: Duration? = nil
    ) {
        self.text = text
        self.font = font
        self.fontSize = fontSize
        self.color = color
        self.strokeColor = strokeColor
        self.strokeWidth = strokeWidth
        self.gravity = gravity
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.width = width
        self.alignment = alignment
        self.opacity = opacity
        self.from = from
        self.to = to
    }

    /// Checks every value against its range.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value: a text of more
    ///   than 10,000 code points, a size outside 1-2,000 px, a stroke wider than the size, a width
    ///   below 1, an opacity outside 0-1, an interval that ends before it starts.
    public func validate() throws(ImgToolError) {
        let count = text.unicodeScalars.count
        guard count <= TextCaption.maxScalars else {
            throw ImgToolError(
                .invalidArgument,
                "--text: \(count) characters, more than the \(TextCaption.maxScalars) a caption may have")
        }
        guard fontSize >= 1, fontSize <= TextCaption.maxFontSize else {
            throw ImgToolError(
                .invalidArgument, "--font-size \(fontSize.formatted): expected 1 to \(Int(TextCaption.maxFontSize)) px")
        }
        guard strokeWidth >= 0, strokeWidth <= fontSize else {
            throw ImgToolError(
                .invalidArgument,
                "--stroke-width \(strokeWidth.formatted): expected 0 to the font size (\(fontSize.formatted) px)")
        }
        if let width, width < 1 {
            throw ImgToolError(.invalidArgument, "--width \(width): expected a width in pixels above 0")
        }
        guard (0...1).contains(opacity) else {
            throw ImgToolError(.invalidArgument, "--opacity \(opacity.formatted): expected a number from 0 to 1")
        }
        if let from, let to, to <= from {
            throw ImgToolError(
                .invalidArgument,
                "--to \(to.milliseconds.formatted): the caption's interval must end after --from \(from.milliseconds.formatted)"
            )
        }
    }

    /// The caption's ink as an image, straight 8-bit RGBA in sRGB (empty when it draws nothing).
    /// - Throws: what ``validate()`` throws; ``ImgToolError`` `invalidArgument` for a font that is
    ///   neither a file nor an installed family, a character no font has, or a caption of more
    ///   pixels than `limits` allow; `corrupt` naming a damaged font file.
    public func rasterized(limits: DecodingLimits = .default) throws(ImgToolError) -> PixelBuffer {
        try TextCaption(self, limits: limits).image
    }

    /// The indices of the frames of `info` that get the caption.
    public func captionedFrames(of info: ImageInfo) -> Set<Int> {
        var captioned: Set<Int> = []
        var start = Duration.zero
        for frame in info.frames {
            if start >= (from ?? .zero), to.map({ start < $0 }) ?? true { captioned.insert(frame.index) }
            start += DelayPolicy.browser.effectiveDelay(frame.delay, format: info.format)
        }
        return captioned
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``): the caption is
    /// rasterised here, once.
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        var caption = try rasterized(limits: context.limits)
        let profile = source.info.color.effectiveProfile
        if caption.width > 0 { caption = try caption.convertingColors(from: nil, to: profile) }
        let placement = try OverlayPlacement(gravity: gravity, offsetX: offsetX, offsetY: offsetY, opacity: opacity)
        let frames = captionedFrames(of: source.info)
        guard caption.width > 0, !frames.isEmpty else { return source }
        return MappedFrameSource(source, mapping: Mapping(caption: caption, placement: placement, frames: frames))
    }

    struct Mapping: FrameMapping {
        let caption: PixelBuffer
        let placement: OverlayPlacement
        let frames: Set<Int>

        var keepsOpacity: Bool { true }
        func outputSize(for input: PixelSize) -> PixelSize { input }

        func map(_ image: PixelBuffer, index: Int) -> PixelBuffer {
            guard frames.contains(index) else { return image }
            return OverlayCompositor.composite([caption], onto: image, placement: placement)
        }

        func map(_ image: PixelBuffer) -> PixelBuffer { map(image, index: 0) }
    }
}

extension Double {
    /// The number without a fraction when it has none (`32`, `1.5`).
    fileprivate var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
