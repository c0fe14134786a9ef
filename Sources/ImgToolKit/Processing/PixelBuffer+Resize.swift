extension PixelBuffer {
    /// This image resized to `size`, aspect ratio as given, at the same depth.
    ///
    /// Filtering is separable, on premultiplied alpha, in `Float32`, on both cores for large
    /// images; see ``Resampler`` for the details. Resizing many frames of one size? Make one
    /// ``Resampler`` and reuse its weight tables.
    /// - Parameters:
    ///   - size: the output size, at least 1x1.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light (decode sRGB before, encode after). Default `false`.
    ///   - limits: the output is checked against `limits.maxPixels` before anything is
    ///     allocated. Default ``DecodingLimits/default``.
    /// - Returns: the resized image; `self` when `size` is this image's size.
    /// - Throws: ``ImgToolError`` `invalidArgument` when either image is empty; `tooLarge` when
    ///   the output passes the limit; `cancelled`.
    public func resized(
        to size: PixelSize, filter: ResampleFilter = .lanczos3, linear: Bool = false,
        limits: DecodingLimits = .default
    ) throws(ImgToolError) -> PixelBuffer {
        let resampler = try Resampler(
            from: PixelSize(width: width, height: height), to: size, filter: filter, linear: linear, limits: limits)
        return try resampler.resample(self)
    }

    /// This image resized as `spec` says (pixels or percentages, fit, crop for `cover`; the fast
    /// path for large reductions when `spec` is a thumbnail).
    /// - Parameters:
    ///   - spec: what the user asked for; see ``ResizeSpec``.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light. Default `false`.
    ///   - limits: checked before anything is allocated. Default ``DecodingLimits/default``.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty image or a size that resolves
    ///   to nothing; `tooLarge` when the output passes the limit; `cancelled`.
    public func resized(
        _ spec: ResizeSpec, filter: ResampleFilter = .lanczos3, linear: Bool = false,
        limits: DecodingLimits = .default
    ) throws(ImgToolError) -> PixelBuffer {
        let geometry = try spec.resolve(against: PixelSize(width: width, height: height), limits: limits)
        let resampler = try Resampler(
            from: PixelSize(width: width, height: height), scaledTo: geometry.scaledSize, croppedTo: geometry.crop,
            filter: filter, linear: linear, shrinkingFirst: spec.isThumbnail, limits: limits)
        return try resampler.resample(self)
    }
}
