/// `--blur SIGMA` (Gaussian, on premultiplied alpha), `--sharpen SIGMA` (unsharp mask) and
/// `--grayscale` (Rec. 709 luma of the encoded values). The size and timing are kept.
public enum FilterOperation: FrameOperation, Hashable, Codable {
    /// Gaussian blur of this standard deviation, in pixels.
    case blur(sigma: Double)
    /// Unsharp mask with a Gaussian of this standard deviation.
    case sharpen(sigma: Double)
    /// Grey.
    case grayscale

    /// Parses a standard deviation for `option` (`--blur`, `--sharpen`): above 0, at most 1000.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public static func sigma(parsing text: String, option: String) throws(ImgToolError) -> Double {
        guard let sigma = Double(text), sigma.isFinite, sigma > 0, sigma <= 1000 else {
            throw ImgToolError(.invalidArgument, "\(option) \(text): expected a standard deviation in pixels, above 0")
        }
        return sigma
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        MappedFrameSource(source, mapping: Mapping(filter: self))
    }

    struct Mapping: FrameMapping {
        let filter: FilterOperation
        var keepsOpacity: Bool { true }
        func outputSize(for input: PixelSize) -> PixelSize { input }
        /// The filtered frame; a blur or sharpen stops within a few rows when the task reading
        /// it is cancelled.
        func map(_ image: PixelBuffer) throws(ImgToolError) -> PixelBuffer {
            switch filter {
            case .blur(let sigma): try image.gaussianFilteredUnlessCancelled(.blur, sigma: sigma)
            case .sharpen(let sigma): try image.gaussianFilteredUnlessCancelled(.sharpen(amount: 1), sigma: sigma)
            case .grayscale: image.grayscaled()
            }
        }
    }
}
