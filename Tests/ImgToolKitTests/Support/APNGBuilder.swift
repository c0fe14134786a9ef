import Testing

@testable import ImgToolKit

/// Builds APNG files byte by byte, so that each test shows the chunks it feeds the decoder.
///
/// ``chunks()`` gives the file as a list of chunks (type, data, optional wrong CRC) that a test
/// may edit: reorder, drop, renumber or corrupt; ``serialize(_:)`` writes any list with correct
/// CRCs (unless a chunk asks for a wrong one).
///
/// Frame data comes from one of two encoders:
/// - ``Encoding/pngEncoder``: each frame is encoded by ``PNGEncoder`` (real zlib data) and its
///   IDAT data is re-chunked as fdAT with sequence numbers. ``PNGEncoder`` picks the smallest
///   layout per image, while every APNG frame shares IHDR (and PLTE), so this mode needs
///   frames that all encode to the same layout, e.g. true colour with alpha and more than 256
///   colours; ``chunks()`` checks it.
/// - ``Encoding/stored``: the builder writes the scanlines itself (filter 0, Adam7 when
///   interlaced) in stored (uncompressed) deflate blocks, in any ``Layout``.
struct APNGBuilder {
    /// One chunk of the file being built.
    struct Chunk: Equatable {
        /// The four-letter type.
        var type: String
        /// The chunk data.
        var data: [UInt8]
        /// A CRC to write instead of the right one.
        var wrongCRC: UInt32?

        init(_ type: String, _ data: [UInt8], wrongCRC: UInt32? = nil) {
            self.type = type
            self.data = data
            self.wrongCRC = wrongCRC
        }

        /// The sequence number of an fcTL or fdAT chunk.
        var sequenceNumber: UInt32? {
            guard type == "fcTL" || type == "fdAT", data.count >= 4 else { return nil }
            return data[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// Sets the sequence number of an fcTL or fdAT chunk.
        mutating func setSequenceNumber(_ value: UInt32) {
            data.replaceSubrange(0..<4, with: APNGBuilder.bigEndian(value))
        }
    }

    /// How samples are stored (stored encoding only).
    enum Layout: Equatable {
        /// RGBA, 8 bits per sample (colour type 6).
        case rgba8
        /// RGBA, 16 bits per sample (colour type 6); 8-bit pixels are widened by 257.
        case rgba16
        /// 8-bit palette (colour type 3) with PLTE and tRNS built from every frame's colours.
        case palette8
    }

    /// Where frame data comes from.
    enum Encoding: Equatable {
        /// Stored deflate blocks written by the builder.
        case stored
        /// ``PNGEncoder``'s IDAT data.
        case pngEncoder
    }

    /// One animation frame.
    struct Frame {
        var image: PixelBuffer
        var x = 0
        var y = 0
        var delayNumerator: UInt16 = 1
        var delayDenominator: UInt16 = 10
        /// `dispose_op`: 0 none, 1 background, 2 previous (other values to test rejection).
        var dispose: UInt8 = 0
        /// `blend_op`: 0 source, 1 over.
        var blend: UInt8 = 0
    }

    var width: Int
    var height: Int
    var layout: Layout = .rgba8
    var encoding: Encoding = .stored
    var interlaced = false
    /// acTL `num_plays`.
    var plays: UInt32 = 0
    /// acTL `num_frames`; `nil` writes the number of frames.
    var declaredFrameCount: UInt32?
    /// The frames, in order.
    var frames: [Frame] = []
    /// `nil`: the default image (IDAT) is frame 0, with its fcTL before IDAT. Otherwise the
    /// IDAT image, which is then not part of the animation.
    var separateDefaultImage: PixelBuffer?
    /// When set, each frame's zlib data is cut into fdAT pieces of at most this many bytes,
    /// with an empty fdAT before each piece.
    var fdatPieceSize: Int?

    /// A canvas-sized image of one colour.
    static func solid(_ width: Int, _ height: Int, _ rgba: [UInt8]) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba8: Array((0..<width * height).flatMap { _ in rgba }))
    }

    /// An image from rows of RGBA pixels.
    static func image(_ rows: [[[UInt8]]]) -> PixelBuffer {
        PixelBuffer(width: rows[0].count, height: rows.count, rgba8: rows.flatMap { $0.flatMap { $0 } })
    }

    /// The file's chunks, after the signature, in order.
    func chunks() -> [Chunk] {
        var result: [Chunk] = []
        let (ihdr, extra) = header()
        result.append(Chunk("IHDR", ihdr))
        result.append(contentsOf: extra)
        var actl = Self.bigEndian(declaredFrameCount ?? UInt32(frames.count))
        actl += Self.bigEndian(plays)
        result.append(Chunk("acTL", actl))
        var sequence: UInt32 = 0
        var remaining = frames[...]
        if let separateDefaultImage {
            result.append(contentsOf: imageData(separateDefaultImage).map { Chunk("IDAT", $0) })
        } else if let first = remaining.popFirst() {
            result.append(Chunk("fcTL", fctl(first, sequence: sequence)))
            sequence += 1
            result.append(contentsOf: imageData(first.image).map { Chunk("IDAT", $0) })
        }
        for frame in remaining {
            result.append(Chunk("fcTL", fctl(frame, sequence: sequence)))
            sequence += 1
            for piece in imageData(frame.image) {
                result.append(Chunk("fdAT", Self.bigEndian(sequence) + piece))
                sequence += 1
            }
        }
        result.append(Chunk("IEND", []))
        return result
    }

    /// The whole file.
    func build() -> [UInt8] { Self.serialize(chunks()) }

    /// Writes the signature and `chunks` with their lengths and CRCs.
    static func serialize(_ chunks: [Chunk]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for chunk in chunks {
            out += bigEndian(UInt32(chunk.data.count))
            let body = Array(chunk.type.utf8) + chunk.data
            out += body
            out += bigEndian(chunk.wrongCRC ?? CRC32.checksum(body))
        }
        return out
    }

    /// Renumbers the fcTL and fdAT chunks 0, 1, 2, ... in file order (after a test edits the list).
    static func renumber(_ chunks: inout [Chunk]) {
        var sequence: UInt32 = 0
        for index in chunks.indices where chunks[index].sequenceNumber != nil {
            chunks[index].setSequenceNumber(sequence)
            sequence += 1
        }
    }

    // MARK: - Encoding

    private func fctl(_ frame: Frame, sequence: UInt32) -> [UInt8] {
        var data = Self.bigEndian(sequence)
        for value in [frame.image.width, frame.image.height, frame.x, frame.y] { data += Self.bigEndian(UInt32(value)) }
        data += [UInt8(frame.delayNumerator >> 8), UInt8(frame.delayNumerator & 0xff)]
        data += [UInt8(frame.delayDenominator >> 8), UInt8(frame.delayDenominator & 0xff)]
        data += [frame.dispose, frame.blend]
        return data
    }

    /// IHDR's data, plus PLTE and tRNS when the layout has a palette.
    private func header() -> ([UInt8], [Chunk]) {
        if encoding == .pngEncoder {
            guard let image = frames.first?.image ?? separateDefaultImage else { preconditionFailure("no image") }
            let chunks = Self.parse(encoded(image))
            var ihdr = chunks.first { $0.type == "IHDR" }?.data ?? []
            ihdr.replaceSubrange(0..<8, with: Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)))
            return (ihdr, chunks.filter { $0.type == "PLTE" || $0.type == "tRNS" })
        }
        let (depth, colorType): (UInt8, UInt8) =
            switch layout {
            case .rgba8: (8, 6)
            case .rgba16: (16, 6)
            case .palette8: (8, 3)
            }
        let ihdr =
            Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [
                depth, colorType, 0, 0, interlaced ? 1 : 0,
            ]
        guard layout == .palette8 else { return (ihdr, []) }
        let colors = palette()
        return (ihdr, [Chunk("PLTE", colors.flatMap { $0[0..<3] }), Chunk("tRNS", colors.map { $0[3] })])
    }

    /// Every distinct colour of every image, in order of first appearance.
    private func palette() -> [[UInt8]] {
        var colors: [[UInt8]] = []
        for image in frames.map(\.image) + (separateDefaultImage.map { [$0] } ?? []) {
            for y in 0..<image.height {
                for x in 0..<image.width where !colors.contains(image.pixel8(x: x, y: y)) {
                    colors.append(image.pixel8(x: x, y: y))
                }
            }
        }
        return colors
    }

    private func encoded(_ image: PixelBuffer) -> [UInt8] {
        do {
            return try PNGEncoder().encode(image)
        } catch {
            fatalError("PNGEncoder failed in a test builder: \(error)")
        }
    }

    /// The zlib data of one image, cut into the pieces that become IDAT or fdAT chunks.
    private func imageData(_ image: PixelBuffer) -> [[UInt8]] {
        let zlib: [UInt8]
        switch encoding {
        case .pngEncoder:
            let chunks = Self.parse(encoded(image))
            let reference = header()
            let ihdr = chunks.first { $0.type == "IHDR" }?.data ?? []
            precondition(
                ihdr[8...] == reference.0[8...]
                    && chunks.filter({ $0.type == "PLTE" || $0.type == "tRNS" }) == reference.1,
                "PNGEncoder chose another layout for this frame; use frames that share one")
            zlib = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        case .stored:
            zlib = Self.storedZlib(scanlines(image))
        }
        guard let size = fdatPieceSize else { return [zlib] }
        var pieces: [[UInt8]] = []
        var start = 0
        while start < zlib.count {
            pieces.append([])
            pieces.append(Array(zlib[start..<min(start + size, zlib.count)]))
            start += size
        }
        return pieces
    }

    /// Filter-0 scanlines in the builder's layout, pass by pass when interlaced (Adam7).
    private func scanlines(_ image: PixelBuffer) -> [UInt8] {
        let colors = layout == .palette8 ? palette() : []
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] =
            interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var out: [UInt8] = []
        for pass in passes {
            let xs = Array(stride(from: pass.x, to: image.width, by: pass.dx))
            let ys = Array(stride(from: pass.y, to: image.height, by: pass.dy))
            guard !xs.isEmpty else { continue }
            for y in ys {
                out.append(0)
                for x in xs {
                    switch layout {
                    case .rgba8:
                        out += image.pixel8(x: x, y: y)
                    case .rgba16:
                        let base = (y * image.width + x) * 4
                        let samples =
                            image.rgba16.map { Array($0[base..<base + 4]) }
                            ?? image.pixel8(x: x, y: y).map { UInt16($0) * 257 }
                        for sample in samples { out += [UInt8(sample >> 8), UInt8(sample & 0xff)] }
                    case .palette8:
                        out.append(UInt8(colors.firstIndex(of: image.pixel8(x: x, y: y)) ?? 0))
                    }
                }
            }
        }
        return out
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func storedZlib(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65535, raw.count - start)
            let final: UInt8 = start + count == raw.count ? 1 : 0
            out += [final, UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += raw[start..<start + count]
            start += count
        } while start < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    /// The chunks of a PNG file (no checks: the input comes from ``PNGEncoder`` or ``serialize(_:)``).
    static func parse(_ png: [UInt8]) -> [Chunk] {
        var chunks: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append(Chunk(type, Array(png[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return chunks
    }

    /// Offsets of every chunk boundary in a serialized file (after the signature, after each chunk).
    static func chunkBoundaries(_ png: [UInt8]) -> [Int] {
        var boundaries = [8]
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
            offset += 12 + length
            boundaries.append(offset)
        }
        return boundaries
    }

    /// `value` as four bytes, most significant first.
    static func bigEndian(_ value: UInt32) -> [UInt8] { PNGBytes.bigEndian(value) }
}

/// Whole-buffer comparison for APNG tests: reports the first differing pixel and how many differ.
enum APNGPixels {
    /// `nil` when `actual` has `expected`'s size and pixels (8-bit view), else a description.
    static func difference(_ actual: PixelBuffer, _ expected: [[[UInt8]]]) -> String? {
        let height = expected.count
        let width = expected.first?.count ?? 0
        guard actual.width == width, actual.height == height else {
            return "size \(actual.width)x\(actual.height), expected \(width)x\(height)"
        }
        var first: String?
        var count = 0
        for y in 0..<height {
            for x in 0..<width where actual.pixel8(x: x, y: y) != expected[y][x] {
                count += 1
                if first == nil {
                    first = "(\(x), \(y)): expected \(expected[y][x]), actual \(actual.pixel8(x: x, y: y))"
                }
            }
        }
        return first.map { "\(count) pixels differ; first at \($0)" }
    }
}

extension APNGBuilder {
    /// Opens `bytes` as `anim.png` and decodes every frame.
    ///
    /// An animated file is also decoded with the reader decoding every frame itself and with two
    /// helper threads decoding ahead (``DecodeAhead``); both must give the same frames, or fail
    /// with the same error.
    static func decodeAll(
        _ bytes: [UInt8], depth: SampleDepth? = .eight, limits: DecodingLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws(ImgToolError) -> (info: ImageInfo, frames: [PixelBuffer]) {
        let source = try ImageSource(data: bytes, name: "anim.png", limits: limits)
        let (all, failure) = readAllFrames(try source.makeFrameReader(depth: depth))
        let frames = all.map(\.image)
        if let animated = try? APNGSource(data: bytes, limits: limits) {
            for helpers in [0, 2] {
                let reader = APNGFrameReader(
                    source: animated, depth: animated.outputDepth(for: depth), helpers: helpers)
                let (other, otherFailure) = readAllFrames(reader)
                #expect(
                    other.map(\.image) == frames, "\(helpers) helpers: different frames", sourceLocation: sourceLocation
                )
                #expect(
                    otherFailure?.code == failure?.code, "\(helpers) helpers: \(String(describing: otherFailure))",
                    sourceLocation: sourceLocation)
            }
        }
        if let failure { throw failure }
        return (source.info, frames)
    }
}
