/// `--pad N` or `--pad T,R,B,L`: a border of that many pixels, filled with the background
/// (transparent when none). Exact.
public struct PadOperation: FrameOperation, Hashable, Codable {
    /// Pixels added above, right, below and left.
    public var top, right, bottom, left: Int
    /// The border's colour; `nil` transparent.
    public var color: RGBAColor?

    /// A border of these widths.
    public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBAColor? = nil) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
        self.color = color
    }

    /// Parses `N` or `T,R,B,L` (each 0 or more).
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `--pad` and the value.
    public init(parsing text: String, color: RGBAColor? = nil) throws(ImgToolError) {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard values.count == 1 || values.count == 4, values.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) <= 1 << 20 })
        else {
            throw ImgToolError(.invalidArgument, "--pad \(text): expected N or T,R,B,L (pixels, 0 or more)")
        }
        let sides = values.compactMap { $0 }
        if sides.count == 1 {
            self.init(top: sides[0], right: sides[0], bottom: sides[0], left: sides[0], color: color)
        } else {
            self.init(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3], color: color)
        }
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        let mapping = Mapping(pad: self)
        let size = mapping.outputSize(for: PixelSize(width: source.info.width, height: source.info.height))
        try context.limits.checkPixels(width: size.width, height: size.height, what: "the padded image")
        try context.limits.checkAnimation(frames: source.info.frameCount, width: size.width, height: size.height)
        return MappedFrameSource(source, mapping: mapping)
    }

    struct Mapping: FrameMapping {
        let pad: PadOperation
        var keepsOpacity: Bool { pad.color?.alpha == 255 || pad.top + pad.right + pad.bottom + pad.left == 0 }
        func outputSize(for input: PixelSize) -> PixelSize {
            PixelSize(width: input.width + pad.left + pad.right, height: input.height + pad.top + pad.bottom)
        }
        func map(_ image: PixelBuffer) -> PixelBuffer {
            image.padded(top: pad.top, right: pad.right, bottom: pad.bottom, left: pad.left, color: pad.color)
        }
    }
}
