internal import CLibJPEG

#if canImport(Glibc)
    import Glibc
#endif

/// What a JPEG's markers before the first scan declare.
struct JPEGHeader: Sendable, Hashable {
    /// The colour space of the stored samples, as libjpeg infers it.
    enum ColorSpace: String, Sendable, Hashable {
        case gray, rgb, ycbcr, cmyk, ycck, unknown
    }

    /// The size in the frame header (SOF), as stored.
    var width: Int
    var height: Int
    var components: Int
    /// Bits per sample (8 or 12).
    var precision: Int
    var colorSpace: ColorSpace
    /// The Adobe APP14 transform flag, `nil` without an Adobe marker.
    var adobeTransform: Int?
    var hasJFIF: Bool
    var isProgressive: Bool
    var isArithmetic: Bool
    var restartInterval: Int
    var hasEXIF: Bool
    var hasICCProfile: Bool
    /// Tag 0x0112 of the first APP1 `Exif` segment as stored, or `nil`.
    var exifOrientation: Int?
    /// The ICC profile of the APP2 segments, when they are complete and within the limit.
    var profile: ColorProfile?
    /// The first APP1 `Exif` segment's TIFF bytes, within the limit.
    var exif: [UInt8]?
    /// The first APP1 XMP packet, within the limit.
    var xmp: [UInt8]?
    /// Whether the data ends before the end-of-image marker (see ``JPEGDataEnd``): libjpeg decodes
    /// what arrived, and leaves the rest grey.
    var isTruncated = false
    /// Warnings libjpeg gave while reading the markers (junk between them, say).
    var warnings: [String]
}

extension JPEGHeader {
    /// The metadata of an image decoded from this JPEG, with the warnings given while decoding.
    func metadata(warnings: [String]) -> ImageMetadata {
        ImageMetadata(
            format: .jpeg, bitDepth: precision, colorType: components == 1 ? .gray : .rgb,
            color: color, warnings: warnings)
    }

    /// The colour description: the ICC profile; a CMYK profile was applied while decoding (the
    /// pixels are sRGB), so it is reported but describes no RGB sample.
    var color: ColorMetadata {
        ColorMetadata(hasICCProfile: hasICCProfile, profile: profile)
    }

    /// Whether the samples are CMYK converted through the profile (not the inverted-CMYK formula).
    var convertsCMYKThroughProfile: Bool {
        (colorSpace == .cmyk || colorSpace == .ycck) && profile?.isUsable == true && profile?.colorSpace == .cmyk
    }
}

/// Decodes JPEG data with libjpeg (libjpeg-turbo), through the `CLibJPEG` shim, so libjpeg's
/// longjmp never reaches Swift.
///
/// Output is 8-bit RGBA with A = 255, as libjpeg-turbo's default decode gives it (accurate integer
/// IDCT, fancy upsampling): YCbCr converted by libjpeg, grey copied to R, G and B, Adobe CMYK and
/// YCCK turned into RGB as libjpeg-turbo's `cmyk_to_rgb`. No ICC profile is applied. The rows are
/// written straight into their place in the displayed image, turned as the orientation says, so
/// turning costs no second image. A decoder is a one-shot value used within one task.
struct JPEGDecoder: Sendable {
    /// Limits checked before any pixel memory is allocated.
    var limits: DecodingLimits

    /// When a large image is decoded on two threads: in a pipeline (see
    /// ``pipelines(header:scaleDenominator:)``), or in two parts (see
    /// ``splitRow(header:output:scaleDenominator:firstShare:)``).
    enum SplitPolicy: Sendable {
        /// Always in one piece, on one thread.
        case never
        /// In a pipeline whenever the image qualifies (it costs no more processor time than one
        /// thread); in two parts when ``hasIdleProcessor()`` says a processor is free (the default).
        case whenIdle
        /// Whenever the image qualifies, busy or not (for tests).
        case always
    }

    /// When a large image is decoded on two threads. Default ``SplitPolicy/whenIdle``.
    var splitPolicy = SplitPolicy.whenIdle

    /// libjpeg's warning when the data ends early (`JWRN_JPEG_EOF`).
    static let prematureEnd = "Premature end of JPEG file"

    /// Most scans a progressive image may have; real encoders write about ten.
    static let maxScans = 1000

    /// Reads the markers up to the first scan, decoding no pixels.
    /// - Throws: ``ImgToolError`` `corrupt`, `truncated`, `tooLarge` or `unsupportedFormat`.
    func header(of data: [UInt8]) throws(ImgToolError) -> JPEGHeader {
        let end = JPEGDataEnd(of: data)
        return try data.withUnsafeBufferPointer { whole throws(ImgToolError) in
            let reader = try JPEGReader(
                bytes: UnsafeBufferPointer(rebasing: whole[..<end.usableLength]), limits: limits)
            defer { reader.close() }
            return try reader.readHeader(end: end)
        }
    }

    /// Decodes the image.
    /// - Parameters:
    ///   - data: the whole JPEG file; bytes after the first EOI are ignored.
    ///   - scaleDenominator: 1, 2, 4 or 8: decode at that fraction of the stored size (libjpeg's
    ///     DCT scaling, much cheaper than scaling afterwards).
    ///   - orientation: how to turn the image while its rows are stored.
    /// - Returns: the displayed image, and the warnings libjpeg gave (corrupt data it worked around;
    ///   "Premature end of JPEG file" for data cut short, whose rows not received are grey).
    /// - Throws: ``ImgToolError`` `corrupt`, `truncated` (the data ends before the first scan, or
    ///   libjpeg fails after the cut), `tooLarge`, `unsupportedFormat` or `cancelled`, naming no input.
    func decode(_ data: [UInt8], scaleDenominator: Int = 1, orientation: ImageOrientation = .up)
        throws(ImgToolError) -> (image: PixelBuffer, warnings: [String])
    {
        let end = JPEGDataEnd(of: data)
        return try data.withUnsafeBufferPointer { whole throws(ImgToolError) in
            let bytes = UnsafeBufferPointer(rebasing: whole[..<end.usableLength])
            let reader = try JPEGReader(bytes: bytes, limits: limits)
            defer { reader.close() }
            let header = try reader.readHeader(end: end)
            // The stored size bounds what libjpeg allocates (a progressive image's coefficients
            // are stored size), so it is what the limit is checked on, before anything is.
            try limits.checkPixels(width: header.width, height: header.height)
            // A large image is decoded on two threads: at the stored size, turned by whole rows,
            // in a pipeline (planes on one, pixels on the other) when its layout allows; else,
            // on an idle machine, in two bands (see splitRow).
            let second = SecondThread(splitPolicy)
            let planes =
                !orientation.swapsAxes && Self.pipelines(header: header, scaleDenominator: scaleDenominator)
                    && second.pipelines ? try reader.startPlanes() : nil
            let output =
                planes == nil
                ? try reader.start(scaleDenominator: scaleDenominator)
                : PixelSize(width: header.width, height: header.height)
            let split =
                planes == nil
                ? Self.splitRow(header: header, output: output, scaleDenominator: scaleDenominator).flatMap {
                    second.allowed ? $0 : nil
                } : nil
            let shown = orientation.displayedSize(of: output)
            var warnings: [String] = []
            var image = try PixelBuffer(width: shown.width, height: shown.height, depth: .eight) {
                (raw: UnsafeMutableRawBufferPointer) throws(ImgToolError) in
                if let planes, try Self.decodePipelined(reader, planes: planes, into: raw, orientation: orientation) {
                    return
                }
                if let split,
                    Self.decodeInTwo(
                        bytes, first: reader, split: split, limits: limits, into: raw, size: output,
                        scaleDenominator: scaleDenominator, orientation: orientation)
                {
                    return
                }
                // One reader, every row; a fresh one when a two-thread decode gave up part way.
                func readAll(_ single: JPEGReader) throws(ImgToolError) {
                    try single.readRows(into: raw, size: output, orientation: orientation, rows: 0..<output.height)
                    try single.finish()
                    warnings = single.warnings
                }
                guard split != nil || planes != nil else {
                    guard raw.count >= PagePopulation.threshold, availableProcessors > 1 else {
                        return try readAll(reader)
                    }
                    // The rows' fresh pages are mapped on a second thread, ahead of the rows.
                    let pages = PagesToPopulate(buffers: [raw])
                    let (_, done) = forkJoin(
                        { PagePopulation.populate(pages.buffers) },
                        alongside: { () -> Result<Void, ImgToolError> in
                            do throws(ImgToolError) {
                                return .success(try readAll(reader))
                            } catch {
                                return .failure(error)
                            }
                        })
                    return try done.get()
                }
                let fresh = try JPEGReader(bytes: bytes, limits: limits)
                defer { fresh.close() }
                _ = try fresh.readHeader()
                _ = try fresh.start(scaleDenominator: scaleDenominator)
                try readAll(fresh)
            }
            image.metadata = header.metadata(warnings: warnings)
            return (image, warnings)
        }
    }

    /// Decodes the image as stored (not turned), handing its rows to `consumer` as they are made:
    /// in a pipeline on two threads when the image is large YCbCr (see
    /// ``pipelines(header:scaleDenominator:)``; the rows reach the consumer on this thread, as one
    /// band); else on two threads, one a band, when a processor is free, the image would be
    /// decoded in two parts (see ``splitRow(header:output:scaleDenominator:firstShare:)``) and the
    /// consumer takes two bands, else on this one. Rows above the first band are skipped, rows
    /// below the last are decoded and dropped (so that damage there is still found), as one piece
    /// would find it. Off the pipeline, libjpeg decodes only the columns the consumer reads
    /// (``RowBandConsumer/columns``, with a margin that keeps their pixels exact); a consumer that
    /// reads at most half of them is never served by the pipeline.
    /// - Parameters:
    ///   - data: the whole JPEG file.
    ///   - scaleDenominator: 1, 2, 4 or 8, as for ``decode(_:scaleDenominator:orientation:)``.
    ///   - consumer: takes the rows; its ``RowBandConsumer/sourceSize`` must be the decoded size.
    /// - Returns: the image's metadata, or `nil` when libjpeg failed or warned, or the decoded
    ///   size is not the consumer's. The rows handed over are then not to be used; ``decode(_:scaleDenominator:orientation:)``
    ///   gives the exact error, warnings and pixels of one piece.
    /// - Throws: ``ImgToolError`` `cancelled` only.
    func stream(_ data: [UInt8], scaleDenominator: Int, to consumer: some RowBandConsumer) throws(ImgToolError)
        -> ImageMetadata?
    {
        let end = JPEGDataEnd(of: data)
        return try data.withUnsafeBufferPointer { whole throws(ImgToolError) -> ImageMetadata? in
            do throws(ImgToolError) {
                let bytes = UnsafeBufferPointer(rebasing: whole[..<end.usableLength])
                let reader = try JPEGReader(bytes: bytes, limits: limits)
                defer { reader.close() }
                let header = try reader.readHeader(end: end)
                try limits.checkPixels(width: header.width, height: header.height)
                guard header.warnings.isEmpty else { return nil }
                let second = SecondThread(splitPolicy)
                // A consumer that reads at most half the columns is served on one thread, with
                // only those columns decoded: the pipeline decodes every one.
                let narrow = consumer.columns.map { $0.count * 2 <= consumer.sourceSize.width } ?? false
                if !narrow, Self.pipelines(header: header, scaleDenominator: scaleDenominator),
                    PixelSize(width: header.width, height: header.height) == consumer.sourceSize,
                    let band = consumer.bands(splittingNear: nil).first, second.pipelines,
                    let planes = try reader.startPlanes()
                {
                    return try Self.streamPipelined(reader, planes: planes, band: band, into: consumer)
                        ? header.metadata(warnings: []) : nil
                }
                let size = try reader.start(scaleDenominator: scaleDenominator)
                guard size == consumer.sourceSize else { return nil }
                // Each thread also filters its rows, work the second thread's skipped rows do not
                // have: the split moves towards the middle (see splitRow).
                let split = Self.splitRow(
                    header: header, output: size, scaleDenominator: scaleDenominator,
                    firstShare: Self.streamingFirstShare
                ).flatMap { second.allowed ? $0 : nil }
                let bands = consumer.bands(splittingNear: split)
                if split != nil, bands.count == 2 {
                    let done = Self.inTwo(
                        bytes, first: reader, limits: limits, scaleDenominator: scaleDenominator,
                        head: { reader throws(ImgToolError) in
                            try reader.stream(band: 0, rows: bands[0], through: bands[0].upperBound, into: consumer)
                        },
                        tail: { reader throws(ImgToolError) in
                            try reader.stream(band: 1, rows: bands[1], through: size.height, into: consumer)
                        })
                    if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding") }
                    return done ? header.metadata(warnings: []) : nil
                }
                guard bands.count == 1 else { return nil }
                try reader.stream(band: 0, rows: bands[0], through: size.height, into: consumer)
                try reader.finish()
                return reader.warningCount == 0 ? header.metadata(warnings: []) : nil
            } catch {
                if error.code == .cancelled { throw error }
                return nil
            }
        }
    }

    /// The first thread's share of the rows, in percent, when decoding into a consumer that
    /// filters every row (see ``stream(_:scaleDenominator:to:)``).
    static let streamingFirstShare = 60

    /// Whether a second thread may be used, as ``splitPolicy`` says: for a pipeline, unless the
    /// policy is ``SplitPolicy/never``; for a decode in two parts, which pays the skipped rows'
    /// entropy decoding twice, only when a processor is idle, asked at most once per decode and
    /// only of images large enough to use one (asking can take 0.4 ms on a busy machine).
    private final class SecondThread {
        private let policy: SplitPolicy
        private var answer: Bool?

        init(_ policy: SplitPolicy) { self.policy = policy }

        /// Whether a pipeline may be used: it does no work twice and costs no more processor
        /// time than one thread, so it runs on a busy machine too, its second thread taking
        /// whatever time a processor has.
        var pipelines: Bool { policy != .never }

        var allowed: Bool {
            if let answer { return answer }
            let allowed = policy == .always || (policy == .whenIdle && JPEGDecoder.hasIdleProcessor())
            answer = allowed
            return allowed
        }
    }

    /// Whether an image is decoded in a pipeline (``JPEGReader/readPipelined(planes:place:took:)``),
    /// idle processor or not: at the stored size, a million pixels or more, with clean markers,
    /// sequential or progressive (its layout is checked when decoding starts). The second thread
    /// does libjpeg's upsampling and colour conversion, no work twice, and the two meet once
    /// every 16 row groups, so it costs no more processor time than one thread (a 4096x4096
    /// 4:2:0 photo: 38.4 ms against 39.1 ms, whole process).
    static func pipelines(header: JPEGHeader, scaleDenominator: Int) -> Bool {
        availableProcessors > 1 && scaleDenominator == 1 && header.warnings.isEmpty
            && header.width * header.height >= splitThreshold && header.height >= 64
    }

    /// Least stored pixels for a decode in two parts (one million: about 3 ms of decoding,
    /// against the tenth of a millisecond that starting a thread and a second reader costs).
    static let splitThreshold = 1 << 20

    /// The output row at which a second thread takes over, or `nil` to decode on one thread: a
    /// sequential (not progressive) image with clean markers whose output (at full size or DCT
    /// scaled) has a million pixels or more, on a machine with two processors or more.
    ///
    /// The second thread skips the rows above the split (`jpeg_skip_scanlines`: their Huffman
    /// data is read, about 45 % of a photo's decoding, but no pixels are made), then decodes the
    /// rest; the first decodes the rows above. The split evens out the two: with a fraction `h`
    /// of the work in Huffman decoding, the first thread takes `1 / (2 - h)` of the rows, about
    /// 0.62 for photos. It falls on a multiple of 16 rows (an iMCU row of 4:2:0 data), so that
    /// neither thread decodes an iMCU row that the other also needs.
    static func splitRow(header: JPEGHeader, output: PixelSize, scaleDenominator: Int, firstShare: Int = 62)
        -> Int?
    {
        guard availableProcessors > 1, !header.isProgressive, header.warnings.isEmpty,
            output.width * output.height >= splitThreshold, output.height >= 64
        else { return nil }
        let split = (output.height * firstShare / 100) & ~15
        return split > 0 && split < output.height ? split : nil
    }

    /// Whether a processor is idle now: fewer threads are running or ready to run in the whole
    /// system than there are processors for this process. The count is the fourth field of
    /// `/proc/loadavg` ("running/total"), which includes the calling thread. On a busy machine a
    /// second thread only takes time from the first, and the split's extra work (reading the
    /// skipped rows' Huffman data, a quarter more CPU time) is then pure cost. A count that says
    /// busy is read twice more, 0.2 ms apart, and believed only if both agree: a thread that
    /// runs for an instant (another of this process's, finishing its part of starting up) made
    /// about one decode in six run on one thread on an idle machine. `true` where `/proc` cannot
    /// be read.
    static func hasIdleProcessor() -> Bool {
        #if canImport(Glibc)
            for attempt in 0..<3 {
                guard let running = runningThreads() else { return true }
                if running < availableProcessors { return true }
                if attempt < 2 { usleep(200) }
            }
            return false
        #else
            return true
        #endif
    }

    #if canImport(Glibc)
        /// The threads running or ready to run in the whole system, from `/proc/loadavg`; `nil`
        /// where it cannot be read.
        private static func runningThreads() -> Int? {
            let descriptor = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var text = [UInt8](repeating: 0, count: 128)
            let count = text.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            // "0.52 0.58 0.59 2/467 12345": the number before the slash.
            let fields = text[0..<count].split(separator: UInt8(ascii: " "))
            guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")) else { return nil }
            return Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        }
    #endif

    /// Decodes rows `0..<split` with `first` while a second thread decodes the rest with a
    /// reader of its own; returns whether both finished cleanly. When either fails or libjpeg
    /// warns (damaged data), the rows written are not to be trusted and the caller decodes the
    /// whole image again on one thread, so that errors, warnings and pixels are exactly those of
    /// a decode in one piece.
    private static func decodeInTwo(
        _ bytes: UnsafeBufferPointer<UInt8>, first: JPEGReader, split: Int, limits: DecodingLimits,
        into raw: UnsafeMutableRawBufferPointer, size: PixelSize, scaleDenominator: Int, orientation: ImageOrientation
    ) -> Bool {
        let pixels = SplitPixels(pixels: raw)
        return inTwo(
            bytes, first: first, limits: limits, scaleDenominator: scaleDenominator,
            head: { reader throws(ImgToolError) in
                try reader.readRows(into: raw, size: size, orientation: orientation, rows: 0..<split)
            },
            tail: { reader throws(ImgToolError) in
                try reader.skipRows(split)
                try reader.readRows(
                    into: pixels.pixels, size: size, orientation: orientation, rows: split..<size.height)
            })
    }

    /// Decodes the image started by ``JPEGReader/startPlanes()`` in a pipeline into its displayed
    /// place (orientations 1-4: rows kept whole, written upwards for 3 and 4, mirrored in place
    /// for 2 and 3). Returns whether it succeeded with no warning.
    private static func decodePipelined(
        _ reader: JPEGReader, planes: imgtool_jpeg_planes, into raw: UnsafeMutableRawBufferPointer,
        orientation: ImageOrientation
    ) throws(ImgToolError) -> Bool {
        guard let base = raw.baseAddress else { return false }
        let placement = WholeRowPlacement(
            base: base, size: PixelSize(width: Int(planes.width), height: Int(planes.height)), orientation: orientation)
        return try reader.readPipelined(
            planes: planes, place: { first in (placement.row(first), placement.stride) },
            took: { first, count in placement.finish(first..<first + count) })
    }

    /// Decodes the image started by ``JPEGReader/startPlanes()`` in a pipeline, handing the rows
    /// of `band` to `consumer` (band 0) on this thread as they are made. Returns whether it
    /// succeeded with no warning.
    private static func streamPipelined(
        _ reader: JPEGReader, planes: imgtool_jpeg_planes, band: Range<Int>, into consumer: some RowBandConsumer
    ) throws(ImgToolError) -> Bool {
        let rowBytes = Int(planes.width) * 4
        let scratch = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Int(planes.group_rows) * rowBytes, alignment: 64)
        defer { scratch.deallocate() }
        guard let base = scratch.baseAddress else { return false }
        return try reader.readPipelined(
            planes: planes, place: { _ in (base, rowBytes) },
            took: { first, count in
                for index in 0..<count where band.contains(first + index) {
                    let line = UnsafeRawBufferPointer(rebasing: scratch[index * rowBytes..<(index + 1) * rowBytes])
                    consumer.take(line, row: first + index, band: 0)
                }
            })
    }

    /// Runs `head` with `first` while a second thread runs `tail` with a reader of its own,
    /// started at `scaleDenominator`, then reads the end of the data with it; returns whether
    /// both finished without an error or a warning.
    private static func inTwo(
        _ bytes: UnsafeBufferPointer<UInt8>, first: JPEGReader, limits: DecodingLimits, scaleDenominator: Int,
        head: (JPEGReader) throws(ImgToolError) -> Void,
        tail: @escaping @Sendable (JPEGReader) throws(ImgToolError) -> Void
    ) -> Bool {
        let shared = SharedBytes(bytes: bytes)
        let (tailDone, headDone) = forkJoin(
            { () -> Bool in
                do throws(ImgToolError) {
                    let second = try JPEGReader(bytes: shared.bytes, limits: limits)
                    defer { second.close() }
                    _ = try second.readHeader()
                    _ = try second.start(scaleDenominator: scaleDenominator)
                    try tail(second)
                    try second.finish()
                    return second.warningCount == 0
                } catch {
                    return false
                }
            },
            alongside: { () -> Bool in
                do throws(ImgToolError) {
                    try head(first)
                    return first.warningCount == 0
                } catch {
                    return false
                }
            })
        return headDone && tailDone
    }
}

/// The displayed image's memory, handed to the second thread of a split decode.
///
/// `@unchecked Sendable`: it belongs to the caller of ``forkJoin(_:alongside:)``, which returns
/// only after the second thread has finished; that thread only writes the rows below the split,
/// which the first thread never touches.
private struct SplitPixels: @unchecked Sendable {
    let pixels: UnsafeMutableRawBufferPointer
}

/// The JPEG's bytes, handed to the second thread of a decode in two parts.
///
/// `@unchecked Sendable`: they belong to the caller of ``forkJoin(_:alongside:)``, which returns
/// only after the second thread has finished, and are only read.
private struct SharedBytes: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>
}

/// The pipeline handed to its decoding thread.
///
/// `@unchecked Sendable`: the pipeline is made for two threads (they meet through its atomics and
/// lock), and it is freed only after ``forkJoin(_:alongside:)`` has joined that thread.
private struct SharedPipeline: @unchecked Sendable {
    let pipe: OpaquePointer
}

/// Where whole stored rows go in the displayed image for orientations 1-4: upwards for 3 and 4,
/// mirrored in place for 2 and 3. Shared by the decode in one piece and the pipelined decode.
private struct WholeRowPlacement {
    let base: UnsafeMutableRawPointer
    let width: Int
    let height: Int
    let upwards: Bool
    let mirrored: Bool

    init(base: UnsafeMutableRawPointer, size: PixelSize, orientation: ImageOrientation) {
        self.base = base
        width = size.width
        height = size.height
        upwards = orientation == .down || orientation == .downMirrored
        mirrored = orientation == .upMirrored || orientation == .down
    }

    /// Bytes from one stored row to the next in the displayed image.
    var stride: Int { upwards ? -width * 4 : width * 4 }

    /// Where stored row `row` is shown.
    func row(_ row: Int) -> UnsafeMutableRawPointer { base + (upwards ? height - 1 - row : row) * width * 4 }

    /// Mirrors the stored rows `rows` once they are in place, when the orientation mirrors.
    func finish(_ rows: Range<Int>) {
        guard mirrored else { return }
        for stored in rows {
            var line = UnsafeMutableBufferPointer(start: row(stored).assumingMemoryBound(to: UInt32.self), count: width)
            line.reverse()
        }
    }
}

/// Owns one `imgtool_jpeg_reader`; every call maps the shim's status to an ``ImgToolError``.
private final class JPEGReader {
    private let handle: OpaquePointer
    private var cHeader = imgtool_jpeg_header()
    private let maxMetadataBytes: Int
    /// The CMYK profile's transform, kept alive while libjpeg calls it.
    private var cmykTransform: ColorTransform?

    init(bytes: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) throws(ImgToolError) {
        // libjpeg's own bound on what it allocates: the coefficients of a progressive image (2
        // bytes a sample, up to 4 samples a pixel) plus working rows, for the largest image allowed.
        let (memory, overflow) = limits.maxPixels.multipliedReportingOverflow(by: 12)
        guard let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1),
            let handle = imgtool_jpeg_reader_create(
                base, bytes.count, overflow ? Int.max : memory + (64 << 20), Int32(JPEGDecoder.maxScans))
        else {
            throw ImgToolError(.tooLarge, "out of memory creating a JPEG reader")
        }
        self.handle = handle
        self.maxMetadataBytes = limits.maxChunkBytes
    }

    func close() { imgtool_jpeg_reader_destroy(handle) }

    /// How many warnings libjpeg gave so far (`imgtool_jpeg_reader_warning_count`).
    var warningCount: Int { imgtool_jpeg_reader_warning_count(handle) }

    /// The distinct warnings libjpeg gave so far.
    var warnings: [String] {
        let text = String(cString: imgtool_jpeg_reader_warnings(handle))
        return text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
    }

    /// `imgtool_jpeg_reader_read_header`, and the EXIF orientation; a cut `end` is the first
    /// warning.
    func readHeader(end: JPEGDataEnd? = nil) throws(ImgToolError) -> JPEGHeader {
        try check(imgtool_jpeg_reader_read_header(handle, &cHeader), phase: "reading the markers")
        var length = 0
        let exif = imgtool_jpeg_reader_exif(handle, &length)
        let orientation = exif.flatMap {
            EXIFReader.orientation(inAPP1: Array(UnsafeBufferPointer(start: $0, count: length)))
        }
        let colorSpace: JPEGHeader.ColorSpace =
            switch cHeader.color {
            case IMGTOOL_JPEG_COLOR_GRAY: .gray
            case IMGTOOL_JPEG_COLOR_RGB: .rgb
            case IMGTOOL_JPEG_COLOR_YCBCR: .ycbcr
            case IMGTOOL_JPEG_COLOR_CMYK: .cmyk
            case IMGTOOL_JPEG_COLOR_YCCK: .ycck
            default: .unknown
            }
        var header = JPEGHeader(
            width: Int(cHeader.width), height: Int(cHeader.height), components: Int(cHeader.components),
            precision: Int(cHeader.precision), colorSpace: colorSpace,
            adobeTransform: cHeader.adobe_transform < 0 ? nil : Int(cHeader.adobe_transform),
            hasJFIF: cHeader.has_jfif != 0, isProgressive: cHeader.progressive != 0,
            isArithmetic: cHeader.arithmetic != 0, restartInterval: Int(cHeader.restart_interval),
            hasEXIF: cHeader.has_exif != 0, hasICCProfile: cHeader.has_icc != 0, exifOrientation: orientation,
            isTruncated: end?.truncation != nil, warnings: (end?.truncation).map { [$0] + warnings } ?? warnings)
        readMetadata(into: &header, exif: exif.map { UnsafeBufferPointer(start: $0, count: length) })
        if header.convertsCMYKThroughProfile, let profile = header.profile {
            do {
                let transform = try ColorTransform.make(
                    from: profile, to: nil, layout: header.adobeTransform == nil ? .cmyk : .cmykInverted)
                imgtool_jpeg_reader_set_cmyk_transform(handle, transform.handle)
                cmykTransform = transform
            } catch {
                header.warnings.append("the CMYK profile cannot be used (\(error.message)); CMYK converted without it")
                header.profile = nil
            }
        }
        return header
    }

    /// The ICC profile, EXIF and XMP blocks, each within the limit (a larger one is left out with
    /// a warning), and a warning for a profile Little CMS cannot read.
    private func readMetadata(into header: inout JPEGHeader, exif: UnsafeBufferPointer<UInt8>?) {
        let limit = maxMetadataBytes
        func within(_ count: Int, _ what: String) -> Bool {
            guard count <= limit else {
                header.warnings.append("\(what) of \(count) bytes is over the limit of \(limit) bytes; left out")
                return false
            }
            return true
        }
        if let exif, exif.count > 6, within(exif.count, "the EXIF block") {
            header.exif = Array(exif[6...])  // after "Exif\0\0"
        }
        var length = 0
        if let xmp = imgtool_jpeg_reader_xmp(handle, &length), within(length, "the XMP packet") {
            header.xmp = Array(UnsafeBufferPointer(start: xmp, count: length))
        }
        var complete: Int32 = 0
        let iccLength = imgtool_jpeg_reader_icc_length(handle, &complete)
        guard header.hasICCProfile else { return }
        guard complete != 0, iccLength > 0 else {
            header.warnings.append("the ICC profile's APP2 segments are incomplete; colours read as sRGB")
            return
        }
        guard within(iccLength, "the ICC profile") else { return }
        let bytes = [UInt8](unsharedUninitializedCapacity: iccLength) { buffer, initialized in
            initialized = imgtool_jpeg_reader_icc_copy(handle, buffer.baseAddress, iccLength) != 0 ? iccLength : 0
        }
        guard bytes.count == iccLength else { return }
        let profile = ColorProfile(data: bytes)
        if let warning = profile.unusableWarning { header.warnings.append(warning) }
        header.profile = profile
    }

    /// `imgtool_jpeg_reader_start`: the size of the rows to come.
    func start(scaleDenominator: Int) throws(ImgToolError) -> PixelSize {
        try check(
            imgtool_jpeg_reader_start(handle, Int32(scaleDenominator), &cHeader), phase: "starting to decode")
        return PixelSize(width: Int(cHeader.output_width), height: Int(cHeader.output_height))
    }

    /// Reads the stored rows `rows` (the next ones libjpeg has) into their places in `raw` (the
    /// displayed image), in bands so that cancellation is noticed between them. Orientations 1-4 keep rows whole: libjpeg writes each row in its displayed
    /// place (upwards for 3 and 4), mirrored in place for 2 and 3. Orientations 5-8 turn rows into
    /// columns: a band of rows is decoded into a small buffer, then each of its columns is written
    /// as a run of pixels into a displayed row.
    func readRows(
        into raw: UnsafeMutableRawBufferPointer, size: PixelSize, orientation: ImageOrientation, rows: Range<Int>
    ) throws(ImgToolError) {
        guard let base = raw.baseAddress, size.width > 0, size.height > 0 else { return }
        let rowBytes = size.width * 4
        if orientation.swapsAxes {
            try readTurned(into: base, size: size, orientation: orientation, rows: rows)
            return
        }
        let placement = WholeRowPlacement(base: base, size: size, orientation: orientation)
        let band = max(16, (1 << 20) / rowBytes)  // about 1 MiB of output per C call
        var row = rows.lowerBound
        while row < rows.upperBound {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding row \(row)") }
            let count = min(band, rows.upperBound - row)
            try check(
                imgtool_jpeg_reader_read_rows(
                    handle, placement.row(row).assumingMemoryBound(to: UInt8.self), placement.stride, UInt32(count)),
                phase: "decoding rows \(row)-\(row + count - 1)")
            placement.finish(row..<row + count)
            row += count
        }
    }

    /// Orientations 5-8: stored row y becomes displayed column y (5, 8) or height-1-y (6, 7);
    /// stored column x becomes displayed row x (5, 6) or width-1-x (7, 8).
    private func readTurned(
        into base: UnsafeMutableRawPointer, size: PixelSize, orientation: ImageOrientation, rows: Range<Int>
    ) throws(ImgToolError) {
        let band = 64
        let scratch = UnsafeMutablePointer<UInt32>.allocate(capacity: band * size.width)
        defer { scratch.deallocate() }
        let output = base.assumingMemoryBound(to: UInt32.self)
        let shownWidth = size.height  // displayed rows are stored columns, `size.height` pixels long
        let reverseColumns = orientation == .rightMirrored || orientation == .left
        let reverseRows = orientation == .right || orientation == .rightMirrored
        var row = rows.lowerBound
        while row < rows.upperBound {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding row \(row)") }
            let count = min(band, rows.upperBound - row)
            try check(
                imgtool_jpeg_reader_read_rows(
                    handle, UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: UInt8.self), size.width * 4,
                    UInt32(count)),
                phase: "decoding rows \(row)-\(row + count - 1)")
            // In tiles of 16 stored columns: each stored row gives 16 contiguous pixels, which go to
            // 16 displayed rows; a tile's band then fills `count` contiguous pixels of each. Few
            // pages are written at a time, where walking one column at a time touched every
            // displayed row (and page) for each stored row.
            let tile = 16
            var lines = [UnsafeMutablePointer<UInt32>](repeating: output, count: tile)
            for first in stride(from: 0, to: size.width, by: tile) {
                let width = min(tile, size.width - first)
                for j in 0..<width {
                    let x = first + j
                    lines[j] = output + (reverseColumns ? size.width - 1 - x : x) * shownWidth
                }
                lines.withUnsafeBufferPointer { lines in
                    for index in 0..<count {
                        let source = scratch + index * size.width + first
                        let column = reverseRows ? size.height - 1 - row - index : row + index
                        for j in 0..<width { lines[j][column] = source[j] }
                    }
                }
            }
            row += count
        }
    }

    /// Skips the stored rows above `rows`, then decodes rows `rows.lowerBound..<end`, handing
    /// those in `rows` to band `band` of `consumer`, 16 at a time, decoded into a small buffer that
    /// stays in cache while the consumer reads it. When the consumer reads only some columns
    /// (``RowBandConsumer/columns``), libjpeg decodes only those (``cropColumns(around:width:)``);
    /// the rest of each row handed over is left as it was.
    func stream(band: Int, rows: Range<Int>, through end: Int, into consumer: some RowBandConsumer)
        throws(ImgToolError)
    {
        let width = consumer.sourceSize.width
        var firstColumn = 0
        if let needed = consumer.columns { firstColumn = try cropColumns(around: needed, width: width) }
        let start = rows.lowerBound
        if start > 0 { try skipRows(start) }
        let rowBytes = width * 4
        let chunk = 16
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * rowBytes, alignment: 64)
        defer { scratch.deallocate() }
        guard let base = scratch.baseAddress else { return }
        var row = start
        while row < end {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding row \(row)") }
            let count = min(chunk, end - row)
            try check(
                imgtool_jpeg_reader_read_rows(
                    handle, (base + firstColumn * 4).assumingMemoryBound(to: UInt8.self), rowBytes, UInt32(count)),
                phase: "decoding rows \(row)-\(row + count - 1)")
            for index in 0..<count {
                let line = UnsafeRawBufferPointer(rebasing: scratch[index * rowBytes..<(index + 1) * rowBytes])
                if rows.contains(row + index) { consumer.take(line, row: row + index, band: band) }
            }
            row += count
        }
    }

    /// `imgtool_jpeg_reader_start_planes`: starts decoding to planes at the stored size, for
    /// ``readPipelined(planes:place:took:)``; `nil`, the reader unchanged, when the image's layout is not
    /// one the pipeline takes (not YCbCr 4:4:4, 4:2:2 or 4:2:0).
    func startPlanes() throws(ImgToolError) -> imgtool_jpeg_planes? {
        var planes = imgtool_jpeg_planes()
        let status = imgtool_jpeg_reader_start_planes(handle, &planes)
        if status == IMGTOOL_JPEG_UNSUPPORTED, imgtool_jpeg_reader_message(handle).pointee == 0 { return nil }
        try check(status, phase: "starting to decode")
        return planes
    }

    /// Decodes the image started by ``startPlanes()`` on two threads: libjpeg makes the planes of
    /// each row group on a second thread while this one turns the group before into RGBA rows
    /// (`imgtool_jpeg_pipeline`), then reads the data up to EOI. `place` gives where a group's
    /// rows go (its first row's index in, a pointer and the distance between rows out), `took` is
    /// told when they are there. Returns whether every row was made with no error and no warning;
    /// when not, the rows are not to be used and a decode the usual way gives the exact error.
    /// - Throws: ``ImgToolError`` `cancelled` only.
    func readPipelined(
        planes: imgtool_jpeg_planes,
        place: (_ firstRow: Int) -> (UnsafeMutableRawPointer, Int),
        took: (_ firstRow: Int, _ count: Int) -> Void
    ) throws(ImgToolError) -> Bool {
        var planes = planes
        guard let made = imgtool_jpeg_pipeline_create(handle, &planes) else { return false }
        let pipe = SharedPipeline(pipe: made)
        defer { imgtool_jpeg_pipeline_destroy(made) }
        let groupRows = Int(planes.group_rows)
        let (status, converted) = forkJoin(
            { imgtool_jpeg_pipeline_produce(pipe.pipe) },
            alongside: { () -> Bool in
                for firstRow in stride(from: 0, to: Int(planes.height), by: groupRows) {
                    if Task.isCancelled {
                        imgtool_jpeg_pipeline_abandon(made)
                        return false
                    }
                    let (destination, distance) = place(firstRow)
                    let count = imgtool_jpeg_pipeline_next_rows(
                        made, destination.assumingMemoryBound(to: UInt8.self), distance)
                    guard count > 0 else { return false }
                    took(firstRow, count)
                }
                return true
            })
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding") }
        return status == IMGTOOL_JPEG_OK && converted && warningCount == 0
    }

    /// Columns decoded on each side of those a consumer reads: the upsampling of a narrowed
    /// decode treats its first and last columns as the image's edge, and a 4:1:1 image's chroma
    /// sample spans 4 columns, so with this margin every column read has the neighbours it has in a
    /// decode of the whole width, and the same pixels.
    static let cropMargin = 32

    /// Narrows the decode to `needed` (columns of an output `width` wide) and ``cropMargin``
    /// columns on each side (`imgtool_jpeg_reader_crop_columns`), when that leaves some out.
    /// - Returns: the first column decoded: rows read after this start there.
    func cropColumns(around needed: Range<Int>, width: Int) throws(ImgToolError) -> Int {
        let low = max(needed.lowerBound - Self.cropMargin, 0)
        let high = min(needed.upperBound + Self.cropMargin, width)
        guard low > 0 || high < width, low < high else { return 0 }
        var x = UInt32(low)
        var columns = UInt32(high - low)
        try check(
            imgtool_jpeg_reader_crop_columns(handle, &x, &columns), phase: "narrowing to columns \(low)-\(high - 1)")
        return Int(x)
    }

    /// `imgtool_jpeg_reader_skip_rows`: the next `count` rows are read but not decoded.
    func skipRows(_ count: Int) throws(ImgToolError) {
        try check(imgtool_jpeg_reader_skip_rows(handle, UInt32(count)), phase: "skipping rows 0-\(count - 1)")
    }

    /// `imgtool_jpeg_reader_finish`: the data after the last row, up to EOI.
    func finish() throws(ImgToolError) {
        try check(imgtool_jpeg_reader_finish(handle), phase: "reading the end of the data")
    }

    private func check(_ status: imgtool_jpeg_status, phase: String) throws(ImgToolError) {
        guard status != IMGTOOL_JPEG_OK else { return }
        let cause = String(cString: imgtool_jpeg_reader_message(handle))
        // The data ended and libjpeg carried on (its own EOI inserted, the rows not received
        // left grey, "Premature end of JPEG file" among the warnings): not a failure.
        if status == IMGTOOL_JPEG_TRUNCATED, cause.isEmpty { return }
        switch status {
        case IMGTOOL_JPEG_TRUNCATED:
            // libjpeg's warning says why; an error that followed from the cut is kept after it.
            let premature = JPEGDecoder.prematureEnd
            throw ImgToolError(
                .truncated, "truncated JPEG: the data ends while \(phase)",
                cause: cause.isEmpty || cause == premature ? premature : "\(premature); then: \(cause)")
        case IMGTOOL_JPEG_TOO_LARGE:
            throw ImgToolError(.tooLarge, "JPEG too large: \(cause) while \(phase)", cause: cause)
        case IMGTOOL_JPEG_UNSUPPORTED:
            throw ImgToolError(.unsupportedFormat, "unsupported JPEG: \(cause)", cause: cause)
        case IMGTOOL_JPEG_MISUSE:
            throw ImgToolError(.corrupt, "the JPEG decoder was called out of order while \(phase)")
        default:
            throw ImgToolError(.corrupt, "corrupt JPEG while \(phase)", cause: cause)
        }
    }
}
