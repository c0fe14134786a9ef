#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Any image imgtool reads, opened once, its format sniffed from its bytes by the ``CodecRegistry``.
///
/// Making a source parses the file's structure (headers, chunk and record tables, the frame
/// table) and checks every declared size against ``DecodingLimits``; it decodes no pixels.
/// Use ``info`` for what the file declares and ``makeFrameReader(depth:)`` to decode frames.
/// Errors name the input as given (``name``).
public struct ImageSource: FrameSource, RowStreamingSource, FrameSkippingSource, FrameSelectingSource {
    /// The path or URL as the user gave it; every error names it.
    public let name: String
    /// The bytes of the file; empty for a still PNG opened with ``init(contentsOf:limits:)``,
    /// which is decoded straight from the file and never held in memory whole.
    public let data: [UInt8]
    private let base: any FrameSource

    /// Opens `data`, sniffing the format from its first bytes with `registry`.
    /// - Parameters:
    ///   - data: the whole file.
    ///   - name: the path or URL as given, used in errors.
    ///   - limits: sizes refused before allocating.
    ///   - options: orientation and shrink-on-load, for the codecs that have them.
    ///   - registry: the codecs asked. Default ``CodecRegistry/standard``.
    /// - Throws: ``ImgToolError`` naming `name`: `unsupportedFormat`, `corrupt`, `truncated`, `tooLarge`;
    ///   `truncated` or `corrupt` for damage that `options`' ``DecodingOptions/failOn`` refuses.
    public init(
        data: [UInt8], name: String, limits: DecodingLimits = .default, options: DecodingOptions = .default,
        registry: CodecRegistry = .standard
    ) throws(ImgToolError) {
        self.name = name
        self.data = data
        do throws(ImgToolError) {
            let codec = try Self.codec(recognising: Array(data.prefix(CodecRegistry.sniffLength)), registry: registry)
            base = try codec.makeSource(data: data, limits: limits, options: options)
            try options.failOn.check(base.info)
        } catch {
            throw error.naming(name)
        }
    }

    /// Opens the file at `path`.
    ///
    /// A still PNG is read straight from the file when its pixels are decoded (only the
    /// signature and chunk headers are read now), so its bytes are never held in memory whole;
    /// GIF and APNG files, whose frames are decoded on demand, are read whole.
    /// - Parameters:
    ///   - path: the file, as the user gave it; errors name it.
    ///   - limits: sizes refused before allocating.
    /// - Throws: ``ImgToolError`` naming `path`: `notFound`, `unreadable`, `tooLarge`, or a decoding error.
    public init(contentsOf path: String, limits: DecodingLimits = .default) throws(ImgToolError) {
        try self.init(contentsOf: path, name: path, maxBytes: FileBytes.maxBytes, limits: limits)
    }

    /// ``init(contentsOf:limits:)`` refusing files larger than `maxBytes`, with errors naming
    /// `name` (a `file:` URL as given, say) instead of the path.
    init(
        contentsOf path: String, name: String, maxBytes: Int, limits: DecodingLimits,
        options: DecodingOptions = .default, registry: CodecRegistry = .standard
    ) throws(ImgToolError) {
        do throws(ImgToolError) {
            let (descriptor, size) = try FileBytes.open(path, maxBytes: maxBytes)
            defer { close(descriptor) }
            var head = [UInt8](repeating: 0, count: CodecRegistry.sniffLength)
            let count = pread(descriptor, &head, head.count, 0)
            let codec = count > 0 ? registry.codec(sniffing: Array(head.prefix(count))) : nil
            // Bytes no codec recognises are refused now, before reading on: a device that never
            // ends (/dev/zero) would otherwise be read up to --max-bytes first.
            if codec == nil && count == head.count { _ = try Self.codec(recognising: head, registry: registry) }
            if let codec,
                let direct = try codec.makeSource(path: path, descriptor: descriptor, limits: limits, options: options)
            {
                try options.failOn.check(direct.info)
                self.init(name: name, data: [], base: direct)
            } else {
                let bytes = try FileBytes.read(descriptor, declaredSize: size, path: path, maxBytes: maxBytes)
                try self.init(data: bytes, name: name, limits: limits, options: options, registry: registry)
            }
        } catch {
            var named = error
            named.input = name
            throw named
        }
    }

    private init(name: String, data: [UInt8], base: any FrameSource) {
        self.name = name
        self.data = data
        self.base = base
    }

    /// Format, canvas, frame table and loop count.
    public var info: ImageInfo { base.info }

    /// The codec's own source, for writers that can reuse what it parsed (a GIF written from a
    /// GIF with nothing changed may keep the file's own image data).
    var codecSource: any FrameSource { base }

    /// Whether the format has no transparency (the codec's source says so).
    public var isOpaque: Bool { base.isOpaque }

    /// Makes a one-shot reader that composites frames in order; its errors name ``name``.
    public func makeFrameReader(depth: SampleDepth? = nil) throws(ImgToolError) -> any FrameReader {
        do throws(ImgToolError) {
            return NamingReader(base: try base.makeFrameReader(depth: depth), name: name)
        } catch {
            throw error.naming(name)
        }
    }

    /// A reader whose first frame is frame `start`: the codec's own when it can start there (a
    /// video seeks through its index), else one that reads and drops the frames before it.
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        do throws(ImgToolError) {
            return NamingReader(base: try base.frameReader(from: start, depth: depth), name: name)
        } catch {
            throw error.naming(name)
        }
    }

    /// A reader of the frames `frames` (ascending): the codec's own when it can pass over the
    /// others cheaply (a video does not convert them), else one that reads and drops them.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        do throws(ImgToolError) {
            return NamingReader(base: try base.frameReader(selecting: frames, depth: depth), name: name)
        } catch {
            throw error.naming(name)
        }
    }

    /// Decodes every frame and keeps none, to find whether the file decodes: `imgtool info
    /// --verify`. A still JPEG or PNG is decoded row by row into a few rows of memory (on two
    /// threads when a processor is idle), never into a whole image; when that decode fails or
    /// warns, the image is decoded the usual way, which gives the exact error.
    /// - Throws: ``ImgToolError`` naming ``name``, as ``makeFrameReader(depth:)``'s reader does.
    public func verifyDecodes() throws(ImgToolError) {
        if info.frameCount == 1, base is any RowStreamingSource {
            let size =
                rowOrientation.swapsAxes
                ? PixelSize(width: info.height, height: info.width) : PixelSize(width: info.width, height: info.height)
            if try streamRows(to: DiscardingRows(sourceSize: size)) != nil { return }
        }
        let reader = try makeFrameReader(depth: nil)
        while try reader.nextFrame() != nil {}
    }

    /// The codec's ``RowStreamingSource/rowOrientation``; `.up` when its source has none.
    var rowOrientation: ImageOrientation { (base as? any RowStreamingSource)?.rowOrientation ?? .up }

    /// The codec's ``RowStreamingSource/streamRows(to:)``; `nil` when its source has none.
    func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata? {
        guard let streaming = base as? any RowStreamingSource else { return nil }
        do throws(ImgToolError) {
            return try streaming.streamRows(to: consumer)
        } catch {
            throw error.naming(name)
        }
    }

    /// The codec that recognises `head` (the first ``CodecRegistry/sniffLength`` bytes, or all
    /// of a shorter input).
    /// - Throws: ``ImgToolError``: `corrupt` for a PNG signature damaged by a text-mode transfer,
    ///   `unsupportedFormat` naming the formats read and the first bytes.
    static func codec(recognising head: [UInt8], registry: CodecRegistry) throws(ImgToolError) -> any ImageCodec {
        if let codec = registry.codec(sniffing: head) { return codec }
        if head.count >= 4 && head[1...3].elementsEqual("PNG".utf8) {
            throw ImgToolError(
                .corrupt,
                "corrupt PNG signature \(hex(head.prefix(8))), expected 89 50 4e 47 0d 0a 1a 0a (damaged by a text-mode transfer?)"
            )
        }
        throw ImgToolError(.unsupportedFormat, unknownFormatMessage(head, registry: registry))
    }

    static func unknownFormatMessage(_ data: [UInt8], registry: CodecRegistry = .standard) -> String {
        if data.isEmpty { return "empty file: not an image" }
        let readable = registry.codecs.filter { $0.capabilities.contains(.read) && $0.format != .apng }
            .map { $0.displayName.count <= 8 ? $0.displayName : $0.format.rawValue.uppercased() }
        let list =
            readable.count > 1
            ? readable.dropLast().joined(separator: ", ") + " or " + (readable.last ?? "") : readable.joined()
        if let brands = fileTypeBrands(data) {
            let compatible = brands.dropFirst().map { "'\($0)'" }.joined(separator: ", ")
            return
                "an ISO base media file of brand '\(brands[0])'\(compatible.isEmpty ? "" : " (compatible: \(compatible))"), none of which is an image format imgtool reads (\(list))"
        }
        return "not a \(list) file (starts with bytes \(hex(data.prefix(8))))"
    }

    /// The major brand and the compatible brands of the `ftyp` box `data` starts with (those within
    /// `data`), each printable (other bytes as `\xNN`); `nil` when it starts with none.
    static func fileTypeBrands(_ data: [UInt8]) -> [String]? {
        guard data.count >= 12, data[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
        let end = min(max(size, 12), data.count)
        func brand(at offset: Int) -> String {
            data[offset..<offset + 4].map { byte in
                (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + hex([byte][...])
            }.joined()
        }
        return [brand(at: 8)] + stride(from: 16, to: end - 3, by: 4).map(brand(at:))
    }

    static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
    }
}

/// Adds the input's name to a reader's errors.
private final class NamingReader: FrameReader {
    let base: any FrameReader
    let name: String

    init(base: any FrameReader, name: String) {
        self.base = base
        self.name = name
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        do throws(ImgToolError) {
            return try base.nextFrame()
        } catch {
            throw error.naming(name)
        }
    }
}

extension ImageSource: JPEGBitstreamSource {
    /// The JPEG the decoded file is or stores (``JPEGBitstreamSource``), or `nil`.
    func jpegBitstream() throws(ImgToolError) -> [UInt8]? {
        try (base as? any JPEGBitstreamSource)?.jpegBitstream()
    }
}

/// Takes rows and drops them: ``ImageSource/verifyDecodes()``'s consumer.
private struct DiscardingRows: RowBandConsumer {
    let sourceSize: PixelSize

    func bands(splittingNear row: Int?) -> [Range<Int>] {
        guard let row, row > 0, row < sourceSize.height else { return [0..<sourceSize.height] }
        return [0..<row, row..<sourceSize.height]
    }

    func take(_ pixels: UnsafeRawBufferPointer, row: Int, band: Int) {}
}
