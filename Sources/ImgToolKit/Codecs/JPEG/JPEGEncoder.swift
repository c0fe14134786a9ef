internal import CLibJPEG

/// Encodes a still ``PixelBuffer`` as a baseline or progressive JPEG with libjpeg (libjpeg-turbo),
/// through the `CLibJPEG` shim.
///
/// JPEG has no alpha: every pixel is first flattened onto ``background`` (source-over, rounded).
/// Huffman tables are always computed for the image (`optimize_coding`: a few percent smaller
/// for a few percent more time). Output is JFIF, YCbCr, without EXIF: the pixels are written
/// upright, so no orientation tag is needed.
public struct JPEGEncoder: Sendable {
    /// The quality used when none is given: 85.
    ///
    /// libjpeg, Pillow and libvips default to 75; ImageMagick reuses the input's quality (else 92).
    /// imgtool's typical JPEG is a photo with a logo or text merged onto it, and at 75 the sharp
    /// edges of that overlay ring and smear. Measured on a 1800x1200 photo with a 1024x512 logo
    /// (butteraugli distance from the exact merge, lower is better; `scripts/bench jpeg` does the
    /// same at 4096x4096): quality 75 with 4:2:0 chroma gives 330 KB at 6.3; 85 with 4:4:4 (see
    /// ``fullChromaQuality``) 489 KB at 2.8; 90 with 4:4:4 539 KB at 1.9. 85 is where the overlay
    /// stops showing damage at a normal viewing size, for about 1.5 times the bytes of 75.
    public static let defaultQuality = 85

    /// From this quality up, chroma is stored at full resolution (4:4:4); below it, at half
    /// resolution both ways (4:2:0).
    ///
    /// Halved chroma is what smears a coloured logo's edges: on the photo above, quality 80 with
    /// 4:4:4 (421 KB, distance 3.4) beats quality 85 with 4:2:0 (425 KB, distance 4.9) at the same
    /// size. Below 80 the file size is what the caller asked to save, and 4:2:0 saves a quarter
    /// to a third of it.
    public static let fullChromaQuality = 80

    /// Quality 1-100, as libjpeg's `jpeg_set_quality` scales its standard tables.
    public var quality: Int
    /// Whether to write a progressive JPEG (`jpeg_simple_progression`): shown coarse-to-fine while
    /// downloading, usually a little smaller, slower to encode and decode.
    public var progressive: Bool
    /// The colour that transparent pixels are flattened onto; its alpha is ignored.
    public var background: RGBAColor
    /// Arithmetic coding instead of Huffman; for tests of the decoder (few other decoders read it).
    var arithmeticCoding = false
    /// A restart marker every this many MCUs, 0 for none; for tests of the decoder.
    var restartInterval = 0

    /// Creates an encoder.
    /// - Parameters:
    ///   - quality: 1-100; `nil` (the default) is ``defaultQuality``.
    ///   - progressive: progressive output. Default `false`.
    ///   - background: what alpha is flattened onto. Default white.
    public init(quality: Int? = nil, progressive: Bool = false, background: RGBAColor = .white) {
        self.quality = quality ?? Self.defaultQuality
        self.progressive = progressive
        self.background = background
    }

    /// Whether chroma is subsampled 4:2:0 at ``quality`` (else 4:4:4).
    public var subsamplesChroma: Bool { quality < Self.fullChromaQuality }

    /// Encodes `image` into memory.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty or oversized image or a quality
    ///   outside 1-100, `tooLarge` when memory runs out.
    public func encode(_ image: PixelBuffer) throws(ImgToolError) -> [UInt8] {
        var sink = ByteSink()
        try write(image, into: &sink)
        return sink.bytes
    }

    /// Encodes `image` into `sink`, handing it the bytes as each band of rows is compressed.
    /// - Throws: as ``encode(_:)``, and `writeFailed` from the sink.
    public func write(_ image: PixelBuffer, into sink: inout ByteSink) throws(ImgToolError) {
        guard (1...100).contains(quality) else {
            throw ImgToolError(.invalidArgument, "JPEG quality \(quality) is outside 1-100")
        }
        guard image.width > 0, image.height > 0, image.width <= 65500, image.height <= 65500 else {
            throw ImgToolError(
                .invalidArgument,
                "cannot encode a \(image.width)x\(image.height) image as JPEG (each side must be 1-65500 pixels)")
        }
        guard let writer = imgtool_jpeg_writer_create() else {
            throw ImgToolError(.tooLarge, "out of memory creating a JPEG writer")
        }
        defer { imgtool_jpeg_writer_destroy(writer) }
        var params = imgtool_jpeg_write_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.quality = Int32(quality)
        params.progressive = progressive ? 1 : 0
        params.optimize = 1
        params.subsample = subsamplesChroma ? 1 : 0
        params.arithmetic = arithmeticCoding ? 1 : 0
        params.restart_interval = UInt32(clamping: restartInterval)
        try check(imgtool_jpeg_writer_begin(writer, &params), writer: writer)
        try drain(writer, into: &sink)

        // With optimized tables libjpeg keeps every coefficient for a second pass; their fresh
        // pages are mapped on a second thread while this one encodes.
        var arrays = [imgtool_jpeg_memory](repeating: imgtool_jpeg_memory(), count: Int(IMGTOOL_JPEG_MAX_ARRAYS))
        let found = Int(imgtool_jpeg_writer_arrays(writer, &arrays))
        let buffers = arrays.prefix(found).map { UnsafeMutableRawBufferPointer(start: $0.start, count: $0.length) }
        guard buffers.reduce(0, { $0 + $1.count }) >= PagePopulation.threshold, availableProcessors > 1 else {
            return try writeRows(of: image, with: writer, into: &sink)
        }
        let pages = PagesToPopulate(buffers: buffers)
        let (_, done) = forkJoin(
            { PagePopulation.populate(pages.buffers) },
            alongside: { () -> Result<Void, ImgToolError> in
                do throws(ImgToolError) {
                    return .success(try writeRows(of: image, with: writer, into: &sink))
                } catch {
                    return .failure(error)
                }
            })
        try done.get()
    }

    /// Compresses every row of `image` and the end of the file, handing the bytes to `sink` as
    /// they come.
    private func writeRows(of image: PixelBuffer, with writer: OpaquePointer, into sink: inout ByteSink)
        throws(ImgToolError)
    {
        let band = 64
        let rowBytes = image.width * 4
        var rows: [UInt8] = []
        var row = 0
        while row < image.height {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while encoding row \(row)") }
            let count = min(band, image.height - row)
            // Opaque 8-bit rows go to libjpeg as they are (it reads RGBX and skips the fourth
            // byte); others are flattened onto the background into a band buffer first.
            let direct = try Self.withOpaqueRows(of: image, rows: row..<row + count) {
                (base: UnsafePointer<UInt8>) throws(ImgToolError) in
                try check(imgtool_jpeg_writer_write_rows(writer, base, rowBytes, UInt32(count)), writer: writer)
            }
            if !direct {
                if rows.isEmpty { rows = [UInt8](repeating: 0, count: band * rowBytes) }
                flatten(image, rows: row..<row + count, into: &rows)
                try rows.withUnsafeBufferPointer { buffer throws(ImgToolError) in
                    guard let base = buffer.baseAddress else { return }
                    try check(imgtool_jpeg_writer_write_rows(writer, base, rowBytes, UInt32(count)), writer: writer)
                }
            }
            try drain(writer, into: &sink)
            row += count
        }
        try check(imgtool_jpeg_writer_finish(writer), writer: writer)
        try drain(writer, into: &sink)
    }

    /// Calls `body` with the first of `rows` when `image` is 8-bit and every pixel in them is
    /// opaque; returns whether it did.
    static func withOpaqueRows(
        of image: PixelBuffer, rows: Range<Int>, _ body: (UnsafePointer<UInt8>) throws(ImgToolError) -> Void
    ) throws(ImgToolError) -> Bool {
        guard case .rgba8(let samples) = image.samples else { return false }
        return try samples.withUnsafeBufferPointer { source throws(ImgToolError) in
            guard let base = source.baseAddress else { return false }
            let start = base + rows.lowerBound * image.width * 4
            let count = rows.count * image.width * 4
            guard isOpaque(UnsafeRawBufferPointer(start: start, count: count)) else { return false }
            try body(start)
            return true
        }
    }

    /// Whether every alpha byte of the RGBA8 pixels in `bytes` is 255. Reads two pixels a word and
    /// ANDs 512 words together before each test, which the compiler turns into vector code: a
    /// 64 MiB image takes about as long as reading it (3 ms), a tenth of a pixel-by-pixel loop.
    static func isOpaque(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let mask = UInt64(0xFF00_0000_FF00_0000)  // bytes 3 and 7, little-endian
        let words = bytes.count / 8
        var index = 0
        while index < words {
            let end = min(words, index + 512)
            var all = UInt64.max
            for word in index..<end {
                all &= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self))
            }
            if all & mask != mask { return false }
            index = end
        }
        return bytes.count % 8 < 4 || bytes[bytes.count - 1] == 255
    }

    /// Copies `rows` of `image` into `out` as 8-bit RGBX, each pixel flattened onto the background
    /// (`c * a + b * (255 - a)` over 255, rounded; 16-bit samples rounded to 8 bits first).
    func flatten(_ image: PixelBuffer, rows: Range<Int>, into out: inout [UInt8]) {
        let bg = (Int(background.red), Int(background.green), Int(background.blue))
        let width = image.width
        func blend(_ r: Int, _ g: Int, _ b: Int, _ a: Int, at index: Int) {
            if a == 255 {
                out[index] = UInt8(r)
                out[index + 1] = UInt8(g)
                out[index + 2] = UInt8(b)
            } else {
                let rest = 255 - a
                out[index] = UInt8((r * a + bg.0 * rest + 127) / 255)
                out[index + 1] = UInt8((g * a + bg.1 * rest + 127) / 255)
                out[index + 2] = UInt8((b * a + bg.2 * rest + 127) / 255)
            }
            out[index + 3] = 255
        }
        switch image.samples {
        case .rgba8(let samples):
            samples.withUnsafeBufferPointer { source in
                for (line, y) in rows.enumerated() {
                    let from = y * width * 4
                    let to = line * width * 4
                    for x in 0..<width {
                        let s = from + x * 4
                        blend(
                            Int(source[s]), Int(source[s + 1]), Int(source[s + 2]), Int(source[s + 3]), at: to + x * 4)
                    }
                }
            }
        case .rgba16(let samples):
            samples.withUnsafeBufferPointer { source in
                func eight(_ value: UInt16) -> Int { (Int(value) * 255 + 32895) >> 16 }
                for (line, y) in rows.enumerated() {
                    let from = y * width * 4
                    let to = line * width * 4
                    for x in 0..<width {
                        let s = from + x * 4
                        blend(
                            eight(source[s]), eight(source[s + 1]), eight(source[s + 2]), eight(source[s + 3]),
                            at: to + x * 4)
                    }
                }
            }
        }
    }

    /// Hands the bytes the writer has produced since the last call to `sink`.
    private func drain(_ writer: OpaquePointer, into sink: inout ByteSink) throws(ImgToolError) {
        var length = 0
        guard let bytes = imgtool_jpeg_writer_output(writer, &length), length > 0 else { return }
        try sink.append(Array(UnsafeBufferPointer(start: bytes, count: length)))
    }

    private func check(_ status: imgtool_jpeg_status, writer: OpaquePointer) throws(ImgToolError) {
        guard status != IMGTOOL_JPEG_OK else { return }
        let message = String(cString: imgtool_jpeg_writer_message(writer))
        switch status {
        case IMGTOOL_JPEG_TOO_LARGE:
            throw ImgToolError(.tooLarge, "out of memory while encoding JPEG", cause: message)
        default:
            throw ImgToolError(.invalidArgument, "libjpeg refused to encode: \(message)", cause: message)
        }
    }
}
