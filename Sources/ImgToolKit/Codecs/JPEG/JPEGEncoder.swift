internal import CLibJPEG

/// Encodes a still ``PixelBuffer`` as a baseline or progressive JPEG with libjpeg (libjpeg-turbo),
/// through the `CLibJPEG` shim.
///
/// JPEG has no alpha: every pixel is first flattened onto ``background`` (source-over, rounded).
/// Huffman tables are always computed for the image (as libjpeg's `optimize_coding`: a few
/// percent smaller). Output is JFIF, YCbCr, without EXIF: the pixels are written upright, so no
/// orientation tag is needed.
///
/// A baseline image of 512x512 pixels or more is encoded as two horizontal parts, on two threads
/// when there are two processors: each part by its own libjpeg compressor, with a restart marker
/// after every row of MCUs (8 or 16 rows of pixels) so that the parts join at one, and Huffman
/// tables built from the symbols of both (see `imgtool_jpeg_split_create` in the CLibJPEG shim).
/// The file is the one libjpeg writes in one piece with that restart interval, byte for byte, and
/// the same whatever the number of processors; its pixels are those of a file without restart
/// markers, which is smaller by the markers alone (about 2.5 bytes an MCU row: 1.2 KB, 0.06 %, for
/// a 4096x4096 photo).
public struct JPEGEncoder: Sendable {
    /// The quality used when none is given: 85.
    ///
    /// libjpeg, Pillow and libvips default to 75, sharp to 80; ImageMagick reuses the input's
    /// quality (else 92). imgtool's typical JPEG is a photo with a logo or text merged onto it,
    /// and at 75 the sharp edges of that overlay ring and smear. Measured on a 1800x1200 photo
    /// with a 1024x512 logo (butteraugli distance from the exact merge, lower is better;
    /// `scripts/bench jpeg` does the same at 4096x4096): quality 75 with 4:2:0 chroma gives 330
    /// KB at 6.3; 85 with 4:4:4 489 KB at 2.8; 90 with 4:4:4 539 KB at 1.9. 85 is where the
    /// overlay's luma stops showing damage at a normal viewing size.
    public static let defaultQuality = 85

    /// From this quality up, chroma is stored at full resolution (4:4:4) unless ``chroma`` says
    /// otherwise; below it, at half resolution both ways (4:2:0), as libvips, Pillow, sharp and
    /// ImageMagick do below 90.
    ///
    /// Halved chroma takes 12-33 % off a photo's file at quality 85 (`scripts/bench
    /// jpeg-defaults`: 451 against 398 KiB for a 1800x1200 landscape, 440 against 296 for a
    /// 2048x1536 photo-like picture); what it costs is colour edges: a saturated logo's edges
    /// smear (quality 80 with 4:4:4, 421 KB at butteraugli distance 3.4, against 85 with 4:2:0,
    /// 425 KB at 4.9, on the photo with a logo above), and a photo with fine colour detail
    /// loses it (distance 1.2 at 4:4:4, 5.6 at 4:2:0, for the 1032x1017 photo of the tests'
    /// fixtures, stored 4:2:2). `chroma` (`--chroma 444`) keeps full chroma at any quality.
    public static let fullChromaQuality = 90

    /// How much of the chroma (Cb and Cr) resolution a JPEG keeps, against the luma's.
    public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable, Codable {
        /// 4:4:4: full resolution (luma sampling factors 1x1).
        case full = "444"
        /// 4:2:2: half across, full down (luma 2x1).
        case halfAcross = "422"
        /// 4:2:0: half both ways (luma 2x2); a quarter of the chroma samples.
        case half = "420"
    }

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
    /// The chroma subsampling; `nil` (the default) chooses by ``quality``: 4:2:0 below
    /// ``fullChromaQuality``, 4:4:4 from it up.
    public var chroma: ChromaSubsampling?
    /// Marker segments (APP1 EXIF and XMP, APP2 ICC) written after SOI and JFIF; see
    /// ``describing(_:)``.
    var segments: [UInt8] = []

    /// Creates an encoder.
    /// - Parameters:
    ///   - quality: 1-100; `nil` (the default) is ``defaultQuality``.
    ///   - progressive: progressive output. Default `false`.
    ///   - background: what alpha is flattened onto. Default white.
    ///   - chroma: the chroma subsampling; `nil` (the default) chooses by quality (see
    ///     ``fullChromaQuality``).
    public init(
        quality: Int? = nil, progressive: Bool = false, background: RGBAColor = .white,
        chroma: ChromaSubsampling? = nil
    ) {
        self.quality = quality ?? Self.defaultQuality
        self.progressive = progressive
        self.background = background
        self.chroma = chroma
    }

    /// The chroma subsampling written: ``chroma`` when set, else 4:2:0 below
    /// ``fullChromaQuality`` and 4:4:4 from it up.
    public var chromaSubsampling: ChromaSubsampling {
        chroma ?? (quality < Self.fullChromaQuality ? .half : .full)
    }

    /// Whether chroma is subsampled at all (4:2:0 or 4:2:2; else 4:4:4).
    public var subsamplesChroma: Bool { chromaSubsampling != .full }

    /// Encodes `image` into memory.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty or oversized image or a quality
    ///   outside 1-100, `tooLarge` when memory runs out.
    public func encode(_ image: PixelBuffer) throws(ImgToolError) -> [UInt8] {
        var sink = ByteSink()
        try write(image, into: &sink)
        return sink.bytes
    }

    /// Least pixels for a split encode: 512x512.
    ///
    /// Measured on crops of a photo (`scripts/bench jpeg`'s), a split encode costs less processor
    /// time than libjpeg's two-pass optimize_coding even on one thread (512x512 at quality 85:
    /// 1.4 ms against 2.0; at 75, 0.59 against 0.71), and on two threads takes 0.80 and 0.57 ms.
    /// At 256x256 and quality 75 the second thread costs more than it saves (0.26 against
    /// 0.19 ms), and the restart markers weigh more in a small file.
    static let splitThreshold = 1 << 18

    /// When to encode in two parts; tests force either way.
    enum SplitPolicy: Sendable {
        /// From ``JPEGEncoder/splitThreshold`` pixels up.
        case automatic
        /// Never: one libjpeg compressor with optimize_coding.
        case never
        /// Whenever the image has two rows of MCUs or more.
        case always
    }

    /// When to encode in two parts (baseline files only).
    var splitPolicy = SplitPolicy.automatic
    /// Processors to use; a split encode runs its parts one after the other on one. The bytes
    /// written do not depend on it.
    var processors = availableProcessors
    /// Whether a split encode keeps the symbols it decodes while counting them (at most 64 bytes
    /// a block, half of what libjpeg's one-piece optimize_coding keeps) rather than decoding
    /// them again to re-code them: 8 ms against 25 for a 4096x4096 photo. The bytes written do
    /// not depend on it; tests turn it off.
    var keepsSymbols = true

    /// The first row of a split encode's second part, or `nil` to encode in one piece: a
    /// baseline Huffman file (not progressive, not arithmetic-coded, no restart interval asked
    /// for) of ``splitThreshold`` pixels or more, cut at the row of MCUs that halves the rows
    /// of MCUs (rounding the first part up).
    func splitRow(width: Int, height: Int) -> Int? {
        guard !progressive, !arithmeticCoding, restartInterval == 0, splitPolicy != .never,
            splitPolicy == .always || width * height >= Self.splitThreshold
        else { return nil }
        let mcuHeight = chromaSubsampling == .half ? 16 : 8
        let mcuRows = (height + mcuHeight - 1) / mcuHeight
        guard mcuRows >= 2 else { return nil }
        return (mcuRows + 1) / 2 * mcuHeight
    }

    /// Encodes `image` into `sink`, handing it the bytes as each band of rows is compressed (a
    /// split encode hands them over at the end).
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
        var params = imgtool_jpeg_write_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.quality = Int32(quality)
        params.progressive = progressive ? 1 : 0
        params.optimize = 1
        params.subsample =
            switch chromaSubsampling {
            case .full: 0
            case .half: 1
            case .halfAcross: 2
            }
        params.arithmetic = arithmeticCoding ? 1 : 0
        params.restart_interval = UInt32(clamping: restartInterval)
        if let split = splitRow(width: image.width, height: image.height) {
            return try writeSplit(image, at: split, params: params, into: &sink)
        }
        guard let writer = imgtool_jpeg_writer_create() else {
            throw ImgToolError(.tooLarge, "out of memory creating a JPEG writer")
        }
        defer { imgtool_jpeg_writer_destroy(writer) }
        try check(imgtool_jpeg_writer_begin(writer, &params), writer: writer)
        try drain(writer, into: &sink, isFirst: true)

        // With optimized tables libjpeg keeps every coefficient for a second pass; their fresh
        // pages are mapped on a second thread while this one encodes.
        var arrays = [imgtool_jpeg_memory](repeating: imgtool_jpeg_memory(), count: Int(IMGTOOL_JPEG_MAX_ARRAYS))
        let found = Int(imgtool_jpeg_writer_arrays(writer, &arrays))
        let buffers = arrays.prefix(found).map { UnsafeMutableRawBufferPointer(start: $0.start, count: $0.length) }
        guard buffers.reduce(0, { $0 + $1.count }) >= PagePopulation.threshold, processors > 1 else {
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
        try forEachBand(of: image, rows: 0..<image.height, shouldStop: { Task.isCancelled }) {
            (base: UnsafePointer<UInt8>, count: Int) throws(ImgToolError) in
            try check(imgtool_jpeg_writer_write_rows(writer, base, image.width * 4, UInt32(count)), writer: writer)
            try drain(writer, into: &sink)
        }
        try check(imgtool_jpeg_writer_finish(writer), writer: writer)
        try drain(writer, into: &sink)
    }

    /// Hands `body` the rows `rows` of `image` in bands of up to 64, as 8-bit RGBX with rows
    /// `image.width * 4` bytes apart, checking `shouldStop` before each band.
    ///
    /// Opaque 8-bit rows go to libjpeg as they are (it reads RGBX and skips the fourth byte);
    /// others are flattened onto the background into a band buffer first.
    private func forEachBand(
        of image: PixelBuffer, rows: Range<Int>, shouldStop: () -> Bool,
        _ body: (UnsafePointer<UInt8>, Int) throws(ImgToolError) -> Void
    ) throws(ImgToolError) {
        let band = 64
        var flattened: [UInt8] = []
        var row = rows.lowerBound
        while row < rows.upperBound {
            if shouldStop() { throw ImgToolError(.cancelled, "cancelled while encoding row \(row)") }
            let count = min(band, rows.upperBound - row)
            let direct = try Self.withOpaqueRows(of: image, rows: row..<row + count) {
                (base: UnsafePointer<UInt8>) throws(ImgToolError) in
                try body(base, count)
            }
            if !direct {
                if flattened.isEmpty { flattened = [UInt8](repeating: 0, count: band * image.width * 4) }
                flatten(image, rows: row..<row + count, into: &flattened)
                try flattened.withUnsafeBufferPointer { buffer throws(ImgToolError) in
                    guard let base = buffer.baseAddress else { return }
                    try body(base, count)
                }
            }
            row += count
        }
    }

    /// Encodes `image` in two parts, rows `0..<split` and `split..<height` (see ``splitRow``):
    /// each part is compressed and its symbols counted, on two threads when there are two
    /// processors; the tables are built from both parts' counts; each part is re-coded with them,
    /// on two threads again; then the file goes to `sink`.
    private func writeSplit(
        _ image: PixelBuffer, at split: Int, params: imgtool_jpeg_write_params, into sink: inout ByteSink
    ) throws(ImgToolError) {
        guard let handle = imgtool_jpeg_split_create(2, keepsSymbols ? 1 : 0) else {
            throw ImgToolError(.tooLarge, "out of memory creating a JPEG writer")
        }
        defer { imgtool_jpeg_split_destroy(handle) }
        let job = SplitEncode(handle: handle, params: params, parts: [0..<split, split..<image.height])
        try inParts { (part: Int, shouldStop: () -> Bool) throws(ImgToolError) in
            try encodePart(part, of: image, job: job, shouldStop: shouldStop)
        }
        try job.check(imgtool_jpeg_split_join(handle), part: -1)
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while encoding") }
        try inParts { (part: Int, _: () -> Bool) throws(ImgToolError) in
            try job.check(imgtool_jpeg_split_transcode_part(job.handle, Int32(part)), part: part)
        }
        for part in job.parts.indices {
            var length = 0
            guard let bytes = imgtool_jpeg_split_output(handle, Int32(part), &length) else { continue }
            let output = Array(UnsafeBufferPointer(start: bytes, count: length))
            try sink.append(part == 0 ? insertingSegments(into: output) : output)
        }
    }

    /// Compresses part `part` of a split encode (`job.parts[part]` of `image`'s rows) and counts
    /// its symbols.
    private func encodePart(_ part: Int, of image: PixelBuffer, job: SplitEncode, shouldStop: () -> Bool)
        throws(ImgToolError)
    {
        let rows = job.parts[part]
        var params = job.params
        try job.check(
            imgtool_jpeg_split_begin_part(
                job.handle, Int32(part), &params, UInt32(rows.lowerBound), UInt32(rows.count)),
            part: part)
        try forEachBand(of: image, rows: rows, shouldStop: shouldStop) {
            (base: UnsafePointer<UInt8>, count: Int) throws(ImgToolError) in
            try job.check(
                imgtool_jpeg_split_write_rows(job.handle, Int32(part), base, image.width * 4, UInt32(count)),
                part: part)
        }
        try job.check(imgtool_jpeg_split_finish_part(job.handle, Int32(part)), part: part)
    }

    /// Runs `body` for parts 0 and 1: part 1 on a second thread while part 0 runs on this one
    /// when there are two processors, else one after the other. `body`'s second argument says
    /// whether to stop: on this thread when the task is cancelled or the other part failed, on
    /// the other when this one stopped. The first error is thrown (the cancellation, rather than
    /// the other part's stop it caused).
    private func inParts(_ body: @escaping @Sendable (Int, () -> Bool) throws(ImgToolError) -> Void)
        throws(ImgToolError)
    {
        guard processors > 1 else {
            try body(0, { Task.isCancelled })
            try body(1, { Task.isCancelled })
            return
        }
        _ = try forkJoinStoppingOnFailure(
            { (shouldStop: () -> Bool) throws(ImgToolError) in try body(1, shouldStop) },
            alongside: { (shouldStop: () -> Bool) throws(ImgToolError) in try body(0, shouldStop) })
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
    /// The first call's bytes (SOI, JFIF) get ``segments`` after them.
    private func drain(_ writer: OpaquePointer, into sink: inout ByteSink, isFirst: Bool = false)
        throws(ImgToolError)
    {
        var length = 0
        guard let bytes = imgtool_jpeg_writer_output(writer, &length), length > 0 else { return }
        let output = Array(UnsafeBufferPointer(start: bytes, count: length))
        try sink.append(isFirst ? insertingSegments(into: output) : output)
    }

    private func check(_ status: imgtool_jpeg_status, writer: OpaquePointer) throws(ImgToolError) {
        guard status != IMGTOOL_JPEG_OK else { return }
        throw Self.error(status, message: String(cString: imgtool_jpeg_writer_message(writer)))
    }

    /// The error for a failed shim call, with libjpeg's (or the shim's) message as the cause.
    static func error(_ status: imgtool_jpeg_status, message: String) -> ImgToolError {
        switch status {
        case IMGTOOL_JPEG_TOO_LARGE:
            ImgToolError(.tooLarge, "out of memory while encoding JPEG", cause: message)
        default:
            ImgToolError(.invalidArgument, "libjpeg refused to encode: \(message)", cause: message)
        }
    }
}

/// A split encode's shim handle and plan, shared by the threads that encode its parts.
///
/// `@unchecked Sendable`: the handle is used by two threads only for different parts at once,
/// which the shim allows (each part has its own compressor and state), and joined by one, after
/// ``forkJoinStoppingOnFailure(_:alongside:)`` has returned.
private struct SplitEncode: @unchecked Sendable {
    let handle: OpaquePointer
    /// The whole image's parameters.
    let params: imgtool_jpeg_write_params
    /// Each part's rows.
    let parts: [Range<Int>]

    /// Throws the error for `status`, with the message of `part` (-1: the join's).
    func check(_ status: imgtool_jpeg_status, part: Int) throws(ImgToolError) {
        guard status != IMGTOOL_JPEG_OK else { return }
        throw JPEGEncoder.error(status, message: String(cString: imgtool_jpeg_split_message(handle, Int32(part))))
    }
}
