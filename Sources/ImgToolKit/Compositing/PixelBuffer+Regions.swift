extension PixelBuffer {
    /// Sets every sample inside `region` (clipped to the buffer) to 0: transparent black.
    public mutating func clear(_ region: FrameRegion) {
        let r = region.clipped(toWidth: width, height: height)
        guard r.width > 0, r.height > 0 else { return }
        let rowWidth = width
        switch depth {
        case .eight:
            withMutableRGBA8 { samples in
                samples.withUnsafeMutableBufferPointer { buffer in
                    for y in r.y..<r.y + r.height {
                        let start = (y * rowWidth + r.x) * 4
                        buffer[start..<start + r.width * 4].update(repeating: 0)
                    }
                }
            }
        case .sixteen:
            withMutableRGBA16 { samples in
                samples.withUnsafeMutableBufferPointer { buffer in
                    for y in r.y..<r.y + r.height {
                        let start = (y * rowWidth + r.x) * 4
                        buffer[start..<start + r.width * 4].update(repeating: 0)
                    }
                }
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
        let columns = min(src.width, width - dstX)
        let rows = min(src.height, height - dstY)
        guard columns > 0, rows > 0 else { return }
        let dstWidth = width
        switch (image.samples, depth) {
        case (.rgba8(let source), .eight):
            withMutableRGBA8 { dst in
                source.withUnsafeBufferPointer { s in
                    dst.withUnsafeMutableBufferPointer { d in
                        guard let sBase = s.baseAddress, let dBase = d.baseAddress else { return }
                        for row in 0..<rows {
                            let from = sBase + ((src.y + row) * image.width + src.x) * 4
                            let to = dBase + ((dstY + row) * dstWidth + dstX) * 4
                            if blend == .source {
                                to.update(from: from, count: columns * 4)
                            } else {
                                SourceOver.blendRow8(from, over: to, count: columns)
                            }
                        }
                    }
                }
            }
        case (.rgba16(let source), .sixteen):
            withMutableRGBA16 { dst in
                source.withUnsafeBufferPointer { s in
                    dst.withUnsafeMutableBufferPointer { d in
                        guard let sBase = s.baseAddress, let dBase = d.baseAddress else { return }
                        for row in 0..<rows {
                            let from = sBase + ((src.y + row) * image.width + src.x) * 4
                            let to = dBase + ((dstY + row) * dstWidth + dstX) * 4
                            if blend == .source {
                                to.update(from: from, count: columns * 4)
                            } else {
                                SourceOver.blendRow16(from, over: to, count: columns)
                            }
                        }
                    }
                }
            }
        default:
            preconditionFailure("draw needs buffers of the same depth")
        }
    }
}
