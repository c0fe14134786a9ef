/// A wide Gaussian at a cost that does not grow with sigma: six passes of an extended box filter
/// along each axis (Gwosdek, Grewenig, Bruhn and Weickert, "Theoretical foundations of Gaussian
/// convolution by extended box filtering", 2011), for the blurs whose exact kernel would be
/// hundreds of taps wide (`--blur 1000` took minutes on a 12 MP photo).
///
/// An extended box of integer radius `r` weighs the `2r + 1` samples around a point 1 each and
/// the two just beyond them `alpha` (0 <= alpha < 1), so that its variance is exactly σ²/6; six
/// of them in a row have the Gaussian's variance exactly and come within a fraction of a percent
/// of its shape (within 2.5 levels of 255). Each pass is a running sum (in `Double`, so that long rows do not drift), and
/// clamp-to-edge is the same as for the exact kernel: each line is extended once by the edge
/// samples, far enough for all six passes, and the passes run over the extension.
struct ExtendedBoxGaussian: Sendable {
    /// How many boxes along each axis.
    static let passes = 6

    /// The box's integer radius.
    let radius: Int
    /// The weight of the two samples just outside the box.
    let alpha: Double
    /// `1 / (2 * (radius + alpha) + 1)`: the weights' sum, inverted.
    let scale: Double

    init(sigma: Double) {
        let variance = sigma * sigma / Double(Self.passes)
        let r = ((0.5 * (12 * variance + 1).squareRoot()) - 0.5).rounded(.down)
        radius = Int(r)
        alpha = (2 * r + 1) * (3 * variance - r * (r + 1)) / (6 * ((r + 1) * (r + 1) - variance))
        scale = 1 / (2 * (r + alpha) + 1)
    }

    /// Samples added on each side of a line: one box's reach per pass.
    var margin: Int { Self.passes * (radius + 1) }

    /// Filters `count` premultiplied pixels, `stride` apart from `line`, in place, using
    /// `scratch` (two buffers of at least `count + 2 * margin` pixels).
    func filter(
        _ line: UnsafeMutablePointer<SIMD4<Float>>, count: Int, stride: Int,
        scratch: (UnsafeMutablePointer<SIMD4<Double>>, UnsafeMutablePointer<SIMD4<Double>>)
    ) {
        let margin = margin
        let length = count + 2 * margin
        var (from, to) = scratch
        let first = SIMD4<Double>(line.pointee)
        let last = SIMD4<Double>(line[(count - 1) * stride])
        for i in 0..<margin {
            from[i] = first
            from[margin + count + i] = last
        }
        for i in 0..<count { from[margin + i] = SIMD4<Double>(line[i * stride]) }
        let reach = radius + 1
        // After pass p, positions p * reach ..< length - p * reach hold filtered values.
        for pass in 1...Self.passes {
            let start = pass * reach
            let end = length - pass * reach
            var sum = SIMD4<Double>()
            for k in (start - radius)...(start + radius) { sum += from[k] }
            var i = start
            while true {
                to[i] = (sum + (from[i - reach] + from[i + reach]) * alpha) * scale
                i += 1
                if i >= end { break }
                sum += from[i + radius] - from[i - reach]
            }
            swap(&from, &to)
        }
        for i in 0..<count { line[i * stride] = SIMD4<Float>(from[margin + i]) }
    }
}
