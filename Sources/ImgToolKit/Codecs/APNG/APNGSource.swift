/// An animated PNG, parsed once: its chunks are indexed (offsets only) and its frame table is
/// built from acTL and the fcTL chunks, without decoding any pixels.
///
/// Frames are decoded on demand by ``APNGFrameReader``: each frame is rebuilt as a PNG stream
/// (``APNGFrameStream``) and decoded by ``PNGDecoder`` (libpng), then composed on the canvas.
///
/// **The default image.** The IDAT image is frame 0 only when an fcTL chunk precedes it.
/// Otherwise it is not part of the animation, and ``ImageInfo/defaultImageOutsideAnimation`` is
/// `true`; it stays reachable through ``defaultImage(depth:)`` here, and publicly by decoding
/// the file's bytes (``ImageSource/data``) with ``PNGDecoder``, which ignores the APNG chunks.
///
/// **acTL's num_frames** that is no count (0, or past 2^31 - 1: 0xFFFFFFFF from a writer
/// streaming to a pipe) or is below the fcTL count: the frames present are read and
/// ``ImageInfo/warnings`` says so.
///
/// **A broken animation** (a wrong sequence number, a second acTL, an fcTL without data, a
/// num_frames above the fcTL count, an acTL with no fcTL, a frame outside the canvas, a wrong CRC on an APNG chunk, ...) is discarded, as the APNG specification recommends: the source is then the
/// default image as a one-frame still, and ``ImageInfo/warnings`` says what was wrong. A file
/// with no IDAT at all has nothing to fall back to and is an error.
struct APNGSource: FrameSource {
    /// The file's bytes.
    let data: [UInt8]
    /// Limits checked when the source was made and again when frames are decoded.
    let limits: DecodingLimits
    /// The file's structure.
    let file: APNGFile
    /// The frame table; empty when the animation is broken and the default image is shown.
    let frames: [APNGFrame]
    let info: ImageInfo

    /// Parses an APNG, or returns `nil` when `data` has no acTL chunk before its first IDAT
    /// (a still PNG: the caller uses the still decoder).
    /// - Throws: ``ImgToolError`` `truncated`, `corrupt` (a bad IHDR, a wrong CRC on a critical
    ///   chunk, no IDAT) or `tooLarge` (canvas, frame or animation over `limits`).
    init?(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        guard APNGFile.hasAnimationControl(data) else { return nil }
        let file = try APNGFile(parsing: data)
        try limits.checkPixels(width: file.header.width, height: file.header.height, what: "canvas")
        // libpng's view of the header, for the colour-management chunks it reports.
        let stored = try PNGDecoder(limits: limits).header(of: data)
        var info = ImageInfo(
            format: .apng, width: file.header.width, height: file.header.height, bitDepth: file.header.bitDepth,
            colorType: file.header.colorType, isInterlaced: file.header.isInterlaced, color: stored.color,
            frames: [], warnings: file.warnings)
        stored.describe(&info)
        switch file.animation {
        case .success(let (control, frames)):
            try limits.checkAnimation(frames: frames.count, width: file.header.width, height: file.header.height)
            info.frames = try frames.enumerated().map { (index, frame) throws(ImgToolError) in
                let region = frame.control.region
                try limits.checkPixels(width: region.width, height: region.height, what: "frame \(index)")
                return FrameInfo(
                    index: index, delay: frame.control.delay, region: region, disposal: frame.control.disposal,
                    blend: frame.control.blend)
            }
            info.loopValue = control.plays
            info.plays = control.plays
            info.defaultImageOutsideAnimation = !(frames.first?.isDefaultImage ?? false)
            self.frames = frames
        case .failure(let error):
            info.frames = [
                FrameInfo(
                    index: 0, delay: .zero,
                    region: FrameRegion(x: 0, y: 0, width: file.header.width, height: file.header.height),
                    disposal: .none, blend: .source)
            ]
            info.warnings.insert("broken APNG animation, showing the default image as a still: \(error)", at: 0)
            self.frames = []
        }
        self.data = data
        self.limits = limits
        self.file = file
        self.info = info
    }

    /// Opaque without decoding when the colour type has no alpha and there is no tRNS, and no
    /// composited pixel can be transparent: frame 0 covers the canvas and no region is ever
    /// cleared (no `background` disposal, no `previous` on frame 0, which acts as background).
    var isOpaque: Bool {
        guard file.transparency == nil, [.gray, .rgb, .palette].contains(file.header.colorType) else { return false }
        guard let first = info.frames.first, !isFallback else { return true }
        return first.region == FrameRegion(x: 0, y: 0, width: info.width, height: info.height)
            && first.disposal == .none && info.frames.allSatisfy { $0.disposal != .background }
    }

    /// Whether the animation was discarded and the default image is shown as a still.
    var isFallback: Bool { frames.isEmpty }

    /// The default image (IDAT), decoded as a still PNG whatever its role in the animation.
    /// - Parameter depth: output depth; `nil` keeps the file's.
    /// - Returns: the IDAT image, canvas-sized.
    /// - Throws: ``ImgToolError`` `corrupt`, `truncated`, `tooLarge` or `cancelled`.
    func defaultImage(depth: SampleDepth? = nil) throws(ImgToolError) -> PixelBuffer {
        try PNGDecoder(limits: limits).decode(data, depth: depth)
    }

    /// The output depth for a request: `nil` keeps the file's (16-bit files give 16-bit frames).
    func outputDepth(for depth: SampleDepth?) -> SampleDepth {
        depth ?? (file.header.bitDepth == 16 ? .sixteen : .eight)
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        APNGFrameReader(source: self, depth: outputDepth(for: depth))
    }
}
