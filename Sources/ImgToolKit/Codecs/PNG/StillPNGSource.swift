#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PNG without an `acTL` chunk: one frame, decoded by ``PNGDecoder``.
///
/// Opened from bytes, or from a file path: a file is decoded straight from disk as libpng asks
/// for bytes, so a 40 MB file costs its pixels and nothing more.
struct StillPNGSource: RowStreamingSource {
    /// Where the PNG's bytes are.
    enum Storage: Sendable {
        case bytes([UInt8])
        /// A path, opened again by each reader.
        case file(String)
    }

    let storage: Storage
    let limits: DecodingLimits
    let info: ImageInfo
    /// Opaque without decoding when the colour type has no alpha and there is no `tRNS`.
    let isOpaque: Bool

    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let header = try PNGDecoder(limits: limits).header(of: data)
        try self.init(storage: .bytes(data), header: header, limits: limits)
    }

    /// Opens the PNG file open as `descriptor` (read from offset 0; the caller closes it); its
    /// readers open `path` again.
    init(path: String, descriptor: Int32, limits: DecodingLimits) throws(ImgToolError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ImgToolError(.unreadable, "cannot seek", input: path, cause: systemErrorText(errno))
        }
        let header = try PNGDecoder(limits: limits).header(ofFile: descriptor)
        try self.init(storage: .file(path), header: header, limits: limits)
    }

    private init(storage: Storage, header: PNGDecoder.Header, limits: DecodingLimits) throws(ImgToolError) {
        try limits.checkPixels(width: header.width, height: header.height)
        self.storage = storage
        self.limits = limits
        var info = ImageInfo(
            format: .png, width: header.width, height: header.height, bitDepth: header.bitDepth,
            colorType: header.colorType, isInterlaced: header.isInterlaced, color: header.color,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: header.width, height: header.height),
                    disposal: .none, blend: .source)
            ])
        header.describe(&info)
        self.info = info
        isOpaque = !header.hasTransparency && [.gray, .rgb, .palette].contains(header.colorType)
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        OneFrameReader { [self] () throws(ImgToolError) in Frame(info: info.frames[0], image: try decode(depth: depth))
        }
    }

    /// PNG rows are stored as shown.
    var rowOrientation: ImageOrientation { .up }

    /// The rows as libpng makes them (see ``PNGDecoder/stream(_:descriptor:to:)``).
    func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata? {
        let decoder = PNGDecoder(limits: limits)
        switch storage {
        case .bytes(let data):
            return try decoder.stream(data, to: consumer)
        case .file(let path):
            guard let (descriptor, _) = try? FileBytes.open(path) else { return nil }
            defer { close(descriptor) }
            return try decoder.stream([], descriptor: descriptor, to: consumer)
        }
    }

    /// Decodes the image once.
    func decode(depth: SampleDepth?) throws(ImgToolError) -> PixelBuffer {
        let decoder = PNGDecoder(limits: limits)
        switch storage {
        case .bytes(let data):
            return try decoder.decode(data, depth: depth)
        case .file(let path):
            let (descriptor, _) = try FileBytes.open(path)
            defer { close(descriptor) }
            let (image, header) = try decoder.decode(fileDescriptor: descriptor, depth: depth)
            guard header.width == info.width, header.height == info.height else {
                throw ImgToolError(
                    .corrupt,
                    "the file changed while it was read: it was \(info.width)x\(info.height), now \(header.width)x\(header.height)"
                )
            }
            return image
        }
    }
}
