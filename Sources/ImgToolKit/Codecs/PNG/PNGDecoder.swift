internal import CLibPNG

/// Decodes PNG data with libpng, through the `CLibPNG` shim (libpng's longjmp never reaches Swift).
///
/// Output is straight RGBA: palette images expanded, `tRNS` turned into alpha, grey copied to
/// R, G and B, A = max when the file has no alpha. No gamma or colour transformation is applied:
/// samples come out as stored. A decoder is a one-shot value used within one task.
public struct PNGDecoder: Sendable {
    /// Limits checked before any pixel memory is allocated.
    public var limits: DecodingLimits

    /// Creates a decoder with the given limits.
    public init(limits: DecodingLimits = .default) {
        self.limits = limits
    }

    /// What IHDR and the chunks before the first IDAT declare.
    public struct Header: Sendable, Hashable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Bits per sample: 1, 2, 4, 8 or 16.
        public var bitDepth: Int
        /// The stored colour type.
        public var colorType: ColorType
        /// Whether the image is Adam7-interlaced.
        public var isInterlaced: Bool
        /// Whether a `tRNS` chunk is present.
        public var hasTransparency: Bool
        /// The colour description: `iCCP`, `sRGB`, `gAMA`, `cHRM`, `cICP`.
        public var color: ColorMetadata
        /// The `eXIf` chunk (TIFF bytes), when before IDAT and within the limit.
        public var exif: [UInt8]?
        /// The XMP packet of an `iTXt` chunk keyed `XML:com.adobe.xmp`, when before IDAT.
        public var xmp: [UInt8]?
        /// Problems with the colour description (a profile Little CMS cannot read).
        public var warnings: [String] = []

        /// Sets `info`'s colour description, metadata and warnings from this header.
        func describe(_ info: inout ImageInfo) {
            info.color = color
            info.exif = exif
            info.hasEXIF = exif != nil
            info.exifOrientation = exif.flatMap { EXIFReader.orientation(inTIFF: $0[...]) }
            info.xmp = xmp
            info.warnings += warnings
        }

        /// The metadata of an image decoded from this PNG.
        var metadata: ImageMetadata {
            ImageMetadata(format: .png, bitDepth: bitDepth, colorType: colorType, color: color)
        }
    }

    /// Reads the header without decoding pixels.
    /// - Throws: ``ImgToolError`` with code `corrupt`, `truncated` or `tooLarge`.
    public func header(of data: [UInt8]) throws(ImgToolError) -> Header {
        try data.withUnsafeBufferPointer { bytes throws(ImgToolError) in
            let reader = try Reader(bytes: bytes, limits: limits)
            defer { reader.close() }
            return try reader.readHeader()
        }
    }

    /// Decodes the image.
    /// - Parameters:
    ///   - data: the whole PNG file.
    ///   - depth: the output depth; `nil` keeps the file's (16-bit files give 16-bit buffers,
    ///     all others 8-bit). 16-bit samples reduced to 8 bits are rounded, as `png_set_scale_16`.
    /// - Returns: the pixels, with ``PixelBuffer/metadata`` describing the file.
    /// - Throws: ``ImgToolError`` with code `corrupt`, `truncated`, `tooLarge` or `cancelled`.
    ///   The error names no input: callers add it with ``ImgToolError/naming(_:)``.
    public func decode(_ data: [UInt8], depth: SampleDepth? = nil) throws(ImgToolError) -> PixelBuffer {
        try data.withUnsafeBufferPointer { bytes throws(ImgToolError) in
            let reader = try Reader(bytes: bytes, limits: limits)
            defer { reader.close() }
            return try decode(with: reader, depth: depth).image
        }
    }

    /// Reads the header from the open file `descriptor`, from its current offset.
    /// - Throws: as ``header(of:)``.
    func header(ofFile descriptor: Int32) throws(ImgToolError) -> Header {
        let reader = try Reader(fileDescriptor: descriptor, limits: limits)
        defer { reader.close() }
        return try reader.readHeader()
    }

    /// Decodes the PNG file open as `descriptor`, from its current offset, reading it as libpng
    /// asks for bytes: only the pixels are held in memory, never the file.
    /// - Returns: the pixels and the header they were decoded with.
    /// - Throws: as ``decode(_:depth:)``.
    func decode(fileDescriptor descriptor: Int32, depth: SampleDepth?) throws(ImgToolError) -> (
        image: PixelBuffer, header: Header
    ) {
        let reader = try Reader(fileDescriptor: descriptor, limits: limits)
        defer { reader.close() }
        return try decode(with: reader, depth: depth)
    }

    /// Decodes a PNG of 8 bits or less a sample, not interlaced, handing its rows to `consumer`
    /// as they come (see ``Reader/stream(header:into:)``); the full image is never held.
    /// - Parameters:
    ///   - data: the whole PNG file, or empty to read `descriptor`.
    ///   - descriptor: the open PNG file, read from its current offset, when `data` is empty.
    /// - Returns: the image's metadata, or `nil` when this image is not streamed (16
    ///   bits a sample, interlaced, not the consumer's size) or libpng failed part way: any rows
    ///   handed over are then not to be used, and ``decode(_:depth:)`` gives the exact error.
    /// - Throws: ``ImgToolError`` `cancelled` only.
    func stream(_ data: [UInt8], descriptor: Int32 = -1, to consumer: some RowBandConsumer) throws(ImgToolError)
        -> ImageMetadata?
    {
        try data.withUnsafeBufferPointer { bytes throws(ImgToolError) -> ImageMetadata? in
            do throws(ImgToolError) {
                let reader =
                    data.isEmpty
                    ? try Reader(fileDescriptor: descriptor, limits: limits) : try Reader(bytes: bytes, limits: limits)
                defer { reader.close() }
                let header = try reader.readHeader()
                try limits.checkPixels(width: header.width, height: header.height)
                guard header.bitDepth <= 8, !header.isInterlaced,
                    PixelSize(width: header.width, height: header.height) == consumer.sourceSize
                else { return nil }
                try reader.start(sixteenBit: false, width: header.width)
                try reader.stream(header: header, into: consumer)
                try reader.finish()
                return header.metadata
            } catch {
                if error.code == .cancelled { throw error }
                return nil
            }
        }
    }

    /// Header, limits, then pixels: nothing is allocated before the size has been checked.
    private func decode(with reader: Reader, depth: SampleDepth?) throws(ImgToolError) -> (
        image: PixelBuffer, header: Header
    ) {
        let header = try reader.readHeader()
        try limits.checkPixels(width: header.width, height: header.height)
        let outputDepth = depth ?? (header.bitDepth == 16 ? .sixteen : .eight)
        try reader.start(sixteenBit: outputDepth == .sixteen, width: header.width)
        var image = try PixelBuffer(width: header.width, height: header.height, depth: outputDepth) {
            (raw: UnsafeMutableRawBufferPointer) throws(ImgToolError) in
            try reader.readPixels(into: raw, header: header)
        }
        try reader.finish()
        image.metadata = header.metadata
        return (image, header)
    }
}

/// Owns one `imgtool_png_reader`; every call maps the shim's status to an ``ImgToolError``.
private final class Reader {
    private let handle: OpaquePointer
    private var cHeader = imgtool_png_header()

    init(bytes: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) throws(ImgToolError) {
        // libpng's own limits: no side may exceed the pixel limit, and ancillary chunks are capped.
        let side = UInt32(clamping: min(limits.maxPixels, 0x7fff_ffff))
        guard let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1),
            let handle = imgtool_png_reader_create(base, bytes.count, side, side, limits.maxChunkBytes)
        else {
            throw ImgToolError(.tooLarge, "out of memory creating a PNG reader")
        }
        self.handle = handle
    }

    /// A reader over an open file, which the caller closes after ``close()``.
    init(fileDescriptor: Int32, limits: DecodingLimits) throws(ImgToolError) {
        let side = UInt32(clamping: min(limits.maxPixels, 0x7fff_ffff))
        guard let handle = imgtool_png_reader_create_fd(fileDescriptor, side, side, limits.maxChunkBytes) else {
            throw ImgToolError(.tooLarge, "out of memory creating a PNG reader")
        }
        self.handle = handle
    }

    func close() { imgtool_png_reader_destroy(handle) }

    /// `imgtool_png_reader_read_header`.
    func readHeader() throws(ImgToolError) -> PNGDecoder.Header {
        try check(imgtool_png_reader_read_header(handle, &cHeader), phase: "reading the header")
        var header = PNGDecoder.Header(
            width: Int(cHeader.width), height: Int(cHeader.height), bitDepth: Int(cHeader.bit_depth),
            colorType: ColorType(pngCode: Int(cHeader.color_type)) ?? .rgba,
            isInterlaced: cHeader.interlaced != 0, hasTransparency: cHeader.has_trns != 0,
            color: ColorMetadata(
                hasGamma: cHeader.has_gama != 0, hasSRGB: cHeader.has_srgb != 0, hasICCProfile: cHeader.has_iccp != 0))
        readColor(into: &header)
        return header
    }

    /// The colour chunks' values and the metadata chunks (libpng has already bounded each by the
    /// chunk limit).
    private func readColor(into header: inout PNGDecoder.Header) {
        var color = imgtool_png_color()
        imgtool_png_reader_color(handle, &color)
        func bytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8]? {
            guard let start, count > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: start, count: count))
        }
        // With an sRGB chunk, libpng reports sRGB's own gAMA and cHRM values whether or not the
        // chunks are there; a decoder ignores them then anyway (PNG 3, 11.3.2.5).
        if color.has_gamma != 0 && color.srgb_intent < 0 { header.color.gamma = color.gamma }
        if color.has_chromaticities != 0 && color.srgb_intent < 0 {
            let c = withUnsafeBytes(of: color.chromaticities) { Array($0.bindMemory(to: Double.self)) }
            header.color.chromaticities = ColorMetadata.Chromaticities(
                white: [c[0], c[1]], red: [c[2], c[3]], green: [c[4], c[5]], blue: [c[6], c[7]])
        }
        if color.srgb_intent >= 0 { header.color.srgbIntent = Int(color.srgb_intent) }
        if color.has_cicp != 0 {
            let (p, t, m, f) = color.cicp
            header.color.cicp = ColorMetadata.CICP(
                primaries: Int(p), transfer: Int(t), matrix: Int(m), fullRange: f != 0)
            if ColorMetadata.chromaticities(ofCICP: Int(p)) == nil || ColorMetadata.gamma(ofCICP: Int(t)) == nil {
                header.warnings.append("cICP \(p)/\(t) is a colour space imgtool does not convert; read as sRGB")
            }
        }
        if let icc = bytes(color.icc, color.icc_length) {
            let profile = ColorProfile(data: icc)
            header.color.profile = profile
            if let warning = profile.unusableWarning { header.warnings.append(warning) }
        }
        header.exif = bytes(color.exif, color.exif_length)
        header.xmp = bytes(color.xmp, color.xmp_length)
    }

    /// `imgtool_png_reader_start`.
    func start(sixteenBit: Bool, width: Int) throws(ImgToolError) {
        try check(imgtool_png_reader_start(handle, sixteenBit ? 1 : 0, &cHeader), phase: "setting up the decoder")
        let expected = width * 4 * (sixteenBit ? 2 : 1)
        guard cHeader.output_row_bytes == expected else {
            throw ImgToolError(.corrupt, "libpng produced \(cHeader.output_row_bytes)-byte rows, expected \(expected)")
        }
    }

    /// Reads every row into `raw`, in bands of rows so that cancellation is noticed between them.
    /// An interlaced image must be read whole (`imgtool_png_reader_read_image`).
    func readPixels(into raw: UnsafeMutableRawBufferPointer, header: PNGDecoder.Header) throws(ImgToolError) {
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), header.height > 0 else { return }
        let stride = Int(cHeader.output_row_bytes)
        if header.isInterlaced {
            try check(imgtool_png_reader_read_image(handle, base, stride), phase: "reading the image data")
            return
        }
        let band = max(1, (1 << 20) / max(stride, 1))  // about 1 MiB of output per C call
        var row = 0
        while row < header.height {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding row \(row)") }
            let count = min(band, header.height - row)
            try check(
                imgtool_png_reader_read_rows(handle, base + row * stride, stride, UInt32(count)),
                phase: "reading rows \(row)-\(row + count - 1)")
            row += count
        }
    }

    /// Reads every row and hands those of the consumer's band to it, two steps overlapped: while
    /// this thread decodes the next rows (inflating is serial), a second thread filters the ones
    /// before (``RowBandConsumer/take(_:row:band:)``), in chunks of about 1 MiB of rows held in
    /// two buffers. Rows outside the band are decoded and dropped.
    func stream(header: PNGDecoder.Header, into consumer: some RowBandConsumer) throws(ImgToolError) {
        let bands = consumer.bands(splittingNear: nil)
        guard bands.count == 1, let band = bands.first, header.height > 0 else { return }
        let stride = Int(cHeader.output_row_bytes)
        let chunk = max(1, (1 << 20) / max(stride, 1))
        let buffers = [
            UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * stride, alignment: 64),
            UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * stride, alignment: 64),
        ]
        defer { for buffer in buffers { buffer.deallocate() } }
        /// Decodes rows `rows` into buffer `index`.
        func decode(_ rows: Range<Int>, into index: Int) throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while decoding row \(rows.lowerBound)") }
            guard let base = buffers[index].baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            try check(
                imgtool_png_reader_read_rows(handle, base, stride, UInt32(rows.count)),
                phase: "reading rows \(rows.lowerBound)-\(rows.upperBound - 1)")
        }
        var rows = 0..<min(chunk, header.height)
        var current = 0
        try decode(rows, into: current)
        while !rows.isEmpty {
            let decoded = DecodedRows(pixels: UnsafeRawBufferPointer(buffers[current]), rows: rows, stride: stride)
            let next = rows.upperBound..<min(rows.upperBound + chunk, header.height)
            let (_, result) = forkJoin(
                { decoded.hand(to: consumer, band: band) },
                alongside: { () -> Result<Void, ImgToolError> in
                    guard !next.isEmpty else { return .success(()) }
                    return Result { () throws(ImgToolError) in try decode(next, into: 1 - current) }
                })
            try result.get()
            rows = next
            current = 1 - current
        }
    }

    /// `imgtool_png_reader_finish`: the chunks after the image data, up to IEND.
    func finish() throws(ImgToolError) {
        try check(imgtool_png_reader_finish(handle), phase: "reading the chunks after the image data")
    }

    private func check(_ status: imgtool_png_status, phase: String) throws(ImgToolError) {
        guard status != IMGTOOL_PNG_OK else { return }
        let cause = String(cString: imgtool_png_reader_message(handle))
        let warnings = String(cString: imgtool_png_reader_warnings(handle))
        switch status {
        case IMGTOOL_PNG_TRUNCATED:
            throw ImgToolError(.truncated, "truncated PNG: the data ends while \(phase)", cause: cause)
        case IMGTOOL_PNG_TOO_LARGE:
            let detail = warnings.split(separator: "\n").first.map(String.init) ?? cause
            throw ImgToolError(.tooLarge, "PNG too large: \(detail)", cause: cause)
        default:
            throw ImgToolError(.corrupt, "corrupt PNG: \(cause) while \(phase)", cause: nil)
        }
    }
}

/// Decoded rows handed to the thread that filters them while the next are decoded.
///
/// `@unchecked Sendable`: the buffer belongs to ``Reader/stream(header:into:)``, which does not
/// write it again until the thread reading it has been joined.
private struct DecodedRows: @unchecked Sendable {
    let pixels: UnsafeRawBufferPointer
    let rows: Range<Int>
    let stride: Int

    /// Hands the rows within `band` to `consumer`, in order.
    func hand(to consumer: some RowBandConsumer, band: Range<Int>) {
        for row in rows where band.contains(row) {
            let start = (row - rows.lowerBound) * stride
            consumer.take(UnsafeRawBufferPointer(rebasing: pixels[start..<start + stride]), row: row, band: 0)
        }
    }
}
