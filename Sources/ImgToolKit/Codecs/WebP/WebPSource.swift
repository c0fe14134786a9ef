/// A WebP image, still or animated, parsed once: canvas, frame table and loop count, no pixels.
///
/// Making a source walks the RIFF chunks (``WebPFile``) and reads each bitstream's header with
/// libwebp's `WebPGetFeatures`, checking every declared size against ``DecodingLimits`` before
/// anything is allocated for it. A file cut short keeps the frames whose chunks are complete
/// before the cut (``ImageInfo/isComplete`` is `false`, with a warning); a file with no complete
/// frame, or whose chunks break the format, is refused with a typed error.
///
/// Frames are decoded and composited on demand by ``WebPFrameReader``. The EXIF orientation is
/// not applied: libwebp and browsers ignore it.
struct WebPSource: FrameSource {
    /// The file, re-read by each reader.
    let data: [UInt8]
    /// The file's structure and frame table.
    let file: WebPFile
    let info: ImageInfo

    /// Parses the structure of `data`.
    /// - Throws: ``ImgToolError`` as ``WebPFile/init(parsing:limits:)``.
    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let file = try WebPFile(parsing: data, limits: limits)
        var warnings = file.warnings
        if let truncation = file.truncation {
            let count = file.frames.count
            warnings.insert(
                "\(truncation); showing the \(count) complete frame\(count == 1 ? "" : "s") before it", at: 0)
        }
        let lossless = file.frames.filter(\.isLossless).count
        let compression: ImageCompression =
            lossless == file.frames.count ? .lossless : lossless == 0 ? .lossy : .mixed
        let loopCount = file.animation?.loopCount
        self.data = data
        self.file = file
        var info = ImageInfo(
            format: .webp, width: file.width, height: file.height, bitDepth: 8,
            colorType: file.declaresAlpha || file.frames.contains(where: \.hasAlpha) ? .rgba : .rgb,
            frames: file.frames.map(\.info), loopValue: loopCount, plays: loopCount ?? 1,
            isComplete: file.truncation == nil, warnings: warnings, compression: compression)
        info.describeMetadata(icc: file.icc, exif: file.exif, xmp: file.xmp)
        self.info = info
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        WebPFrameReader(source: self, depth: depth ?? .eight)
    }
}
