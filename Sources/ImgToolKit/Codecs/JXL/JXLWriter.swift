internal import CJXL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a ``FrameSource`` as JPEG XL with libjxl: a still for one frame, an animation
/// otherwise, each frame the whole canvas; or, for a JPEG read as it is, the JPEG itself
/// recompressed losslessly (its DCT coefficients and the data to rebuild the file byte for byte,
/// its metadata segments edited as the options say).
///
/// - Lossless (without a quality, the default for a lossless source: PNG, APNG, GIF, lossless
///   WebP, and for a JPEG, which is transcoded) keeps every sample: modular mode, the original
///   colour space. A quality given means lossy (``ImageWriteOptions/writesLossless(source:)``).
/// - Quality 1-100 becomes a Butteraugli distance as `cjxl` and libjxl 0.9's
///   `JxlEncoderDistanceFromQuality` map it: 100 is 0 (lossless), 30-99 `0.1 + (100 - q) x 0.09`,
///   below 30 `6.4 + 2.5^((30 - q) / 5) / 6.25`, at most 25 (libjxl 0.7's largest distance, so
///   qualities 1-4 are all 25). A lossy write without a quality uses distance 1
///   (quality 90), `cjxl`'s default.
/// - The compression level 0-9 becomes libjxl's effort (1, 2, 3, 5, 7, 7, 8, 8, 9, 9; default 4,
///   effort 7, `cjxl`'s).
/// - Both cores: libjxl's thread pool has a thread per processor.
/// - 8-bit sources are written at 8 bits, deeper ones at 16. Colour: the ICC profile, else sRGB.
///   (A grey profile has been converted to sRGB, as for every RGB format.) EXIF and XMP go in
///   `Exif` and `xml ` boxes.
///   Animations tick in milliseconds (a frame lasts 1 ms at least: one of 0 would be a layer of
///   the next; frames under 20 ms are folded first, ``WrittenTiming``, as every animated writer
///   does) and carry the loop count; a delay past 2^32 - 1 ms and plays past 2^32 - 1 are
///   clamped (``AnimationLimits``).
struct JXLWriter {
    let lossless: Bool?
    let quality: Int?
    let level: Int
    let plays: Int?
    let background: RGBAColor?
    /// Whether pixels are encoded losslessly (``ImageWriteOptions/writesLossless(source:)``, and
    /// quality 100 without `lossless` set: distance 0 is JPEG XL's lossless mode, as `cjxl -q 100`).
    let isLossless: Bool
    /// Whether the pixels keep their colour space (``ImageWriteOptions/ProfileChoice/keep``).
    let keepsProfile: Bool
    /// Which metadata a recompressed JPEG keeps (pixel writes take theirs from ``OutputColor``).
    let metadata: ImageWriteOptions.MetadataChoice
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    init(options: ImageWriteOptions, source info: ImageInfo) {
        lossless = options.lossless
        quality = options.quality
        level = options.compressionLevel ?? 4
        plays = options.plays
        background = options.background
        isLossless = options.writesLossless(source: info) || (options.lossless == nil && options.quality == 100)
        if case .keep = options.profile { keepsProfile = true } else { keepsProfile = false }
        metadata = options.metadata
    }

    /// This writer carrying what `color` says: the ICC profile, EXIF and XMP.
    func describing(_ color: OutputColor) -> JXLWriter {
        var writer = self
        if case .icc(let profile) = color.description { writer.icc = profile.data }
        writer.exif = color.exif
        writer.xmp = color.xmp
        return writer
    }

    /// The Butteraugli distance for `quality` (`cjxl`'s mapping).
    static func distance(forQuality quality: Int) -> Float {
        if quality >= 100 { return 0 }
        if quality >= 30 { return 0.1 + Float(100 - quality) * 0.09 }
        // libjxl 0.7 takes distances up to 25 (the formula gives 25.3 at quality 4 and 38.9 at
        // 1): qualities 1-4 are written at 25, its coarsest.
        return min(6.4 + powf(2.5, Float(30 - quality) / 5) / 6.25, Self.largestDistance)
    }

    /// The largest Butteraugli distance libjxl 0.7 accepts.
    static let largestDistance: Float = 25

    /// libjxl's effort for a compression level 0-9.
    static func effort(forLevel level: Int) -> Int {
        [1, 2, 3, 5, 7, 7, 8, 8, 9, 9][min(max(level, 0), 9)]
    }

    /// The JPEG to recompress losslessly when `source` is written as one, else `nil`: `source` is
    /// a JPEG read as it is, nothing changed its pixels or colours (no operation, the profile
    /// kept), and no quality or lossy write was asked for. Its metadata segments are edited as
    /// ``metadata`` says (``JPEGMetadataEditor``), so the file rebuilt from the JPEG XL is the
    /// edited JPEG, byte for byte (the original with ``ImageWriteOptions/MetadataChoice/keepWithGPS``);
    /// a JPEG whose markers cannot be followed is written as pixels instead. libjxl takes the ICC
    /// profile's segments only in order: segments out of order are put in order (the rebuilt
    /// JPEG has them so), and a JPEG whose segments do not make one profile is written as pixels
    /// (``JPEGICCSegments``); ``recompressionNotes(_:)`` says so.
    func recompressedJPEG(_ source: any FrameSource) throws(ImgToolError) -> [UInt8]? {
        guard case .jpeg(let jpeg, _) = try recompression(source) else { return nil }
        return jpeg
    }

    /// What ``recompressedJPEG(_:)`` changes that a user should hear of, one sentence each: ICC
    /// segments put in order, or a JPEG written as pixels because they do not make one profile.
    func recompressionNotes(_ source: any FrameSource) -> [String] {
        switch try? recompression(source) {
        case .jpeg(_, reorderedICC: true)?:
            [
                "the JPEG's ICC profile segments are out of order, which libjxl refuses: they are put in order, so the JPEG rebuilt from this file has them in order"
            ]
        case .pixelsForICC?:
            [
                "the JPEG's ICC profile segments do not make one profile (a number missing or repeated), which libjxl refuses: the image is encoded from its pixels, not recompressed"
            ]
        default: []
        }
    }

    /// How a source is written.
    private enum Recompression {
        /// As pixels: not a JPEG read as it is, or not asked to be recompressed.
        case pixels
        /// As this JPEG, recompressed; its ICC segments were put in order when `reorderedICC`.
        case jpeg([UInt8], reorderedICC: Bool)
        /// As pixels, because its ICC segments do not make one profile.
        case pixelsForICC
    }

    private func recompression(_ source: any FrameSource) throws(ImgToolError) -> Recompression {
        guard lossless != false, quality == nil, background == nil, keepsProfile,
            let stored = source as? any JPEGBitstreamSource, stored.info.format == .jpeg,
            let original = try stored.jpegBitstream(),
            let edited = JPEGMetadataEditor(choice: metadata).edited(original)
        else { return .pixels }
        switch JPEGICCSegments.order(of: edited) {
        case .inOrder?, nil: return .jpeg(edited, reorderedICC: false)
        case .reordered(let ordered)?: return .jpeg(ordered, reorderedICC: true)
        case .broken?: return .pixelsForICC
        }
    }

    /// Recompresses `jpeg` losslessly into `sink`: its DCT coefficients and the data to rebuild
    /// it byte for byte. libjxl puts the JPEG's EXIF and XMP in boxes, which that data refers to.
    /// - Throws: ``ImgToolError``: `invalidArgument` for a level outside 0-9; `writeFailed` when
    ///   libjxl fails (a JPEG it cannot parse).
    func recompress(_ jpeg: [UInt8], into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        guard (0...9).contains(level) else {
            throw ImgToolError(.invalidArgument, "JPEG XL compression level \(level) is out of range: 0...9")
        }
        let session = try Session()
        defer { session.close() }
        let settings = try session.frameSettings(effort: Self.effort(forLevel: level))
        try session.check(JxlEncoderStoreJPEGMetadata(session.encoder, 1), "keep the JPEG's reconstruction data")
        let added = jpeg.withUnsafeBufferPointer { JxlEncoderAddJPEGFrame(settings, $0.baseAddress, $0.count) }
        try session.check(added, "recompress the JPEG")
        JxlEncoderCloseInput(session.encoder)
        try sink.append(try session.output())
        progress?(1)
    }

    /// Encodes `source` into `sink` (recompressing the JPEG it is, when ``recompressedJPEG(_:)``
    /// gives one).
    /// - Throws: ``ImgToolError``: `invalidArgument` for a quality outside 1-100, a level outside
    ///   0-9 or a canvas libjxl cannot hold; a decoding error from `source`; `writeFailed` when
    ///   libjxl fails; `cancelled`.
    func encode(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        let source = source.timedForWriting(as: .jxl)
        let info = source.info
        if let quality, !(1...100).contains(quality) {
            throw ImgToolError(.invalidArgument, "JPEG XL quality \(quality) is out of range: 1...100")
        }
        guard (0...9).contains(level) else {
            throw ImgToolError(.invalidArgument, "JPEG XL compression level \(level) is out of range: 0...9")
        }
        guard (1...(1 << 30)).contains(info.width), (1...(1 << 30)).contains(info.height) else {
            throw ImgToolError(.invalidArgument, "cannot write a \(info.width)x\(info.height) JPEG XL")
        }
        if let jpeg = try recompressedJPEG(source) {
            try recompress(jpeg, into: &sink, progress: progress)
            return
        }
        let session = try Session()
        defer { session.close() }
        let settings = try session.frameSettings(effort: Self.effort(forLevel: level))

        let deep = info.bitDepth > 8
        let animated = info.frames.count > 1
        let reader = try source.makeFrameReader(depth: deep ? .sixteen : .eight)
        guard let first = try reader.nextFrame() else {
            throw ImgToolError(.corrupt, "the image has no frames to write")
        }
        // A still's alpha is known from its pixels; an animation's from what the source says.
        let hasAlpha =
            background == nil && !source.isOpaque && (animated || first.image.firstTranslucentRow() != nil)
        var basic = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&basic)
        basic.xsize = UInt32(info.width)
        basic.ysize = UInt32(info.height)
        basic.bits_per_sample = deep ? 16 : 8
        basic.num_color_channels = 3
        basic.num_extra_channels = hasAlpha ? 1 : 0
        basic.alpha_bits = hasAlpha ? basic.bits_per_sample : 0
        basic.uses_original_profile = isLossless ? 1 : 0
        if animated {
            // Past 2^32 - 1 plays, the most num_loops holds (``AnimationLimits``; noted before).
            let plays = AnimationLimits.jxl.clamped(plays: self.plays ?? info.plays)
            basic.have_animation = 1
            basic.animation.tps_numerator = 1000
            basic.animation.tps_denominator = 1
            basic.animation.num_loops = UInt32(plays)
        }
        if exif != nil || xmp != nil {
            try session.check(JxlEncoderUseContainer(session.encoder, 1), "use the container")
            try session.check(JxlEncoderUseBoxes(session.encoder), "add metadata boxes")
        }
        try session.check(JxlEncoderSetBasicInfo(session.encoder, &basic), "take the image header")
        if let icc {
            let set = icc.withUnsafeBufferPointer { JxlEncoderSetICCProfile(session.encoder, $0.baseAddress, $0.count) }
            try session.check(set, "take the ICC profile")
        } else {
            var encoding = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&encoding, 0)
            try session.check(JxlEncoderSetColorEncoding(session.encoder, &encoding), "take the sRGB description")
        }
        if let exif {
            // The Exif box starts with the offset of the TIFF header in it: 0.
            let payload: [UInt8] = [0, 0, 0, 0] + exif
            let added = payload.withUnsafeBufferPointer {
                JxlEncoderAddBox(session.encoder, "Exif", $0.baseAddress, $0.count, 0)
            }
            try session.check(added, "add the EXIF box")
        }
        if let xmp {
            let added = xmp.withUnsafeBufferPointer {
                JxlEncoderAddBox(session.encoder, "xml ", $0.baseAddress, $0.count, 0)
            }
            try session.check(added, "add the XMP box")
        }
        if exif != nil || xmp != nil { JxlEncoderCloseBoxes(session.encoder) }
        try session.check(JxlEncoderSetFrameLossless(settings, isLossless ? 1 : 0), "set lossless")
        if !isLossless {
            let distance = quality.map(Self.distance(forQuality:)) ?? 1
            try session.check(JxlEncoderSetFrameDistance(settings, distance), "set the distance")
        }

        var written = 0
        var timeline = MillisecondTimeline(maximum: Int(UInt32.max))
        var next: Frame? = first
        while let frame = next {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing JPEG XL frame \(written)") }
            var image = frame.image
            if let background { image = image.flattened(onto: background) }
            if animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                // A frame of 0 ticks would be a layer of the next one, not a frame: 1 ms at least.
                header.duration = UInt32(timeline.duration(of: frame.info.delay))
                try session.check(JxlEncoderSetFrameHeader(settings, &header), "take frame \(written)'s header")
            }
            var format = JxlPixelFormat(
                num_channels: hasAlpha ? 4 : 3, data_type: deep ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                endianness: JXL_NATIVE_ENDIAN, align: 0)
            let added: JxlEncoderStatus
            switch image.samples {
            case .rgba8(let samples):
                added = Self.add(hasAlpha ? samples : Self.droppingAlpha(samples), to: settings, as: &format)
            case .rgba16(let samples):
                added = Self.add(hasAlpha ? samples : Self.droppingAlpha(samples), to: settings, as: &format)
            }
            try session.check(added, "encode frame \(written)")
            written += 1
            progress?(written)
            next = animated ? try reader.nextFrame() : nil
        }
        JxlEncoderCloseInput(session.encoder)
        try sink.append(try session.output())
    }

    /// Hands libjxl one frame's interleaved samples.
    private static func add<S>(_ samples: [S], to settings: OpaquePointer, as format: inout JxlPixelFormat)
        -> JxlEncoderStatus
    {
        samples.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
    }

    /// The red, green and blue samples of every RGBA pixel of `samples`.
    private static func droppingAlpha<S>(_ samples: [S]) -> [S] {
        let pixels = samples.count / 4
        return [S](unsharedUninitializedCapacity: pixels * 3) { out, initialized in
            samples.withUnsafeBufferPointer { rgba in
                for pixel in 0..<pixels {
                    out[pixel * 3] = rgba[pixel * 4]
                    out[pixel * 3 + 1] = rgba[pixel * 4 + 1]
                    out[pixel * 3 + 2] = rgba[pixel * 4 + 2]
                }
            }
            initialized = pixels * 3
        }
    }

    /// An encoder and its thread pool.
    private final class Session {
        let encoder: OpaquePointer
        private let runner: UnsafeMutableRawPointer?

        init() throws(ImgToolError) {
            guard let encoder = JxlEncoderCreate(nil) else {
                throw ImgToolError(.writeFailed, "out of memory for a JPEG XL encoder")
            }
            self.encoder = encoder
            runner = availableProcessors > 1 ? JxlThreadParallelRunnerCreate(nil, availableProcessors) : nil
            if let runner {
                guard JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner) == JXL_ENC_SUCCESS else {
                    throw ImgToolError(.writeFailed, "libjxl refused its thread pool")
                }
            }
        }

        func close() {
            JxlEncoderDestroy(encoder)
            if let runner { JxlThreadParallelRunnerDestroy(runner) }
        }

        func frameSettings(effort: Int) throws(ImgToolError) -> OpaquePointer {
            guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
                throw ImgToolError(.writeFailed, "libjxl could not make frame settings")
            }
            try check(
                JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)),
                "set the effort")
            return settings
        }

        func check(_ status: JxlEncoderStatus, _ what: String) throws(ImgToolError) {
            guard status == JXL_ENC_SUCCESS else {
                let code = JxlEncoderGetError(encoder)
                throw ImgToolError(
                    .writeFailed, "libjxl could not \(what) (error \(code.rawValue))",
                    cause: "JxlEncoderError \(code.rawValue)")
            }
        }

        /// Everything the encoder produces, once the input is closed.
        func output() throws(ImgToolError) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: 1 << 16)
            var used = 0
            while true {
                let (status, written) = output.withUnsafeMutableBufferPointer { buffer -> (JxlEncoderStatus, Int) in
                    var next = buffer.baseAddress.map { $0 + used }
                    var available = buffer.count - used
                    let status = JxlEncoderProcessOutput(encoder, &next, &available)
                    return (status, buffer.count - used - available)
                }
                used += written
                switch status {
                case JXL_ENC_SUCCESS:
                    output.removeLast(output.count - used)
                    return output
                case JXL_ENC_NEED_MORE_OUTPUT:
                    output += [UInt8](repeating: 0, count: output.count)
                default:
                    try check(status, "write the file")
                    throw ImgToolError(.writeFailed, "libjxl could not write the file")
                }
            }
        }
    }
}

/// A source that can hand over the JPEG file it shows, byte for byte: a JPEG read as it is, or a
/// JPEG XL that stores a JPEG's reconstruction data. Writers use it to move a JPEG into JPEG XL
/// and back without decoding a pixel.
protocol JPEGBitstreamSource: FrameSource {
    /// The JPEG file, or `nil` when there is none to give.
    func jpegBitstream() throws(ImgToolError) -> [UInt8]?
}
