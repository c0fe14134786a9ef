import ImgToolKit

/// An RGB picture made for a terminal: straight RGBA composited over black, one `0xRRGGBB`
/// value per pixel, row-major.
struct ScaledImage: Sendable, Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt32]
}

/// Scales a canvas with area averaging: each output pixel is the mean of the source area it
/// covers, weighted by how much of each source pixel falls inside it (a box filter with exact
/// fractional coverage), computed on colour premultiplied by alpha, i.e. over black.
///
/// Separable: a horizontal pass per source row, then a vertical pass, so a 480x270 frame to
/// 100x80 costs about one four-lane multiply-add per source pixel.
enum AreaScaler {
    /// The largest `width` x `height` with the image's aspect ratio (pixels taken as square)
    /// that fits in `boxWidth` x `boxHeight`, at least 1x1.
    static func fit(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0, boxWidth > 0, boxHeight > 0 else { return (max(boxWidth, 1), max(boxHeight, 1)) }
        let scale = min(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        let fittedWidth = min(boxWidth, max(1, Int((Double(width) * scale).rounded())))
        let fittedHeight = min(boxHeight, max(1, Int((Double(height) * scale).rounded())))
        return (fittedWidth, fittedHeight)
    }

    /// One output pixel's source span: the first source index and each covered pixel's weight
    /// (the weights add up to 1).
    struct Span {
        var first: Int
        var weights: [Float]
    }

    /// The spans that map `sourceCount` pixels onto `targetCount`.
    static func spans(from sourceCount: Int, to targetCount: Int) -> [Span] {
        let ratio = Double(sourceCount) / Double(targetCount)
        return (0..<targetCount).map { index in
            let start = Double(index) * ratio
            let end = min(Double(index + 1) * ratio, Double(sourceCount))
            let first = min(Int(start), sourceCount - 1)
            let last = max(first, min(Int((end - 1e-9).rounded(.up)) - 1, sourceCount - 1))
            var weights: [Float] = []
            for source in first...last {
                let overlap = min(Double(source + 1), end) - max(Double(source), start)
                weights.append(Float(max(overlap, 0) / (end - start)))
            }
            return Span(first: first, weights: weights)
        }
    }

    /// `image` scaled to `width` x `height` with area averaging, over black.
    static func scale(_ image: PixelBuffer, toWidth width: Int, height: Int) -> ScaledImage {
        let source = image.converted(to: .eight)
        guard let samples = source.rgba8, source.width > 0, source.height > 0, width > 0, height > 0 else {
            return ScaledImage(
                width: max(width, 0), height: max(height, 0),
                pixels: Array(repeating: 0, count: max(width, 0) * max(height, 0)))
        }
        let sourceWidth = source.width
        let sourceHeight = source.height
        let columns = spans(from: sourceWidth, to: width)
        let rows = spans(from: sourceHeight, to: height)
        // The column spans flattened: each output column's first source pixel, and where its
        // weights start in one array (the next column's start ends them).
        let firsts = columns.map(\.first)
        let weights = columns.flatMap(\.weights)
        var weightStarts = [0]
        for span in columns { weightStarts.append(weightStarts[weightStarts.count - 1] + span.weights.count) }
        // Horizontal pass: every source row to `width` premultiplied colours (the lanes are R, G,
        // B and an unused A), one SIMD multiply-add per source pixel.
        var horizontal = [SIMD4<Float>](repeating: .zero, count: sourceHeight * width)
        samples.withUnsafeBytes { src in
            horizontal.withUnsafeMutableBufferPointer { out in
                weights.withUnsafeBufferPointer { weights in
                    guard let base = src.baseAddress else { return }
                    for y in 0..<sourceHeight {
                        let rowBase = y * sourceWidth * 4
                        let outBase = y * width
                        for x in 0..<width {
                            var sum = SIMD4<Float>.zero
                            var offset = rowBase + firsts[x] * 4
                            for w in weightStarts[x]..<weightStarts[x + 1] {
                                let pixel = SIMD4<Float>(
                                    base.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                                let alpha = pixel[3] * (1 / 255) * weights[w]
                                sum += pixel * alpha
                                offset += 4
                            }
                            out[outBase + x] = sum
                        }
                    }
                }
            }
        }
        // Vertical pass.
        var pixels = [UInt32](repeating: 0, count: width * height)
        horizontal.withUnsafeBufferPointer { rowsIn in
            pixels.withUnsafeMutableBufferPointer { out in
                var accumulator = [SIMD4<Float>](repeating: .zero, count: width)
                for (y, span) in rows.enumerated() {
                    for index in accumulator.indices { accumulator[index] = .zero }
                    for (step, weight) in span.weights.enumerated() {
                        let base = (span.first + step) * width
                        for index in 0..<width {
                            accumulator[index] += rowsIn[base + index] * weight
                        }
                    }
                    for x in 0..<width {
                        let r = UInt32(min(max(accumulator[x][0].rounded(), 0), 255))
                        let g = UInt32(min(max(accumulator[x][1].rounded(), 0), 255))
                        let b = UInt32(min(max(accumulator[x][2].rounded(), 0), 255))
                        out[y * width + x] = r << 16 | g << 8 | b
                    }
                }
            }
        }
        return ScaledImage(width: width, height: height, pixels: pixels)
    }
}
