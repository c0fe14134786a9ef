/// `--crop WxH+X+Y` (an exact box, in pixels of the image as it is at that point of the chain) or
/// `--crop W:H` (the largest box of that aspect ratio, centred). Exact: pixels are copied.
public struct CropOperation: FrameOperation, Hashable, Codable {
    /// Which box.
    public enum Box: Sendable, Hashable, Codable {
        /// This box.
        case exact(FrameRegion)
        /// The largest centred box whose sides are in this ratio.
        case aspect(width: Int, height: Int)
    }

    /// The box.
    public var box: Box

    /// A crop to `box`.
    public init(_ box: Box) {
        self.box = box
    }

    /// The largest side, offset or ratio term `--crop` takes (2³¹ - 1): every sum and product of
    /// them and an image's sides stays far inside `Int`.
    public static let largestValue = Int(Int32.max)

    /// Parses `WxH+X+Y` or `W:H`.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `--crop` and the value.
    public init(parsing text: String) throws(ImgToolError) {
        let bad = ImgToolError(
            .invalidArgument, "--crop \(text): expected WxH+X+Y (a box in pixels) or W:H (an aspect ratio)")
        if let colon = text.firstIndex(of: ":") {
            guard let w = Int(text[..<colon]), let h = Int(text[text.index(after: colon)...]), w > 0, h > 0 else {
                throw bad
            }
            // The ratio's terms multiply the image's sides: keep them where that cannot overflow.
            guard w <= Self.largestValue, h <= Self.largestValue else {
                throw ImgToolError(
                    .invalidArgument, "--crop \(text): the ratio's terms must be at most \(Self.largestValue)")
            }
            self.init(.aspect(width: w, height: h))
            return
        }
        let parts = text.lowercased().split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 3, let x = Int(parts[1]), let y = Int(parts[2]), x >= 0, y >= 0 else { throw bad }
        let sides = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let w = Int(sides[0]), let h = Int(sides[1]) else { throw bad }
        guard w > 0, h > 0 else {
            throw ImgToolError(.invalidArgument, "--crop \(text): the box must be at least 1x1")
        }
        guard [w, h, x, y].allSatisfy({ $0 <= Self.largestValue }) else {
            throw ImgToolError(
                .invalidArgument, "--crop \(text): sides and offsets must be at most \(Self.largestValue) pixels")
        }
        self.init(.exact(FrameRegion(x: x, y: y, width: w, height: h)))
    }

    /// The box in an image of `size`.
    /// - Throws: ``ImgToolError`` `invalidArgument` when an exact box does not lie inside it.
    public func region(in size: PixelSize) throws(ImgToolError) -> FrameRegion {
        switch box {
        case .exact(let region):
            let (right, overflowX) = region.x.addingReportingOverflow(region.width)
            let (bottom, overflowY) = region.y.addingReportingOverflow(region.height)
            guard !overflowX, !overflowY, right <= size.width, bottom <= size.height else {
                throw ImgToolError(
                    .invalidArgument,
                    "--crop \(region.width)x\(region.height)+\(region.x)+\(region.y) lies outside the \(size.width)x\(size.height) image"
                )
            }
            return region
        case .aspect(let w, let h):
            // The largest w:h box: full height when the image is wider than the ratio (compared
            // exactly, in integers), full width otherwise; the other side rounded.
            var width = size.width
            var height = size.height
            if size.width * h > size.height * w {
                width = Int((Double(size.height) * Double(w) / Double(h)).rounded())
            } else {
                height = Int((Double(size.width) * Double(h) / Double(w)).rounded())
            }
            width = max(1, min(width, size.width))
            height = max(1, min(height, size.height))
            return FrameRegion(x: (size.width - width) / 2, y: (size.height - height) / 2, width: width, height: height)
        }
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        let region = try region(in: PixelSize(width: source.info.width, height: source.info.height))
        return MappedFrameSource(source, mapping: Mapping(region: region))
    }

    struct Mapping: FrameMapping {
        let region: FrameRegion
        var keepsOpacity: Bool { true }
        func outputSize(for input: PixelSize) -> PixelSize { PixelSize(width: region.width, height: region.height) }
        func map(_ image: PixelBuffer) -> PixelBuffer { image.cropped(to: region) }
    }
}
