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
/// thread that decodes into it to the reader that draws it under its lock, and nobody touches a
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

    /// Frames with fewer pixels are never split: the walk and a second thread cost more than
    /// half a decode saves.
    static let splitThreshold = 1 << 18

    /// Decodes `frame` of `source` into this buffer, in a giflib session of its own positioned at
    /// the frame's image descriptor, after checking that the descriptor still reads as it did
    /// when the file was parsed.
    /// - Parameters:
    ///   - splitting: decode the two halves of the frame's LZW data on two threads when the data
    ///     can be cut (``GIFLZWSplit``), the frame is not interlaced, lies inside the screen and
    ///     has at least `minimumSplit` pixels.
    ///   - shouldStop: checked between bands of rows (not in a split decode, which is short).
    /// - Throws: ``ImgToolError`` `corrupt`, or `cancelled` once `shouldStop` returns `true`.
    func decode(
        _ frame: GIFSource.Frame, of source: GIFSource, splitting: Bool = false, minimumSplit: Int = splitThreshold,
        shouldStop: () -> Bool
    ) throws(ImgToolError) {
        let index = frame.info.index
        let decoder = try GIFDecoder(data: source.data)
        defer { decoder.close() }
        decoder.seek(toRecordAt: frame.offset)
        guard try decoder.nextRecord("frame \(index)'s image descriptor") == .image else {
            throw ImgToolError(.corrupt, "corrupt GIF: frame \(index) is no longer at byte \(frame.offset)")
        }
        let header = try decoder.readImageHeader("frame \(index)'s image descriptor")
        let region = header.region
        guard region == frame.info.region else {
            throw ImgToolError(
                .corrupt, "corrupt GIF: frame \(index) reads as \(region), not \(frame.info.region) as first parsed")
        }
        let pixels = region.width * region.height
        let clip = region.clipped(toWidth: source.info.width, height: source.info.height)
        if splitting, !header.isInterlaced, clip == region, pixels >= max(minimumSplit, 2),
            let split = GIFLZWSplit.find(
                in: source.data, at: decoder.offset, minimumCodeSize: Int(source.data[decoder.offset - 1]),
                pixelCount: pixels)
        {
            reset(clip: clip)
            try decoder.loadColors(into: self)
            try decodeSplit(split, pixels: pixels, with: decoder, index: index)
            return
        }
        try decoder.decodeIndices(
            header, into: self, screenWidth: source.info.width, screenHeight: source.info.height,
            shouldStop: shouldStop, "frame \(index)'s image data")
    }

    /// Decodes the pixels before the cut with `decoder` while a second thread decodes the rest
    /// from the split's own GIF; the frame fills the buffer row after row (it is not clipped).
    private func decodeSplit(_ split: GIFLZWSplit, pixels: Int, with decoder: GIFDecoder, index: Int)
        throws(ImgToolError)
    {
        let tailTarget = IndexTarget(pointer: indices + split.pixelOffset)
        let tailCount = pixels - split.pixelOffset
        let (tail, head) = forkJoin(
            { () -> Result<Void, ImgToolError> in
                do throws(ImgToolError) {
                    let tail = try GIFDecoder(data: split.tail)
                    defer { tail.close() }
                    _ = try tail.nextRecord("the second half of frame \(index)")
                    _ = try tail.readImageHeader("the second half of frame \(index)")
                    try tail.decodePixels(into: tailTarget.pointer, count: tailCount, "")
                    return .success(())
                } catch {
                    return .failure(error)
                }
            },
            alongside: { () -> Result<Void, ImgToolError> in
                do throws(ImgToolError) {
                    try decoder.decodePixels(into: indices, count: split.pixelOffset, "frame \(index)'s image data")
                    return .success(())
                } catch {
                    return .failure(error)
                }
            })
        try head.get()
        if case .failure(let error) = tail {
            throw ImgToolError(
                .corrupt,
                "corrupt GIF: \(error.cause ?? "bad LZW data") in frame \(index)'s image data after pixel \(split.pixelOffset)",
                cause: error.cause)
        }
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
    /// - Parameter inHalves: draw the bottom half of the rows on a second thread (for a large
    ///   first frame, while the other cores are idle).
    func draw(onto canvas: inout [UInt8], width: Int, transparentIndex: UInt8?, inHalves: Bool = false) {
        guard clip.width > 0, clip.height > 0 else { return }
        canvas.withUnsafeMutableBytes { pixels in
            guard let base = pixels.baseAddress else { return }
            let target = IndexTarget(pointer: base.assumingMemoryBound(to: UInt8.self))
            guard inHalves, clip.height >= 2 else {
                draw(rows: 0..<clip.height, onto: target, width: width, transparentIndex: transparentIndex)
                return
            }
            let middle = clip.height / 2
            _ = forkJoin(
                { [self] in
                    draw(rows: middle..<clip.height, onto: target, width: width, transparentIndex: transparentIndex)
                },
                alongside: { draw(rows: 0..<middle, onto: target, width: width, transparentIndex: transparentIndex) })
        }
    }

    /// Draws `rows` of the clip onto the canvas at `canvas`.
    private func draw(rows: Range<Int>, onto canvas: IndexTarget, width: Int, transparentIndex: UInt8?) {
        let colors = UnsafePointer(self.colors)
        let base = UnsafeMutableRawPointer(canvas.pointer)
        for row in rows {
            let source = UnsafePointer(indices + row * clip.width)
            let target = base + ((clip.y + row) * width + clip.x) * 4
            Self.blit(source, to: target, count: clip.width, colors: colors, transparent: transparentIndex)
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

/// Where the second half of a split frame or drawing goes: a pointer into a buffer that the
/// joining thread owns and does not touch until the half is done.
///
/// `@unchecked Sendable`: the two halves write disjoint ranges, and ``forkJoin(_:alongside:)``
/// returns only after the side thread has finished.
private struct IndexTarget: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
}
