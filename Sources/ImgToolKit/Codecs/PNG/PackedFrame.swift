internal import CLibPNG

/// A decoded frame held zlib-compressed (level 1): what the PNG writer keeps of the frames it
/// reads while the storage is still open, once two canvases are held as they are. An animation
/// of few colours, the usual reason the choice stays open, compresses tens of times, so holding
/// it costs far less than decoding (and resizing, compositing) the source a second time.
struct PackedFrame: Sendable {
    let info: FrameInfo
    private let width: Int
    private let height: Int
    private let depth: SampleDepth
    /// The zlib stream of the samples (16-bit ones in native order).
    let bytes: [UInt8]

    /// Compresses `frame`.
    /// - Throws: ``ImgToolError`` `tooLarge` when memory runs out.
    init(_ frame: Frame) throws(ImgToolError) {
        info = frame.info
        width = frame.image.width
        height = frame.image.height
        depth = frame.image.depth
        let packed: [UInt8]? =
            switch frame.image.samples {
            case .rgba8(let samples): samples.withUnsafeBytes { Self.pack($0) }
            case .rgba16(let samples): samples.withUnsafeBytes { Self.pack($0) }
            }
        guard let packed else {
            throw ImgToolError(.tooLarge, "out of memory holding frame \(frame.index) compressed")
        }
        bytes = packed
    }

    private static func pack(_ raw: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [] }
        var length = 0
        guard let out = imgtool_png_zlib_compress(base, raw.count, 1, &length) else { return nil }
        defer { imgtool_png_buffer_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// The frame as it was.
    /// - Throws: ``ImgToolError`` `tooLarge` when memory runs out (the data is its own and whole).
    func unpacked() throws(ImgToolError) -> Frame {
        let count = width * height * 4
        let ok: Bool
        let image: PixelBuffer
        switch depth {
        case .eight:
            var samples = [UInt8](repeating: 0, count: count)
            ok = samples.withUnsafeMutableBytes { Self.unpack(bytes, into: $0) }
            image = PixelBuffer(width: width, height: height, rgba8: samples)
        case .sixteen:
            var samples = [UInt16](repeating: 0, count: count)
            ok = samples.withUnsafeMutableBytes { Self.unpack(bytes, into: $0) }
            image = PixelBuffer(width: width, height: height, rgba16: samples)
        }
        guard ok else { throw ImgToolError(.tooLarge, "frame \(info.index), held compressed, did not unpack") }
        return Frame(info: info, image: image)
    }

    private static func unpack(_ bytes: [UInt8], into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        return bytes.withUnsafeBufferPointer {
            imgtool_png_zlib_uncompress($0.baseAddress, $0.count, target, out.count) == 0
        }
    }
}
