internal import CJXL

/// A JPEG XL file, still or animated, parsed once by libjxl: size (as shown: orientation
/// applied), depth, alpha, the frames' durations and the loop count, the colour profile of the
/// decoded pixels; no pixels.
///
/// Frames are decoded by ``JXLFrameReader``. Above 8 bits, samples are kept at 16 (or rounded to
/// 8, `(v x 255 + 32767) / 65535`, by libjxl when 8 are asked for); float images likewise.
struct JXLSource: JPEGBitstreamSource {
    let info: ImageInfo
    /// The file, parsed again by each reader.
    let data: [UInt8]
    let hasAlpha: Bool
    /// Bits per sample as stored.
    let storedDepth: Int

    /// Parses `data` (the headers of every frame, no pixels) and checks the canvas and the frame
    /// count against `limits` before anything canvas-sized is allocated.
    /// - Throws: ``ImgToolError``: `tooLarge`, `truncated`, `corrupt`.
    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let events = Int32(
            JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
                | JXL_DEC_BOX.rawValue)
        // The orientation as stored: frames come turned (each reader's own session), the
        // information says how.
        let decoder = try JXLDecoder(data: data, events: events, threads: 1, keepingOrientation: true)
        var durations: [UInt32] = []
        var profile: [UInt8]?
        var sawInfo = false
        scanning: while true {
            switch try decoder.next(sawInfo ? "frame \(durations.count)'s header" : "the image header") {
            case JXL_DEC_BASIC_INFO:
                sawInfo = true
                let basic = decoder.basicInfo
                try limits.checkPixels(width: Int(basic.xsize), height: Int(basic.ysize), what: "JPEG XL image")
            case JXL_DEC_COLOR_ENCODING:
                profile = decoder.dataProfile
            case JXL_DEC_FRAME:
                let header = decoder.frameHeader
                durations.append(header?.duration ?? 0)
                // Past --max-frames, the frame headers are still counted (no pixels are decoded),
                // so that the error says how many frames the animation has.
                if durations.count <= limits.maxFrames {
                    let basic = decoder.basicInfo
                    try limits.checkAnimation(
                        frames: durations.count, width: Int(basic.xsize), height: Int(basic.ysize))
                }
            case JXL_DEC_SUCCESS:
                break scanning
            default:
                continue
            }
        }
        guard sawInfo, !durations.isEmpty else { throw ImgToolError(.corrupt, "corrupt JPEG XL: no frame") }
        let basic = decoder.basicInfo
        if durations.count > limits.maxFrames {
            try limits.checkAnimation(frames: durations.count, width: Int(basic.xsize), height: Int(basic.ysize))
        }
        let orientation = Int(basic.orientation.rawValue)
        let turned = orientation > 4  // transposed: width and height swap
        let width = Int(turned ? basic.ysize : basic.xsize)
        let height = Int(turned ? basic.xsize : basic.ysize)
        let animated = basic.have_animation != 0 && durations.count > 1
        let tps = (
            numerator: UInt64(basic.animation.tps_numerator), denominator: UInt64(basic.animation.tps_denominator)
        )
        let frames = durations.enumerated().map { index, ticks in
            FrameInfo(
                index: index, delay: animated ? Self.duration(ticks: UInt64(ticks), tps: tps) : .zero,
                region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none, blend: .source)
        }
        let hasAlpha = basic.alpha_bits > 0
        let isGray = basic.num_color_channels == 1
        let colorType = ColorType(isGray: isGray, hasAlpha: hasAlpha)
        let plays = animated ? Int(basic.animation.num_loops) : 1
        var info = ImageInfo(
            format: .jxl, width: width, height: height, bitDepth: Int(basic.bits_per_sample), colorType: colorType,
            frames: frames, loopValue: animated ? plays : nil, plays: plays,
            compression: Self.hasReconstructionData(data)
                ? .jpegRecompression : basic.uses_original_profile != 0 ? nil : .lossy)
        if orientation > 1 {
            info.exifOrientation = orientation
            info.appliedOrientation = ImageOrientation(rawValue: orientation) ?? .up
            if turned { info.storedSize = PixelSize(width: height, height: width) }
        }
        info.describeMetadata(
            icc: profile, exif: decoder.metadataBoxes["Exif"].flatMap(Self.tiff(inExifBox:)),
            xmp: decoder.metadataBoxes["xml "])
        info.exifOrientationIsInformational = true  // the codestream's orientation is what is shown
        self.info = info
        self.data = data
        self.hasAlpha = hasAlpha
        storedDepth = Int(basic.bits_per_sample)
    }

    var isOpaque: Bool { !hasAlpha }

    /// The JPEG this file was recompressed from, rebuilt byte for byte, or `nil` when it holds
    /// no reconstruction data (it was not made from a JPEG).
    func jpegBitstream() throws(ImgToolError) -> [UInt8]? {
        let events = Int32(JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        return try JXLDecoder(data: data, events: events, threads: availableProcessors)
            .reconstructedJPEG(limit: max(data.count * 4, 1 << 20) + (256 << 20))
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try JXLFrameReader(source: self, depth: depth ?? (storedDepth > 8 ? .sixteen : .eight))
    }

    /// Whether the file is a container with a `jbrd` box (JPEG bitstream reconstruction data):
    /// it was recompressed from a JPEG. Only the top-level boxes are read.
    static func hasReconstructionData(_ data: [UInt8]) -> Bool {
        let signature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        return data.starts(with: signature) && ISOBMFF(data).boxes().contains { $0.type == "jbrd" }
    }

    /// The TIFF structure in an `Exif` box's contents, which start with its offset (big-endian,
    /// 4 bytes, from just after them; usually 0), or `nil` when the offset points outside.
    static func tiff(inExifBox contents: [UInt8]) -> [UInt8]? {
        guard contents.count >= 4 else { return nil }
        let offset = contents[..<4].reduce(0) { $0 << 8 | Int($1) }
        guard offset <= contents.count - 4 else { return nil }
        return Array(contents[(4 + offset)...])
    }

    /// `ticks` at `tps` ticks per second (a fraction), exactly to the attosecond.
    static func duration(ticks: UInt64, tps: (numerator: UInt64, denominator: UInt64)) -> Duration {
        guard tps.numerator > 0 else { return .zero }
        // seconds = ticks x denominator / numerator
        let (scaled, overflow) = ticks.multipliedReportingOverflow(by: tps.denominator)
        guard !overflow else { return .seconds(Double(ticks) * Double(tps.denominator) / Double(tps.numerator)) }
        let whole = scaled / tps.numerator
        let rest = scaled % tps.numerator
        let attoseconds = (Double(rest) / Double(tps.numerator) * 1e18).rounded()
        return Duration(secondsComponent: Int64(clamping: whole), attosecondsComponent: Int64(attoseconds))
    }
}

/// Decodes the frames of a ``JXLSource`` in order with a libjxl decoder of its own (its thread
/// pool as large as the machine), each straight into the storage of the frame it returns.
final class JXLFrameReader: FrameReader {
    private let source: JXLSource
    private let depth: SampleDepth
    private let decoder: JXLDecoder
    private var index = 0
    private var failure: ImgToolError?

    init(source: JXLSource, depth: SampleDepth) throws(ImgToolError) {
        self.source = source
        self.depth = depth
        decoder = try JXLDecoder(
            data: source.data, events: Int32(JXL_DEC_FULL_IMAGE.rawValue), threads: availableProcessors)
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if let failure { throw failure }
        guard index < source.info.frames.count else { return nil }
        do throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before JPEG XL frame \(index)") }
            let missing = ImgToolError(.truncated, "truncated JPEG XL: frame \(index) is missing")
            waiting: while true {
                switch try decoder.next("frame \(index)") {
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER: break waiting
                case JXL_DEC_SUCCESS: throw missing
                default: continue
                }
            }
            // libjxl writes the frame into the buffer's own storage, until it reports it whole.
            let (decoder, index) = (decoder, index)
            var image = try PixelBuffer(width: source.info.width, height: source.info.height, depth: depth) {
                (target) throws(ImgToolError) in
                try decoder.setImageBuffer(target, depth: depth)
                while true {
                    switch try decoder.next("frame \(index)") {
                    case JXL_DEC_FULL_IMAGE: return
                    case JXL_DEC_SUCCESS: throw missing
                    default: continue
                    }
                }
            }
            image.metadata = ImageMetadata(
                format: .jxl, bitDepth: source.info.bitDepth, colorType: source.info.colorType, color: source.info.color
            )
            defer { self.index += 1 }
            return Frame(info: source.info.frames[index], image: image)
        } catch {
            failure = error
            throw error
        }
    }
}
