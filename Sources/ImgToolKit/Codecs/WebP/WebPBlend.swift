/// The pixel operations of WebP compositing, with libwebp's arithmetic.
///
/// libwebp's `WebPAnimDecoder` blends straight (non-premultiplied) RGBA with integer
/// arithmetic that approximates source-over: with source alpha `sa` (1...254) and destination
/// alpha `da`, the destination's weight is `(da * (256 - sa)) >> 8`, the result's alpha is
/// `sa` plus that weight, and each colour channel is the weighted sum scaled by
/// `(1 << 24) / alpha` and shifted right by 24. An opaque source pixel replaces the
/// destination and a fully transparent one leaves it. imgtool uses the same formula so that its
/// canvases are libwebp's, bit for bit.
enum WebPBlend {
    /// Clears `region` (inside the canvas) to transparent black.
    static func clear(_ region: FrameRegion, in canvas: inout [UInt8], width: Int) {
        guard region.width > 0, region.height > 0 else { return }
        canvas.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            for row in region.y..<region.y + region.height {
                (base + (row * width + region.x) * 4).update(repeating: 0, count: region.width * 4)
            }
        }
    }

    /// Draws `pixels` (the frame, `region.width * region.height` RGBA pixels) at `region`.
    /// - Parameters:
    ///   - blends: blend with libwebp's source-over; `false` copies every pixel.
    ///   - keeping: the rectangle the previous frame disposed of: its pixels are copied even
    ///     when blending, as `WebPAnimDecoder` does.
    static func draw(
        _ pixels: [UInt8], region: FrameRegion, onto canvas: inout [UInt8], width: Int, blends: Bool,
        keeping disposed: FrameRegion?
    ) {
        let rowBytes = region.width * 4
        pixels.withUnsafeBufferPointer { frame in
            canvas.withUnsafeMutableBufferPointer { target in
                guard let from = frame.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<region.height {
                    let source = from + row * rowBytes
                    let destination = to + ((region.y + row) * width + region.x) * 4
                    guard blends else {
                        destination.update(from: source, count: rowBytes)
                        continue
                    }
                    // The part of the row inside the disposed rectangle is copied, the rest blended.
                    var copyStart = region.width
                    var copyEnd = region.width
                    if let disposed, (disposed.y..<disposed.y + disposed.height).contains(region.y + row) {
                        copyStart = min(max(disposed.x - region.x, 0), region.width)
                        copyEnd = min(max(disposed.x + disposed.width - region.x, copyStart), region.width)
                    }
                    blendRow(source, destination, count: copyStart)
                    (destination + copyStart * 4).update(from: source + copyStart * 4, count: (copyEnd - copyStart) * 4)
                    blendRow(source + copyEnd * 4, destination + copyEnd * 4, count: region.width - copyEnd)
                }
            }
        }
    }

    /// Blends `count` pixels of `source` over `destination`, in place. Runs of opaque source
    /// pixels are copied whole; fully transparent ones leave the destination as it is.
    @inline(__always)
    static func blendRow(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        var pixel = 0
        while pixel < count {
            let sourceAlpha = UInt32(source[pixel * 4 + 3])
            if sourceAlpha == 255 {
                var end = pixel + 1
                while end < count && source[end * 4 + 3] == 255 { end += 1 }
                (destination + pixel * 4).update(from: source + pixel * 4, count: (end - pixel) * 4)
                pixel = end
                continue
            }
            if sourceAlpha != 0 {
                let s = source + pixel * 4
                let d = destination + pixel * 4
                let destinationWeight = (UInt32(d[3]) * (256 - sourceAlpha)) >> 8
                let alpha = sourceAlpha + destinationWeight
                let scale = (1 << 24) / alpha
                for channel in 0..<3 {
                    let sum = UInt32(s[channel]) * sourceAlpha + UInt32(d[channel]) * destinationWeight
                    d[channel] = UInt8(truncatingIfNeeded: (sum &* scale) >> 24)
                }
                d[3] = UInt8(truncatingIfNeeded: alpha)
            }
            pixel += 1
        }
    }
}
