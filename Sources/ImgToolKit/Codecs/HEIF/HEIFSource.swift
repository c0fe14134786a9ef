internal import CHeif

/// A HEIF's primary image, parsed once by libheif: its displayed size, coded size, depth, alpha,
/// profile, EXIF block and XMP packet, and the rotation and mirror libheif applies (read from the
/// `ipma` of the `pitm` item: libheif 1.15 does not report them). The pixels are decoded by ``HEIFFrameReader``.
///
/// With a ``DecoderIsolation`` installed, libheif runs in child processes (``HEIFIsolation``):
/// the one that parses the file decodes it for the first reader; the item graph is checked here
/// first either way.
struct HEIFSource: FrameSource {
    let info: ImageInfo
    /// Where libheif runs.
    let decoding: HEIFDecoding
    let hasAlpha: Bool
    let storedDepth: Int

    /// - Parameter isolation: the child processes to decode in, or `nil` for this process.
    /// - Throws: ``ImgToolError``: `unsupportedFormat` when libheif is not installed (naming the
    ///   package) or cannot read the coding; `tooLarge`; `truncated`; `corrupt` (a crash of
    ///   libheif in a child too).
    init(data: [UInt8], limits: DecodingLimits, isolation: DecoderIsolation? = DecoderIsolation.current)
        throws(ImgToolError)
    {
        let graph = HEIFItemGraph(data)
        if let problem = graph.problem {
            throw ImgToolError(.corrupt, "corrupt HEIF: \(problem) (a grid's tiles must be coded images)")
        }
        try graph.checkDerivedImages(against: limits)
        let description: HEIFDescription
        if let isolation {
            let (described, waiting) = try HEIFIsolation.describe(data, limits: limits, isolation: isolation)
            description = described
            decoding = .isolated(isolation, data: data, limits: limits, waiting: Locked(waiting))
        } else {
            let file = try HEIFFile(data: data)
            description = HEIFDescription(file)
            decoding = .inProcess(file)
        }
        let (width, height, bits, hasAlpha) = (
            description.width, description.height, description.bits, description.hasAlpha
        )
        try limits.checkPixels(width: width, height: height, what: "HEIF image")
        guard width > 0, height > 0 else { throw ImgToolError(.corrupt, "corrupt HEIF: the image has no pixels") }
        var info = ImageInfo(
            format: .heif, width: width, height: height, bitDepth: max(bits, 8), colorType: hasAlpha ? .rgba : .rgb,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: width, height: height),
                    disposal: .none, blend: .source)
            ])
        let stored = description.storedSize
        if stored.width > 0, stored.height > 0 { info.storedSize = stored }
        if let primary = graph.primary { info.appliedOrientation = graph.orientation(of: primary) }
        info.exifOrientationIsInformational = true
        if let warning = graph.primaryMarkedThumbnail { info.warnings.append(warning) }
        info.describeMetadata(
            icc: description.icc, exif: description.exif.map(ISOBMFF.tiff(fromExifItem:)), xmp: description.xmp)
        self.info = info
        self.hasAlpha = hasAlpha
        storedDepth = max(bits, 8)
    }

    var isOpaque: Bool { !hasAlpha }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        HEIFFrameReader(source: self, depth: depth ?? (storedDepth > 8 ? .sixteen : .eight))
    }
}

/// Where a ``HEIFSource``'s libheif runs.
enum HEIFDecoding {
    /// In this process, over one parsed file.
    case inProcess(HEIFFile)
    /// In child processes, each sent the file: the one that described it, `waiting` for the
    /// first reader to ask it to decode (killed when the source goes unread), then one per reader.
    case isolated(DecoderIsolation, data: [UInt8], limits: DecodingLimits, waiting: Locked<IsolatedDecode?>)
}

/// One libheif context over a copy of the file, and its primary image.
///
/// `@unchecked Sendable`: libheif's context is only read after parsing (decoding makes images of
/// its own), and ``HEIFSource`` and its readers use one context, one call at a time per reader.
/// The copy and the context are freed with the last reference.
final class HEIFFile: @unchecked Sendable {
    private let bytes: UnsafeMutableRawBufferPointer
    private let heif: OpaquePointer
    private let lock = Locked(())

    init(data: [UInt8]) throws(ImgToolError) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        var error = imgtool_heif_error()
        guard
            let heif = imgtool_heif_open(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, 0, &error)
        else {
            bytes.deallocate()
            throw Self.error(error, "cannot read the HEIF structure")
        }
        self.bytes = bytes
        self.heif = heif
    }

    deinit {
        imgtool_heif_close(heif)
        bytes.deallocate()
    }

    var imageInfo: (width: Int, height: Int, bits: Int, hasAlpha: Bool) {
        var width: Int32 = 0
        var height: Int32 = 0
        var bits: Int32 = 0
        var alpha: Int32 = 0
        imgtool_heif_info(heif, &width, &height, &bits, &alpha)
        return (Int(width), Int(height), Int(bits), alpha != 0)
    }

    /// The primary image's coded size (`ispe`), before its clean aperture, rotation and mirror.
    var storedSize: PixelSize {
        var width: Int32 = 0
        var height: Int32 = 0
        imgtool_heif_stored_size(heif, &width, &height)
        return PixelSize(width: Int(width), height: Int(height))
    }

    var icc: [UInt8]? { Self.block(imgtool_heif_icc, heif) }
    var exif: [UInt8]? { Self.block(imgtool_heif_exif, heif) }
    var xmp: [UInt8]? { Self.block(imgtool_heif_xmp, heif) }

    private static func block(
        _ read: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, Int) -> Int, _ heif: OpaquePointer
    ) -> [UInt8]? {
        let size = read(heif, nil, 0)
        guard size > 0, size <= 16 << 20 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        let copied = block.withUnsafeMutableBufferPointer { read(heif, $0.baseAddress, size) }
        return copied == size ? block : nil
    }

    /// The primary image, transforms applied, as RGBA at `depth`.
    func decode(depth: SampleDepth, width: Int, height: Int) throws(ImgToolError) -> PixelBuffer {
        var error = imgtool_heif_error()
        var succeeded: Int32 = 0
        let image = PixelBuffer(width: width, height: height, depth: depth) { target in
            lock.withLock { _ in
                succeeded = imgtool_heif_decode(
                    heif, depth == .sixteen ? 1 : 0, target.baseAddress, Int32(width), Int32(height), &error)
            }
        }
        guard succeeded == 1 else { throw Self.error(error, "cannot decode the image") }
        return image
    }

    private static func error(_ error: imgtool_heif_error, _ what: String) -> ImgToolError {
        let message = HEIFSource.oneLine(
            withUnsafeBytes(of: error.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            })
        switch error.code {
        case 5:  // usage: libheif is not there
            return ImgToolError(.unsupportedFormat, "HEIC/HEIF needs libheif at run time: \(message)", cause: message)
        case 3, 4:
            return ImgToolError(.unsupportedFormat, "unsupported HEIF: \(what) (\(message))", cause: message)
        case 6:
            return ImgToolError(.tooLarge, "HEIF too large: \(what) (\(message))", cause: message)
        case 2 where error.subcode == 100:
            return ImgToolError(.truncated, "truncated HEIF: \(what) (\(message))", cause: message)
        default:
            return ImgToolError(.corrupt, "corrupt HEIF: \(what) (\(message))", cause: message)
        }
    }
}

extension HEIFSource {
    /// libheif's message on one line: some end in a newline or hold several lines (a decoder
    /// plugin's own text after libheif's), which would split the error line; its lines are
    /// trimmed and joined with "; ".
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { line in String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// Decodes a ``HEIFSource``'s one frame.
final class HEIFFrameReader: FrameReader {
    private let source: HEIFSource
    private let depth: SampleDepth
    private var done = false

    init(source: HEIFSource, depth: SampleDepth) {
        self.source = source
        self.depth = depth
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard !done else { return nil }
        done = true
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before the HEIF image") }
        var image: PixelBuffer
        switch source.decoding {
        case .inProcess(let file):
            image = try file.decode(depth: depth, width: source.info.width, height: source.info.height)
        case .isolated(let isolation, let data, let limits, let waiting):
            image = try HEIFIsolation.decode(
                data, limits: limits, depth: depth, width: source.info.width, height: source.info.height,
                isolation: isolation, waiting: waiting)
        }
        image.metadata = ImageMetadata(
            format: .heif, bitDepth: source.info.bitDepth, colorType: source.info.colorType, color: source.info.color)
        return Frame(info: source.info.frames[0], image: image)
    }
}
