/// The weights of one axis of a resize, computed once per (filter, sizes) and reused for every
/// row, column and frame: for each output pixel, the first source pixel it reads, how many it
/// reads, and their weights (adding up to 1).
///
/// Output pixel `i` of a `sourceCount` -> `scaledCount` resize has its centre at
/// `(i + 0.5) · sourceCount / scaledCount` in source coordinates. The weights of the output
/// pixels in ``outputRange`` are kept (a crop after scaling, as `cover` needs, is a range that
/// does not start at 0; no pixel outside it is ever computed). An axis whose size does not
/// change is copied, not filtered, whatever the filter (Mitchell's kernel would blur it), so an
/// identity resize is exact.
struct ResampleWeights: Sendable {
    /// Source pixels along this axis.
    let sourceCount: Int
    /// Output pixels kept: `outputRange.count`.
    let count: Int
    /// Each output pixel's first source pixel.
    let firsts: [Int]
    /// Each output pixel's number of taps.
    let tapCounts: [Int]
    /// Every output pixel's weights, `stride` apart: pixel `i`'s are
    /// `weights[i * stride ..< i * stride + tapCounts[i]]`.
    let weights: [Float]
    /// ``weights`` with each weight in all four lanes, for multiplying a pixel without a shuffle.
    let splatWeights: [SIMD4<Float>]
    /// The largest tap count.
    let stride: Int

    /// Computes the weights.
    /// - Parameters:
    ///   - filter: the kernel.
    ///   - sourceCount: source pixels along the axis, at least 1.
    ///   - scaledCount: pixels of the whole scaled axis, at least 1.
    ///   - outputRange: the scaled pixels to compute, within `0..<scaledCount`.
    ///   - window: the span of the source that is scaled to `scaledCount`, in fractions of
    ///     pixels (a box carried to a smaller decode); `nil` for the whole axis. Only the source
    ///     pixels it touches are read.
    init(
        filter: ResampleFilter, sourceCount: Int, scaledCount: Int, outputRange: Range<Int>,
        window: ClosedRange<Double>? = nil
    ) {
        precondition(sourceCount > 0 && scaledCount > 0, "empty axis")
        let span = window ?? 0...Double(sourceCount)
        precondition(span.lowerBound >= 0 && span.upperBound <= Double(sourceCount), "a window outside the axis")
        let scale = (span.upperBound - span.lowerBound) / Double(scaledCount)
        // The source pixels the window touches. Taps are computed from the first of them, so a
        // window of whole pixels gives, to the bit, the weights of resizing those pixels cut out.
        let pixels = Int(span.lowerBound)..<max(Int(span.upperBound.rounded(.up)), Int(span.lowerBound) + 1)
        let offset = span.lowerBound - Double(pixels.lowerBound)
        let copies = offset == 0 && span.upperBound == Double(pixels.upperBound) && pixels.count == scaledCount
        var firsts: [Int] = []
        var tapCounts: [Int] = []
        var rows: [[Double]] = []
        firsts.reserveCapacity(outputRange.count)
        tapCounts.reserveCapacity(outputRange.count)
        rows.reserveCapacity(outputRange.count)
        for index in outputRange {
            let (first, taps) =
                copies
                ? (index, [1.0])
                : filter == .box
                    ? Self.areaTaps(index, scale: scale, start: offset, count: pixels.count)
                    : Self.kernelTaps(index, filter: filter, scale: scale, start: offset, count: pixels.count)
            firsts.append(pixels.lowerBound + first)
            tapCounts.append(taps.count)
            rows.append(taps)
        }
        let stride = max(tapCounts.max() ?? 1, 1)
        var weights = [Float](repeating: 0, count: stride * rows.count)
        for (row, taps) in rows.enumerated() {
            for (tap, weight) in taps.enumerated() { weights[row * stride + tap] = Float(weight) }
        }
        self.sourceCount = sourceCount
        self.count = outputRange.count
        self.firsts = firsts
        self.tapCounts = tapCounts
        self.weights = weights
        self.splatWeights = weights.map { SIMD4<Float>(repeating: $0) }
        self.stride = stride
    }

    /// Whether every output pixel copies the source pixel at the same index (same size, no crop,
    /// a kernel that is 1 at 0 and 0 at every other whole distance).
    var isIdentity: Bool {
        guard count == sourceCount else { return false }
        for index in 0..<count where firsts[index] != index || tapCounts[index] != 1 || weights[index * stride] != 1 {
            return false
        }
        return true
    }

    /// The kernel sampled at the distance from each source pixel's centre to the output pixel's
    /// centre, stretched by the reduction factor when shrinking; taps outside the source are
    /// dropped, zero taps at both ends trimmed, the rest normalized.
    /// Pixels are numbered from the window's first, `start` (0 ..< 1) the window's start within
    /// it, and `count` are read.
    private static func kernelTaps(_ index: Int, filter: ResampleFilter, scale: Double, start: Double, count: Int)
        -> (Int, [Double])
    {
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let center = start + (Double(index) + 0.5) * scale
        // Source pixel j's centre is j + 0.5; keep every j within `support` of `center`.
        var first = max(Int((center - 0.5 - support).rounded(.up)), 0)
        var last = min(Int((center - 0.5 + support).rounded(.down)), count - 1)
        let nearest = min(max(Int(center), 0), count - 1)
        if first > last {
            // Only when the support is narrower than a pixel: take the nearest source pixel.
            return (nearest, [1])
        }
        var taps = (first...last).map { filter.weight(at: (Double($0) + 0.5 - center) / filterScale) }
        while taps.count > 1, taps[taps.count - 1] == 0 {
            taps.removeLast()
            last -= 1
        }
        while taps.count > 1, taps[0] == 0 {
            taps.removeFirst()
            first += 1
        }
        let sum = taps.reduce(0, +)
        guard sum != 0 else { return (nearest, [1]) }
        return (first, taps.map { $0 / sum })
    }

    /// The fraction of output pixel `index`'s span, `start + [index · scale, (index + 1) · scale)`,
    /// that each source pixel covers.
    /// Pixels are numbered as for ``kernelTaps(_:filter:scale:start:count:)``.
    private static func areaTaps(_ index: Int, scale: Double, start origin: Double, count: Int) -> (Int, [Double]) {
        let start = origin + Double(index) * scale
        let end = min(origin + Double(index + 1) * scale, Double(count))
        let first = min(Int(start), count - 1)
        var taps: [Double] = []
        var source = first
        while source < count, Double(source) < end {
            let overlap = min(Double(source + 1), end) - max(Double(source), start)
            taps.append(max(overlap, 0))
            source += 1
        }
        while taps.count > 1, let last = taps.last, last <= 1e-12 * scale { taps.removeLast() }
        let sum = taps.reduce(0, +)
        guard sum > 0 else { return (first, [1]) }
        return (first, taps.map { $0 / sum })
    }
}
