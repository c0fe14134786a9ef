/// Decodes and composites the frames of a ``GIFSource`` in order, as browsers show them.
///
/// The canvas has the size of the logical screen and starts fully transparent. Each frame's
/// palette indices are decoded by giflib (through ``DecodeAhead``, which decodes the next frames
/// on the other cores while this one is drawn) and drawn onto the canvas, clipped to the screen;
/// the transparent index leaves the canvas pixel untouched. After a frame is shown its disposal
/// applies to its (clipped) rectangle: `none` keeps it, `background` clears it to transparent
/// (the background colour is ignored, as in Firefox, Chromium and ImageIO), `previous` puts
/// back what was there before the frame (transparent when nothing was).
///
/// Memory is one canvas, one saved rectangle and a few screen-sized index buffers, whatever the
/// frame count. A one-shot object used inside one task and never shared; the frames it returns
/// are `Sendable` values. Releasing it stops its helper threads.
final class GIFFrameReader: FrameReader {
    private let source: GIFSource
    private let depth: SampleDepth
    private let decoding: DecodeAhead<GIFFrameIndices>
    /// Whether frame 0 is decoded and drawn on two cores before the helpers start.
    private let splitFirst: Bool
    private var canvas: [UInt8]
    /// The rectangle to restore after a `previous` frame, row by row.
    private var saved: [UInt8] = []
    /// What to do to the canvas before the next frame is drawn.
    private var pendingDisposal: (disposal: FrameDisposal, region: FrameRegion)?
    private var nextIndex = 0
    /// The first error; frames after it are never shown, so it is thrown again.
    private var failure: ImgToolError?

    /// Prepares to composite the source's frames.
    /// - Parameters:
    ///   - depth: the output depth; GIF samples are 8-bit, 16-bit output widens them (x 257).
    ///   - helpers: threads that decode ahead; `nil` picks ``DecodeAhead/helpers(frameCount:pixels:)``.
    ///   - minimumSplit: the fewest pixels for which the first frame is decoded in two halves at
    ///     once (``GIFLZWSplit``); tests lower it.
    init(
        source: GIFSource, depth: SampleDepth, helpers: Int? = nil,
        minimumSplit: Int = GIFFrameIndices.splitThreshold
    ) {
        self.source = source
        self.depth = depth
        let count = source.info.width * source.info.height * 4
        // The canvas starts transparent, unless frame 0 paints every pixel of it anyway: it
        // covers the screen, has no transparent index and is not restored afterwards. Skipping
        // the clear saves a pass over the canvas before a large first frame can be shown.
        let paintsEverything = source.frames.first.map { Self.paintsEveryPixel($0, of: source) } ?? false
        canvas = [UInt8](unsharedUninitializedCapacity: count) { buffer, initialized in
            adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
            if !paintsEverything { buffer.initialize(repeating: 0) }
            initialized = count
        }
        let pixels = source.frames.reduce(0) { $0 + $1.info.region.width * $1.info.region.height }
        let helpers =
            helpers ?? DecodeAhead<GIFFrameIndices>.helpers(frameCount: source.frames.count, pixels: pixels)
        // The first frame is what a viewer waits for: when it is large, its LZW data is cut in
        // two and decoded on two cores, and the helpers start only when frame 1 is asked for,
        // once frame 0 is on its way to the screen.
        let first = source.frames.first
        let splitFirst =
            (helpers > 0 || source.frames.count == 1) && availableProcessors > 1
            && first.map { $0.info.region.width * $0.info.region.height >= minimumSplit } ?? false
        self.splitFirst = splitFirst
        decoding = DecodeAhead(
            frameCount: source.frames.count, helpers: helpers, helpersStartAt: splitFirst ? 1 : 0
        ) { index, spare, shouldStop throws(ImgToolError) in
            let indices = spare ?? GIFFrameIndices()
            try indices.decode(
                source.frames[index], of: source, splitting: index == 0 && splitFirst, minimumSplit: minimumSplit,
                shouldStop: shouldStop)
            return indices
        }
    }

    deinit {
        decoding.stop()
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        if let failure { throw failure }
        guard nextIndex < source.frames.count else {
            decoding.stop()
            return nil
        }
        do throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before GIF frame \(nextIndex)") }
            let frame = try compose(source.frames[nextIndex])
            nextIndex += 1
            if nextIndex == source.frames.count { decoding.stop() }
            return frame
        } catch {
            failure = error
            decoding.stop()
            throw error
        }
    }

    private func compose(_ frame: GIFSource.Frame) throws(ImgToolError) -> Frame {
        let width = source.info.width
        let height = source.info.height
        let indices = try decoding.decoded(frame.info.index, isCancelled: { Task.isCancelled })
        defer { decoding.recycle(indices) }

        let clip = frame.info.region.clipped(toWidth: width, height: height)
        if Self.paintsEveryPixel(frame, of: source) {
            // The frame paints every pixel, so nothing on the canvas survives it: no disposal
            // to apply.
        } else if let pending = pendingDisposal {
            switch pending.disposal {
            case .none: break
            case .background: clear(pending.region)
            case .previous: restore(pending.region)
            }
        }
        if frame.info.disposal == .previous { save(clip) }
        pendingDisposal = (frame.info.disposal, clip)
        indices.draw(
            onto: &canvas, width: width, transparentIndex: frame.transparentIndex,
            inHalves: frame.info.index == 0 && splitFirst)

        // The canvas is never handed out (`unsharedCopy()`): the next frame is drawn on it in
        // place while an encoder may still read this one.
        let shown = PixelBuffer(width: width, height: height, rgba8: canvas)
        var image = depth == .sixteen ? shown.converted(to: .sixteen) : shown.unsharedCopy()
        image.metadata = ImageMetadata(format: .gif, bitDepth: 8, colorType: .palette)
        return Frame(info: frame.info, image: image)
    }

    /// Whether `frame` sets every pixel of the canvas and is not restored afterwards: it covers
    /// the screen, has no transparent index and its disposal is not `previous`. Nothing drawn
    /// before it shows through, so it needs no cleared or copied canvas.
    private static func paintsEveryPixel(_ frame: GIFSource.Frame, of source: GIFSource) -> Bool {
        frame.transparentIndex == nil && frame.info.disposal != .previous
            && frame.info.region.clipped(toWidth: source.info.width, height: source.info.height)
                == FrameRegion(x: 0, y: 0, width: source.info.width, height: source.info.height)
    }

    // MARK: - Disposal

    /// Sets the (already clipped) rectangle to transparent black.
    private func clear(_ region: FrameRegion) {
        guard region.width > 0, region.height > 0 else { return }
        let rowBytes = region.width * 4
        let stride = source.info.width * 4
        canvas.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            for row in region.y..<region.y + region.height {
                (base + row * stride + region.x * 4).update(repeating: 0, count: rowBytes)
            }
        }
    }

    /// Copies the (already clipped) rectangle of the canvas into ``saved``.
    private func save(_ region: FrameRegion) {
        let rowBytes = region.width * 4
        let needed = rowBytes * region.height
        if saved.count < needed { saved = [UInt8](repeating: 0, count: needed) }
        guard needed > 0 else { return }
        let stride = source.info.width * 4
        canvas.withUnsafeBufferPointer { pixels in
            saved.withUnsafeMutableBufferPointer { copy in
                guard let from = pixels.baseAddress, let to = copy.baseAddress else { return }
                for row in 0..<region.height {
                    (to + row * rowBytes).update(from: from + (region.y + row) * stride + region.x * 4, count: rowBytes)
                }
            }
        }
    }

    /// Puts ``saved`` back into the (already clipped) rectangle it was taken from.
    private func restore(_ region: FrameRegion) {
        let rowBytes = region.width * 4
        guard rowBytes * region.height > 0 else { return }
        let stride = source.info.width * 4
        saved.withUnsafeBufferPointer { copy in
            canvas.withUnsafeMutableBufferPointer { pixels in
                guard let from = copy.baseAddress, let to = pixels.baseAddress else { return }
                for row in 0..<region.height {
                    (to + (region.y + row) * stride + region.x * 4).update(from: from + row * rowBytes, count: rowBytes)
                }
            }
        }
    }
}
