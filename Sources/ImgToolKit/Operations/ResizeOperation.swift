/// `--resize W` (a width), `--resize xH` (a height), `--resize WxH` (the largest size that fits
/// inside, aspect kept) or `--resize 50%`: today's resampler (``ResizedFrameSource``), Lanczos3
/// unless another filter is named.
public struct ResizeOperation: FrameOperation, Hashable, Codable {
    /// The size as typed.
    public var size: String
    /// The filter's name (`lanczos3`, `mitchell`, `catmull-rom`, `bilinear`, `box`).
    public var filter: String
    /// Whether to filter in linear light.
    public var linear: Bool

    /// A resize to `size` (as `--resize` takes it), checked now.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `--resize` and the value.
    public init(size: String, filter: String = "lanczos3", linear: Bool = false) throws(ImgToolError) {
        self.size = size
        self.filter = filter
        self.linear = linear
        _ = try spec
        _ = try ResampleFilter(named: filter)
    }

    /// The size as a ``ResizeSpec``: a bare number is a width (not a thumbnail); `WxH` fits
    /// inside the box.
    var spec: ResizeSpec {
        get throws(ImgToolError) {
            do throws(ImgToolError) {
                if !size.lowercased().contains("x") && !size.hasSuffix("%") {
                    return try ResizeSpec(width: size)
                }
                return try ResizeSpec(size: size, fit: "contain")
            } catch {
                throw ImgToolError(.invalidArgument, "--resize \(size): \(error.message)")
            }
        }
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        try ResizedFrameSource(
            source, spec: try spec, filter: try ResampleFilter(named: filter), linear: linear, limits: context.limits)
    }
}
