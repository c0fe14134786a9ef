internal import CLibPNG

/// Encodes a ``PixelBuffer`` as PNG through the `CLibPNG` shim: the rows filtered and deflated
/// in blocks on every core (pigz's method), the chunks written by libpng.
///
/// The encoder stores the smallest exact colour type and bit depth (grey at 1, 2, 4 or 8 bits,
/// a palette with `tRNS` when at most 256 colours occur, RGB when every pixel is opaque, 16-bit
/// only when some sample needs it), so decoding the output gives back the same pixels.
public struct PNGEncoder: Sendable {
    /// zlib's strategies, as `deflateInit2` takes them.
    public enum Strategy: String, Sendable, Hashable, CaseIterable {
        /// `Z_DEFAULT_STRATEGY`.
        case `default`
        /// `Z_FILTERED`.
        case filtered
        /// `Z_HUFFMAN_ONLY`.
        case huffman
        /// `Z_RLE`: run-length matches only; much faster on filtered photographs.
        case rle

        var zlibValue: Int32 {
            switch self {
            case .default: 0
            case .filtered: 1
            case .huffman: 2
            case .rle: 3
            }
        }
    }

    /// zlib level, 0 (store) to 9 (smallest); `nil` (the default) chooses per image, see ``init(compressionLevel:strategy:)``.
    public var compressionLevel: Int?
    /// zlib strategy; `nil` (the default) chooses per image.
    public var strategy: Strategy?
    /// Ancillary chunks written after IHDR: the colour description (`iCCP`, `sRGB`, `gAMA`,
    /// `cHRM`), `eXIf` and the XMP `iTXt`, in that order (see ``describing(_:)``).
    var extraChunks: [PNGExtraChunk] = []
    /// Whether grey storage may be chosen; not when an RGB profile describes the pixels.
    var allowsGray = true

    /// Creates an encoder.
    ///
    /// The automatic choice (both parameters `nil`) comes from measurement (`scripts/bench png`):
    /// photo-like true-colour images, where few pixels repeat their left neighbour and most differ
    /// from it by more than a step or two (grain), are written at level 1 with ``Strategy/rle`` (as
    /// small as libpng's level 6 on such data, several times faster); flat images (screenshots,
    /// drawings), smooth gradients and palette or grey images at level 6 with the default
    /// strategy, where long matches pay off.
    /// - Parameters:
    ///   - compressionLevel: zlib level 0-9 (clamped); `nil` chooses per image.
    ///   - strategy: zlib strategy; `nil` chooses per image: ``Strategy/rle`` for photo-like
    ///     true-colour images at levels 1-3, ``Strategy/default`` otherwise.
    public init(compressionLevel: Int? = nil, strategy: Strategy? = nil) {
        self.compressionLevel = compressionLevel.map { min(max($0, 0), 9) }
        self.strategy = strategy
    }

    /// The level and strategy used for `image` stored as `layout`.
    func settings(for image: PixelBuffer, layout: PNGLayout) -> (level: Int, strategy: Strategy) {
        let trueColor = layout.colorType != .palette && layout.colorType != .gray
        let texture = Self.texture(of: image)
        // Photo-like: few pixels repeat their left neighbour, and many differ from it by more
        // than a step or two (grain). A smooth gradient repeats few pixels too, but its filtered
        // rows are nearly constant, which level 6 finds long matches in (an APNG of gradients:
        // 478 KB at level 6 against 803 KB at level 1 with run-length matching, in the same time).
        let photoLike = trueColor && texture.flat < 0.5 && texture.smooth < 0.5
        let level = compressionLevel ?? (photoLike ? 1 : 6)
        // At the fast levels, run-length matching beats zlib's fast match finder on filtered
        // photographs in both time and size (scripts/bench merge: 512x512 at level 1, 467 KB in
        // 35 ms against 524 KB in 53 ms); from level 4 on, the full match finder pays off.
        return (level, strategy ?? (photoLike && (1...3).contains(level) ? .rle : .default))
    }

    /// Over up to 64 rows spread evenly: the fraction of pixels equal to their left neighbour
    /// (`flat`), and of pixels no sample of which differs from the left neighbour's by more than
    /// 2 (in 8-bit steps; `smooth`, which includes the flat ones).
    static func texture(of image: PixelBuffer) -> (flat: Double, smooth: Double) {
        guard image.width > 1 else { return (1, 1) }
        let counts =
            switch image.samples {
            case .rgba8(let samples):
                samples.withUnsafeBufferPointer { texture(of: $0, width: image.width, height: image.height, step: 2) }
            case .rgba16(let samples):
                samples.withUnsafeBufferPointer {
                    texture(of: $0, width: image.width, height: image.height, step: 2 * 257)
                }
            }
        guard counts.total > 0 else { return (1, 1) }
        return (Double(counts.same) / Double(counts.total), Double(counts.near) / Double(counts.total))
    }

    /// Counts, over up to 64 rows of RGBA `samples`, the pixels equal to their left neighbour and
    /// those within `step` of it in every sample.
    private static func texture<Sample: FixedWidthInteger & UnsignedInteger>(
        of samples: UnsafeBufferPointer<Sample>, width: Int, height: Int, step: Sample
    ) -> (same: Int, near: Int, total: Int) {
        var same = 0
        var near = 0
        var total = 0
        for y in Swift.stride(from: 0, to: height, by: max(1, height / 64)) {
            let row = y * width * 4
            for x in 1..<width {
                let at = row + x * 4
                var largest: Sample = 0
                for c in 0..<4 {
                    let (a, b) = (samples[at + c], samples[at - 4 + c])
                    largest = max(largest, a > b ? a - b : b - a)
                }
                if largest == 0 { same += 1 }
                if largest <= step { near += 1 }
            }
            total += width - 1
        }
        return (same, near, total)
    }

    /// Encodes `image` into memory.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty image, `tooLarge` when memory runs out.
    public func encode(_ image: PixelBuffer) throws(ImgToolError) -> [UInt8] {
        try encode(image, layout: PNGLayout.choose(for: image, allowsGray: allowsGray))
    }

    /// Encodes `image` into memory stored as `layout`, which must hold its pixels exactly (an
    /// APNG's frames all share the colour type and depth of its IHDR).
    func encode(_ image: PixelBuffer, layout: PNGLayout) throws(ImgToolError) -> [UInt8] {
        var sink = imgtool_png_sink()
        sink.fd = -1
        defer { imgtool_png_sink_free(&sink) }
        try write(image, layout: layout, into: &sink)
        guard let buffer = sink.buffer else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: sink.count))
    }

    /// Encodes `image` straight to an open file descriptor (not closed here).
    /// - Throws: ``ImgToolError`` `writeFailed` with errno's text when a write fails.
    public func write(_ image: PixelBuffer, toFileDescriptor fd: Int32) throws(ImgToolError) {
        var sink = imgtool_png_sink()
        sink.fd = fd
        try write(image, layout: PNGLayout.choose(for: image, allowsGray: allowsGray), into: &sink)
    }

    private func write(_ image: PixelBuffer, layout: PNGLayout, into sink: inout imgtool_png_sink) throws(ImgToolError)
    {
        guard image.width > 0, image.height > 0 else {
            throw ImgToolError(.invalidArgument, "cannot encode an empty \(image.width)x\(image.height) image as PNG")
        }
        let stream = try zlibStream(of: image, layout: layout)
        let paletteRGB = layout.palette.flatMap {
            [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0 >> 16)]
        }
        let alphas = layout.palette.map { UInt8(truncatingIfNeeded: $0 >> 24) }
        let alphaCount = (alphas.lastIndex { $0 != 255 } ?? -1) + 1

        let records = extraChunkRecords
        try withUnsafeMutablePointer(to: &sink) { sinkPointer throws(ImgToolError) in
            guard let writer = imgtool_png_writer_create(sinkPointer) else {
                throw ImgToolError(.tooLarge, "out of memory creating a PNG writer")
            }
            defer { imgtool_png_writer_destroy(writer) }
            try paletteRGB.withUnsafeBufferPointer { rgb throws(ImgToolError) in
                try alphas.withUnsafeBufferPointer { alpha throws(ImgToolError) in
                    try records.withUnsafeBufferPointer { extra throws(ImgToolError) in
                        var params = imgtool_png_write_params()
                        params.width = UInt32(image.width)
                        params.height = UInt32(image.height)
                        params.bit_depth = Int32(layout.bitDepth)
                        params.color_type = Int32(layout.colorType.pngCode)
                        params.palette_rgb = rgb.baseAddress
                        params.palette_count = Int32(layout.palette.count)
                        params.palette_alpha = alpha.baseAddress
                        params.palette_alpha_count = Int32(alphaCount)
                        params.extra_chunks = extra.baseAddress
                        params.extra_chunks_length = extra.count
                        try check(imgtool_png_writer_begin(writer, &params), sink: sinkPointer)
                    }
                }
            }
            try stream.withUnsafeBufferPointer { stream throws(ImgToolError) in
                try check(
                    imgtool_png_writer_finish_with_stream(writer, stream.baseAddress, stream.count, Self.chunkBytes),
                    sink: sinkPointer)
            }
        }
    }

    /// Largest IDAT chunk written.
    static let chunkBytes = 1 << 17

    /// The zlib stream of `image`'s rows stored as `layout` (the data of its IDAT or fdAT
    /// chunks), compressed on up to `threads` threads by ``PNGDeflater`` in blocks of about
    /// `blockBytes`; the same bytes whatever `threads` is.
    func zlibStream(
        of image: PixelBuffer, layout: PNGLayout, threads: Int = availableProcessors,
        blockBytes: Int = PNGDeflater.stillBlockBytes
    ) throws(ImgToolError) -> [UInt8] {
        let (level, strategy) = settings(for: image, layout: layout)
        // Palette and low-depth images compress best unfiltered; others with adaptive filters.
        let deflater = PNGDeflater(
            packer: RowPacker(layout: layout, width: image.width), level: level, strategy: strategy,
            adaptiveFilters: layout.colorType != .palette && layout.bitDepth >= 8, blockBytes: blockBytes)
        return try deflater.stream(of: image, threads: threads)
    }

    private func check(_ status: imgtool_png_status, sink: UnsafeMutablePointer<imgtool_png_sink>) throws(ImgToolError)
    {
        guard status != IMGTOOL_PNG_OK else { return }
        let message = withUnsafeBytes(of: sink.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch status {
        case IMGTOOL_PNG_WRITE_FAILED:
            throw ImgToolError(
                .writeFailed, "writing PNG data failed", cause: systemErrorText(sink.pointee.system_error))
        case IMGTOOL_PNG_TOO_LARGE:
            throw ImgToolError(.tooLarge, "out of memory while encoding PNG", cause: message)
        default:
            throw ImgToolError(.invalidArgument, "libpng refused to encode: \(message)")
        }
    }
}
