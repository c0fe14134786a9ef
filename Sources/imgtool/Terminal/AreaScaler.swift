import Dispatch
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
    ///
    /// Output rows are computed in bands, each from the source rows it covers, so nothing larger
    /// than an output row is kept in between; a large source is split into two bands computed
    /// at once (the source row where the bands meet is filtered by both).
    static func scale(_ image: PixelBuffer, toWidth width: Int, height: Int) -> ScaledImage {
        let source = image.converted(to: .eight)
        guard let samples = source.rgba8, source.width > 0, source.height > 0, width > 0, height > 0 else {
            return ScaledImage(
                width: max(width, 0), height: max(height, 0),
                pixels: Array(repeating: 0, count: max(width, 0) * max(height, 0)))
        }
        let plan = Plan(sourceWidth: source.width, sourceHeight: source.height, width: width, height: height)
        let bands = source.width * source.height >= Self.parallelThreshold && height >= 2 ? 2 : 1
        var pixels = [UInt32](repeating: 0, count: width * height)
        samples.withUnsafeBytes { src in
            pixels.withUnsafeMutableBufferPointer { out in
                guard let source = src.baseAddress, let target = out.baseAddress else { return }
                let rows = RowTarget(source: source, target: target)
                guard bands > 1 else {
                    plan.scale(rows: 0..<height, of: rows)
                    return
                }
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    plan.scale(rows: band * height / bands..<(band + 1) * height / bands, of: rows)
                }
            }
        }
        return ScaledImage(width: width, height: height, pixels: pixels)
    }

    /// Sources with at least this many pixels (512 Ki: a 1920x1080 frame, not a 480x270 one) are
    /// scaled in two bands at once; for smaller ones a second thread costs more than it saves.
    static let parallelThreshold = 1 << 19

    /// The source and the output of one scale; bands write disjoint rows.
    private struct RowTarget: @unchecked Sendable {
        let source: UnsafeRawPointer
        let target: UnsafeMutablePointer<UInt32>
    }

    /// The spans of one scale, flattened for the inner loops.
    private struct Plan: Sendable {
        static let white = SIMD4<Float>(repeating: 255)
        static let twoToThe23 = SIMD4<Float>(repeating: 8_388_608)
        let sourceWidth: Int
        let width: Int
        let rows: [Span]
        /// Each output column's first source pixel.
        let firsts: [Int]
        /// Every column's weights in one array; column `x`'s are `weightStarts[x]..<weightStarts[x + 1]`.
        let weights: [Float]
        let weightStarts: [Int]

        init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
            let columns = AreaScaler.spans(from: sourceWidth, to: width)
            self.sourceWidth = sourceWidth
            self.width = width
            rows = AreaScaler.spans(from: sourceHeight, to: height)
            firsts = columns.map(\.first)
            weights = columns.flatMap(\.weights)
            var starts = [0]
            for span in columns { starts.append(starts[starts.count - 1] + span.weights.count) }
            weightStarts = starts
        }

        /// Computes output `rows`: each covered source row filtered horizontally (``filter(_:of:into:)``),
        /// accumulated with its vertical weight, then rounded to 0xRRGGBB.
        func scale(rows outputRows: Range<Int>, of image: RowTarget) {
            var horizontal = [SIMD4<Float>](repeating: .zero, count: width)
            var accumulator = [SIMD4<Float>](repeating: .zero, count: width)
            horizontal.withUnsafeMutableBufferPointer { horizontal in
                accumulator.withUnsafeMutableBufferPointer { accumulator in
                    // The source row in `horizontal`: a row shared by two output rows ends one
                    // and starts the next, so it is filtered once.
                    var filteredRow = -1
                    for y in outputRows {
                        let span = rows[y]
                        accumulator.update(repeating: .zero)
                        for (step, weight) in span.weights.enumerated() {
                            let sourceRow = span.first + step
                            if sourceRow != filteredRow {
                                filter(sourceRow, of: image.source, into: horizontal)
                                filteredRow = sourceRow
                            }
                            for x in 0..<width { accumulator[x] += horizontal[x] * weight }
                        }
                        let out = image.target + y * width
                        for x in 0..<width {
                            // Round half up (the sums are never negative), then read the integer
                            // out of the float's significand: adding 2^23 to a whole number below
                            // 2^23 puts it in the low bits exactly. (The stdlib's rounding
                            // conversion to SIMD4<UInt32> runs a generic per-lane loop.)
                            let clamped = accumulator[x].clamped(lowerBound: .zero, upperBound: Self.white)
                            let whole = (clamped + 0.5).rounded(.down) + Self.twoToThe23
                            let rounded = unsafeBitCast(whole, to: SIMD4<UInt32>.self) & 0xFF
                            out[x] = rounded[0] << 16 | rounded[1] << 8 | rounded[2]
                        }
                    }
                }
            }
        }

        /// Filters source row `row` to `width` premultiplied colours (lanes R, G, B and an unused
        /// A): one SIMD multiply-add per source pixel.
        private func filter(
            _ row: Int, of source: UnsafeRawPointer, into horizontal: UnsafeMutableBufferPointer<SIMD4<Float>>
        ) {
            let rowBase = row * sourceWidth * 4
            firsts.withUnsafeBufferPointer { firsts in
                weights.withUnsafeBufferPointer { weights in
                    weightStarts.withUnsafeBufferPointer { starts in
                        for x in 0..<width {
                            var sum = SIMD4<Float>.zero
                            var offset = rowBase + firsts[x] * 4
                            for w in starts[x]..<starts[x + 1] {
                                let pixel = SIMD4<Float>(
                                    source.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                                sum += pixel * (pixel[3] * (1 / 255) * weights[w])
                                offset += 4
                            }
                            horizontal[x] = sum
                        }
                    }
                }
            }
        }
    }
}
