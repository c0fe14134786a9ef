/// One decoded GIF frame before composition: its palette indices, clipped to the logical screen
/// and in screen row order, and its 256 colours.
///
/// LZW decoding is most of the cost of a GIF, and each frame's LZW data is independent of the
/// others; composition is not (transparency and disposal depend on the canvas). So frames are
/// decoded into these buffers, possibly on another thread (``DecodeAhead``), and drawn onto the
/// canvas in order by ``GIFFrameReader``. A buffer is reused from frame to frame; it only grows,
/// and never past the logical screen's area.
///
/// `@unchecked Sendable`: a buffer has one owner at a time. ``DecodeAhead`` hands it from the
/// thread that decodes into it to the reader that draws it under its mutex, and nobody touches a
/// buffer while it sits in the pipeline's tables.
final class GIFFrameIndices: @unchecked Sendable {
    /// The frame's region clipped to the screen; the indices cover exactly this rectangle.
    private(set) var clip = FrameRegion(x: 0, y: 0, width: 0, height: 0)
    /// `clip.width * clip.height` palette indices, row after row.
    private(set) var indices: UnsafeMutablePointer<UInt8>
    /// Colour lookup: 256 RGBA pixels in memory order R, G, B, A.
    let colors: UnsafeMutablePointer<UInt32>
    private var capacity = 0

    init() {
        indices = .allocate(capacity: 0)
        colors = .allocate(capacity: 256)
        colors.initialize(repeating: 0, count: 256)
    }

    deinit {
        indices.deallocate()
        colors.deallocate()
    }

    /// Decodes `frame` of `source` into this buffer, in a giflib session of its own positioned at
    /// the frame's image descriptor, after checking that the descriptor still reads as it did
    /// when the file was parsed.
    /// - Throws: ``ImgToolError`` `corrupt`, or `cancelled` once `shouldStop` returns `true`.
    func decode(_ frame: GIFSource.Frame, of source: GIFSource, shouldStop: () -> Bool) throws(ImgToolError) {
        let index = frame.info.index
        let decoder = try GIFDecoder(data: source.data)
        defer { decoder.close() }
        decoder.seek(toRecordAt: frame.offset)
        guard try decoder.nextRecord("frame \(index)'s image descriptor") == .image else {
            throw ImgToolError(.corrupt, "corrupt GIF: frame \(index) is no longer at byte \(frame.offset)")
        }
        let header = try decoder.readImageHeader("frame \(index)'s image descriptor")
        guard header.region == frame.info.region else {
            throw ImgToolError(
                .corrupt,
                "corrupt GIF: frame \(index) reads as \(header.region), not \(frame.info.region) as first parsed")
        }
        try decoder.decodeIndices(
            header, into: self, screenWidth: source.info.width, screenHeight: source.info.height,
            shouldStop: shouldStop, "frame \(index)'s image data")
    }

    /// Makes room for `clip`'s indices; the previous contents are lost.
    func reset(clip: FrameRegion) {
        self.clip = clip
        let needed = clip.width * clip.height
        guard needed > capacity else { return }
        indices.deallocate()
        indices = .allocate(capacity: needed)
        adviseHugePages(UnsafeMutableRawBufferPointer(start: indices, count: needed))
        capacity = needed
    }

    /// Draws the frame onto `canvas`, an RGBA8 image `width` pixels wide that contains the clip:
    /// each pixel takes its index's colour, except `transparentIndex`, which leaves the canvas
    /// pixel as it is.
    func draw(onto canvas: inout [UInt8], width: Int, transparentIndex: UInt8?) {
        guard clip.width > 0, clip.height > 0 else { return }
        let colors = UnsafePointer(self.colors)
        canvas.withUnsafeMutableBytes { pixels in
            guard let base = pixels.baseAddress else { return }
            for row in 0..<clip.height {
                let source = UnsafePointer(indices + row * clip.width)
                let target = base + ((clip.y + row) * width + clip.x) * 4
                Self.blit(source, to: target, count: clip.width, colors: colors, transparent: transparentIndex)
            }
        }
    }

    /// Writes `count` palette indices as RGBA pixels, skipping the transparent index.
    @inline(__always)
    private static func blit(
        _ source: UnsafePointer<UInt8>, to target: UnsafeMutableRawPointer, count: Int, colors: UnsafePointer<UInt32>,
        transparent: UInt8?
    ) {
        if let transparent {
            for i in 0..<count {
                let index = source[i]
                if index != transparent {
                    target.storeBytes(of: colors[Int(index)], toByteOffset: i &* 4, as: UInt32.self)
                }
            }
        } else {
            for i in 0..<count {
                target.storeBytes(of: colors[Int(source[i])], toByteOffset: i &* 4, as: UInt32.self)
            }
        }
    }
}
