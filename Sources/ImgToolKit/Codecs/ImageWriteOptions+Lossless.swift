extension ImageWriteOptions {
    /// Whether a format that stores pixels either way (WebP, AVIF, JPEG XL) writes them
    /// losslessly: ``lossless`` when it is set (`--lossless`, `--no-lossless`); otherwise lossy
    /// when a ``quality`` is given, since a quality is a lossy setting; otherwise lossless exactly
    /// when the source is stored exactly (PNG, APNG, GIF, and an ``ImageInfo/compression`` of
    /// ``ImageCompression/lossless``: a lossless WebP), so that a plain conversion loses nothing
    /// that was not already lost.
    ///
    /// With both ``lossless`` `true` and a ``quality``, the output is lossless: WebP then reads
    /// the quality as its lossless effort (as `cwebp -lossless -q`); AVIF and JPEG XL ignore it.
    /// (JPEG XL's quality 100 alone is lossless too: distance 0 is its lossless mode.)
    /// - Parameter info: The source's description.
    /// - Returns: `true` for lossless output.
    public func writesLossless(source info: ImageInfo) -> Bool {
        lossless ?? (quality == nil && info.isStoredExactly)
    }
}
