/// Sizes past which decoders refuse an input before allocating anything for it.
///
/// Every check happens on declared sizes (IHDR, a GIF's logical screen and image descriptors,
/// an APNG's fcTL), with overflow-checked arithmetic, so a small hostile file cannot make
/// imgtool allocate or work in proportion to what it claims.
public struct DecodingLimits: Sendable, Hashable {
    /// Most pixels in one canvas or frame, `width * height`. Default 128 megapixels
    /// (128 * 1024 * 1024). Passing it throws ``ImgToolError/Code/tooLarge``.
    public var maxPixels: Int
    /// Most frames in one animation. Default 100,000.
    public var maxFrames: Int
    /// Most pixels composed over a whole animation (frames x canvas), the guard against
    /// decompression bombs. Default 16 gigapixels.
    public var maxTotalPixels: Int
    /// Largest ancillary PNG chunk libpng will allocate, and largest ICC profile, EXIF block or
    /// XMP packet any reader keeps, in bytes (a larger one is dropped with a warning). Default 16 MiB.
    public var maxChunkBytes: Int

    /// Creates limits; every parameter has the documented default.
    public init(
        maxPixels: Int = 128 * 1024 * 1024, maxFrames: Int = 100_000,
        maxTotalPixels: Int = 16 * 1024 * 1024 * 1024, maxChunkBytes: Int = 16 * 1024 * 1024
    ) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxTotalPixels = maxTotalPixels
        self.maxChunkBytes = maxChunkBytes
    }

    /// The default limits.
    public static let `default` = DecodingLimits()

    /// Throws ``ImgToolError/Code/tooLarge`` unless a `width` x `height` image is within ``maxPixels``.
    /// - Parameters:
    ///   - width: the image's width in pixels.
    ///   - height: the image's height in pixels.
    ///   - what: names the thing measured in the message, e.g. "image" or "frame 3".
    public func checkPixels(width: Int, height: Int, what: String = "image") throws(ImgToolError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels || width < 0 || height < 0 {
            throw ImgToolError(
                .tooLarge,
                "\(what) is \(width)x\(height) (\(overflow ? "overflow" : String(pixels)) pixels), over the limit of \(maxPixels) pixels",
                limit: .pixels)
        }
    }

    /// Throws ``ImgToolError/Code/tooLarge`` unless `frames` frames of `width` x `height` are
    /// within ``maxFrames`` and ``maxTotalPixels``.
    public func checkAnimation(frames: Int, width: Int, height: Int) throws(ImgToolError) {
        if frames > maxFrames {
            throw ImgToolError(
                .tooLarge, "animation has \(frames) frames, over the limit of \(maxFrames)", limit: .frames)
        }
        let (canvas, overflow1) = width.multipliedReportingOverflow(by: height)
        let (total, overflow2) = canvas.multipliedReportingOverflow(by: frames)
        if overflow1 || overflow2 || total > maxTotalPixels {
            throw ImgToolError(
                .tooLarge,
                "animation would compose \(frames) frames of \(width)x\(height), over the limit of \(maxTotalPixels) pixels in all",
                limit: .totalPixels)
        }
    }
}
