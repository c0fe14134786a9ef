extension PixelBuffer {
    /// Sets every sample inside `region` (clipped to the buffer) to 0: transparent black.
    public mutating func clear(_ region: FrameRegion) {
        let r = region.clipped(toWidth: width, height: height)
        guard r.width > 0, r.height > 0 else { return }
        let rowWidth = width
        switch samples {
        case .rgba8: withMutableSamples(of: UInt8.self) { Self.clear(r, in: &$0, width: rowWidth) }
        case .rgba16: withMutableSamples(of: UInt16.self) { Self.clear(r, in: &$0, width: rowWidth) }
        }
    }

    /// Zeroes `region` (inside the buffer) of `samples`, rows `width` pixels long.
    private static func clear<S: Sample>(_ region: FrameRegion, in samples: inout [S], width: Int) {
        samples.withUnsafeMutableBufferPointer { buffer in
            for y in region.y..<region.y + region.height {
                let start = (y * width + region.x) * 4
                buffer[start..<start + region.width * 4].update(repeating: 0)
            }
        }
    }

    /// A new buffer holding the pixels of `region` (clipped to this buffer).
    public func cropped(to region: FrameRegion) -> PixelBuffer {
        let r = region.clipped(toWidth: width, height: height)
        var out = PixelBuffer(width: r.width, height: r.height, depth: depth)
        out.draw(self, from: r, at: (0, 0), blend: .source)
        return out
    }

    /// Draws the part `sourceRegion` of `image` with its top-left corner at `origin`, clipped to
    /// this buffer. `.source` replaces pixels (alpha included); `.over` is exact source-over
    /// (``SourceOver``). Both buffers must have the same depth.
    public mutating func draw(
        _ image: PixelBuffer, from sourceRegion: FrameRegion? = nil, at origin: (x: Int, y: Int), blend: FrameBlend
    ) {
        draw(image, from: sourceRegion, at: origin, blend: blend, opacity: nil)
    }

    /// ``draw(_:from:at:blend:)`` with `.over` blending the source's alpha scaled by the opacity
    /// level `opacity` (`0...M`, ``OverlayPlacement/opacityLevel(for:)``); `nil` is `M`.
    mutating func draw(
        _ image: PixelBuffer, from sourceRegion: FrameRegion? = nil, at origin: (x: Int, y: Int), blend: FrameBlend,
        opacity: Int?
    ) {
        precondition(image.depth == depth, "draw needs buffers of the same depth")
        var src = (sourceRegion ?? FrameRegion(x: 0, y: 0, width: image.width, height: image.height))
            .clipped(toWidth: image.width, height: image.height)
        var dstX = origin.x
        var dstY = origin.y
        // Clip against the destination, moving the source window along.
        if dstX < 0 {
            src.x -= dstX
            src.width += dstX
            dstX = 0
        }
        if dstY < 0 {
            src.y -= dstY
            src.height += dstY
            dstY = 0
        }
        src.width = min(src.width, width - dstX)
        src.height = min(src.height, height - dstY)
        guard src.width > 0, src.height > 0 else { return }
        let to = (x: dstX, y: dstY, width: width)
        switch image.samples {
        case .rgba8(let source):
            let level = UInt32(clamping: opacity ?? 255)
            withMutableSamples(of: UInt8.self) {
                Self.draw(source, width: image.width, src, onto: &$0, at: to, blend: blend, opacity: level)
            }
        case .rgba16(let source):
            let level = UInt64(clamping: opacity ?? 65535)
            withMutableSamples(of: UInt16.self) {
                Self.draw(source, width: image.width, src, onto: &$0, at: to, blend: blend, opacity: level)
            }
        }
    }

    /// Copies or blends `region` of `source` (rows `width` pixels long) onto `destination`
    /// (rows `to.width` long) at `(to.x, to.y)`; both rectangles lie inside their buffers.
    private static func draw<S: Sample>(
        _ source: [S], width: Int, _ region: FrameRegion, onto destination: inout [S],
        at to: (x: Int, y: Int, width: Int), blend: FrameBlend, opacity level: S.Wide
    ) {
        source.withUnsafeBufferPointer { s in
            destination.withUnsafeMutableBufferPointer { d in
                guard let sBase = s.baseAddress, let dBase = d.baseAddress else { return }
                for row in 0..<region.height {
                    let from = sBase + ((region.y + row) * width + region.x) * 4
                    let into = dBase + ((to.y + row) * to.width + to.x) * 4
                    if blend == .source {
                        into.update(from: from, count: region.width * 4)
                    } else {
                        SourceOver.blendRow(from, over: into, count: region.width, opacity: level)
                    }
                }
            }
        }
    }
}
