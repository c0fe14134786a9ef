#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A colour in the OkLab space (Björn Ottosson, 2020): lightness and two opponent axes, where
/// Euclidean distance follows perceived difference far better than in sRGB.
struct OkLab: Sendable, Equatable {
    var l: Float
    var a: Float
    var b: Float

    /// sRGB samples (0 ... 255) to linear light, one entry per 8-bit value.
    static let linear: [Float] = (0..<256).map { value in
        let v = Float(value) / 255
        return v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
    }

    /// An sRGB sample 0 ... 255 (fractions allowed) in linear light, 0 ... 1.
    static func toLinear(_ v: Float) -> Float {
        let s = min(max(v / 255, 0), 1)
        return s <= 0.04045 ? s / 12.92 : powf((s + 0.055) / 1.055, 2.4)
    }

    /// ``toLinear(_:)`` interpolated in the ``linear`` table (within 2e-5 of it): for the
    /// fractional means of histogram bins, thousands a frame.
    @inline(__always)
    static func toLinearInterpolated(_ v: Float, _ table: UnsafeBufferPointer<Float>) -> Float {
        let clamped = min(max(v, 0), 255)
        let low = min(Int(clamped), 254)
        let fraction = clamped - Float(low)
        return table[low] + (table[low + 1] - table[low]) * fraction
    }

    /// The OkLab coordinates of an sRGB colour whose samples are 0 ... 255 (fractions allowed).
    init(red: Float, green: Float, blue: Float) {
        self.init(linearRed: Self.toLinear(red), green: Self.toLinear(green), blue: Self.toLinear(blue))
    }

    /// The OkLab coordinates of an opaque packed ``GIFPixel`` (through the ``linear`` table).
    init(packed pixel: UInt32) {
        let (r, g, b) = GIFPixel.channels(pixel)
        let linear = Self.linear
        self.init(linearRed: linear[r], green: linear[g], blue: linear[b])
    }

    /// The OkLab coordinates of a linear-light RGB colour (0 ... 1).
    init(linearRed r: Float, green g: Float, blue b: Float) {
        // The three cone responses side by side, each with the arithmetic of its own line.
        let lms =
            SIMD4<Float>(0.412_221_470_8, 0.211_903_498_2, 0.088_302_461_9, 1) * r
            + SIMD4<Float>(0.536_332_536_3, 0.680_699_545_1, 0.281_718_837_6, 0) * g
            + SIMD4<Float>(0.051_445_992_9, 0.107_396_956_6, 0.629_978_700_5, 0) * b
        let roots = Self.cubeRoots(lms)
        let (l, m, s) = (roots[0], roots[1], roots[2])
        self.l = 0.210_454_255_3 * l + 0.793_617_785_0 * m - 0.004_072_046_8 * s
        self.a = 1.977_998_495_1 * l - 2.428_592_205_0 * m + 0.450_593_709_9 * s
        self.b = 0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766_0 * s
    }

    /// The cube root of `x`: a first guess from its bits (the exponent divided by three), then
    /// two steps of Halley's method in `Double`, which leave it correctly rounded but in rare
    /// halfway cases (glibc's `cbrtf` is off by one unit in the last place for about a tenth of
    /// the floats in 0 ... 1). Twice as fast as `cbrtf`, which a palette calls three times a
    /// colour, thousands of colours a frame.
    @inline(__always)
    static func cubeRoot(_ x: Float) -> Float {
        guard x >= 0x1p-100, x <= 0x1p100 else { return cbrtf(x) }  // zero, negative, tiny, huge, NaN
        let guess = Double(Float(bitPattern: x.bitPattern / 3 &+ 709_921_077))
        let value = Double(x)
        var y = guess
        var cube = y * y * y
        y *= (cube + 2 * value) / (2 * cube + value)
        cube = y * y * y
        y *= (cube + 2 * value) / (2 * cube + value)
        return Float(y)
    }

    /// ``cubeRoot(_:)`` of the first three lanes of `x` at once, each the same to the bit (the
    /// last lane is ignored): the three roots of a colour share their divisions' latency.
    @inline(__always)
    static func cubeRoots(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let low = SIMD4<Float>(repeating: 0x1p-100)
        let high = SIMD4<Float>(repeating: 0x1p100)
        let inRange = (x .>= low) .& (x .<= high)
        guard inRange[0], inRange[1], inRange[2] else {
            return SIMD4(cubeRoot(x[0]), cubeRoot(x[1]), cubeRoot(x[2]), 0)
        }
        let bits: SIMD4<UInt32> = unsafeBitCast(x, to: SIMD4<UInt32>.self) / 3 &+ 709_921_077
        let first: SIMD4<Float> = unsafeBitCast(bits, to: SIMD4<Float>.self)
        let value = SIMD4<Double>(Double(x[0]), Double(x[1]), Double(x[2]), 1)
        let two = SIMD4<Double>(repeating: 2)
        let twice = two * value
        var y = SIMD4<Double>(Double(first[0]), Double(first[1]), Double(first[2]), 1)
        for _ in 0..<2 {
            let cube: SIMD4<Double> = y * y * y
            let numerator: SIMD4<Double> = cube + twice
            let denominator: SIMD4<Double> = two * cube + value
            y *= numerator / denominator
        }
        return SIMD4(Float(y[0]), Float(y[1]), Float(y[2]), 0)
    }

    init(l: Float, a: Float, b: Float) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// The nearest 8-bit sRGB colour, packed as an opaque ``GIFPixel``.
    var packed: UInt32 {
        let l_ = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b
        let m_ = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b
        let s_ = l - 0.089_484_177_5 * a - 1.291_485_548_0 * b
        let l3 = l_ * l_ * l_
        let m3 = m_ * m_ * m_
        let s3 = s_ * s_ * s_
        let r = 4.076_741_662_1 * l3 - 3.307_711_591_3 * m3 + 0.230_969_929_2 * s3
        let g = -1.268_438_004_6 * l3 + 2.609_757_401_1 * m3 - 0.341_319_396_5 * s3
        let bl = -0.004_196_086_3 * l3 - 0.703_418_614_7 * m3 + 1.707_614_701_0 * s3
        func encode(_ v: Float) -> UInt8 {
            let c = min(max(v, 0), 1)
            let s = c <= 0.003_130_8 ? 12.92 * c : 1.055 * powf(c, 1 / 2.4) - 0.055
            return UInt8(min(max((s * 255).rounded(), 0), 255))
        }
        return GIFPixel.opaque(encode(r), encode(g), encode(bl))
    }

    /// Squared distance.
    @inline(__always)
    func distanceSquared(to other: OkLab) -> Float {
        let dl = l - other.l
        let da = a - other.a
        let db = b - other.b
        return dl * dl + da * da + db * db
    }
}

/// A weighted colour histogram with a fixed number of bins (5 bits per channel, 32768 bins):
/// what the quantizer learns from however many frames, in bounded memory. Each bin keeps its
/// weight and the weighted sum of the colours in it, so a bin's mean is exact for a flat colour.
struct GIFHistogram: Sendable {
    private(set) var weight = [Double](repeating: 0, count: 1 << 15)
    private(set) var sums = [Double](repeating: 0, count: 3 << 15)
    /// The bins with a weight, for ``removeAll()``.
    private var occupied: [Int32] = []

    /// Adds one pixel with `weight` (a frame is added faster by ``addOpaque(_:)`` or
    /// ``add(changesOf:since:weight:)``).
    mutating func add(_ pixel: UInt32, weight w: Double) {
        addingMany { add in add(pixel, w) }
    }

    /// ``add(_:weight:)`` with weight 1 for each of `pixels` but the transparent ones (0).
    mutating func addOpaque(_ pixels: UnsafeBufferPointer<UInt32>) {
        addingMany { add in
            for pixel in pixels where pixel != 0 { add(pixel, 1) }
        }
    }

    /// The pixels of `frame` (transparent ones left out) that differ from `before` (empty for
    /// none) with `weight`, and one in 8 of those that do not (by position) with 0.8 of it.
    mutating func add(changesOf frame: [UInt32], since before: [UInt32], weight w: Double) {
        let unchangedWeight = w * 0.8
        addingMany { add in
            frame.withUnsafeBufferPointer { now in
                before.withUnsafeBufferPointer { then in
                    for position in 0..<now.count {
                        let pixel = now[position]
                        if pixel == 0 { continue }
                        if then.isEmpty || then[position] != pixel {
                            add(pixel, w)
                        } else if position & 7 == 0 {
                            add(pixel, unchangedWeight)
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` with an `add(pixel, weight)` that writes straight into the tables, borrowed
    /// once for all the pixels it adds.
    @inline(__always)
    private mutating func addingMany(_ body: (_ add: (UInt32, Double) -> Void) -> Void) {
        var occupied = self.occupied
        self.occupied = []
        weight.withUnsafeMutableBufferPointer { weight in
            sums.withUnsafeMutableBufferPointer { sums in
                body { pixel, w in
                    let (r, g, b) = GIFPixel.channels(pixel)
                    let bin = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                    if weight[bin] == 0 { occupied.append(Int32(bin)) }
                    weight[bin] += w
                    sums[bin * 3] += Double(r) * w
                    sums[bin * 3 + 1] += Double(g) * w
                    sums[bin * 3 + 2] += Double(b) * w
                }
            }
        }
        self.occupied = occupied
    }

    /// Empties the histogram, keeping its memory: only the occupied bins are cleared.
    mutating func removeAll() {
        for bin in occupied.map(Int.init) {
            weight[bin] = 0
            sums[bin * 3] = 0
            sums[bin * 3 + 1] = 0
            sums[bin * 3 + 2] = 0
        }
        occupied.removeAll(keepingCapacity: true)
    }

    /// The occupied bins: their mean colours in OkLab and their weights.
    var points: (colors: [OkLab], weights: [Float]) {
        var colors: [OkLab] = []
        var weights: [Float] = []
        colors.reserveCapacity(occupied.count)
        weights.reserveCapacity(occupied.count)
        // In bin order, as a scan of every bin gives them, from the few hundred or thousand bins
        // occupied rather than the 32768.
        var previous = -1
        OkLab.linear.withUnsafeBufferPointer { table in
            for bin in occupied.sorted().map(Int.init) where bin != previous && weight[bin] > 0 {
                previous = bin
                let w = weight[bin]
                colors.append(
                    OkLab(
                        linearRed: OkLab.toLinearInterpolated(Float(sums[bin * 3] / w), table),
                        green: OkLab.toLinearInterpolated(Float(sums[bin * 3 + 1] / w), table),
                        blue: OkLab.toLinearInterpolated(Float(sums[bin * 3 + 2] / w), table)))
                weights.append(Float(w))
            }
        }
        return (colors, weights)
    }
}

/// Builds a palette from a ``GIFHistogram``: median cut in OkLab (the box with the largest
/// weighted error is split along its widest axis at the weighted median), then weighted
/// k-means (Lloyd iterations) from those centres.
enum GIFQuantizer {
    /// At most `count` opaque colours (distinct, packed ``GIFPixel``s) for the histogram.
    static func palette(from histogram: GIFHistogram, count: Int, iterations: Int = 6) -> [UInt32] {
        let (points, weights) = histogram.points
        guard !points.isEmpty else { return [GIFPixel.opaque(0, 0, 0)] }
        if points.count <= count { return unique(points.map(\.packed)) }
        var centres = medianCut(points, weights, count: count)
        refine(&centres, points, weights, iterations: iterations)
        return unique(centres.map(\.packed))
    }

    private static func unique(_ colors: [UInt32]) -> [UInt32] {
        var seen = Set<UInt32>()
        return colors.filter { seen.insert($0).inserted }
    }

    private struct Box {
        var start: Int
        var end: Int
        var error: Float
        var axis: Int
    }

    /// The weighted mean, total error and widest axis of `points[start..<end]`, each point
    /// (l, a, b, weight).
    ///
    /// Accumulated in `Double`: the error is a difference of two large sums (of squares, and of
    /// the mean times the sum), and with the weights of a hundred frames `Float` cancels to noise,
    /// so boxes were split on the wrong axis or not at all.
    private static func measure(_ points: UnsafeMutableBufferPointer<SIMD4<Float>>, _ start: Int, _ end: Int)
        -> (mean: OkLab, error: Float, axis: Int)
    {
        var total = 0.0
        var sum = (0.0, 0.0, 0.0)
        var squares = (0.0, 0.0, 0.0)
        for position in start..<end {
            let p = points[position]
            let w = Double(p.w)
            let (l, a, b) = (Double(p.x), Double(p.y), Double(p.z))
            total += w
            sum.0 += l * w
            sum.1 += a * w
            sum.2 += b * w
            squares.0 += l * l * w
            squares.1 += a * a * w
            squares.2 += b * b * w
        }
        let mean = (sum.0 / total, sum.1 / total, sum.2 / total)
        let variance = (squares.0 - sum.0 * mean.0, squares.1 - sum.1 * mean.1, squares.2 - sum.2 * mean.2)
        var axis = 0
        if variance.1 > variance.0 { axis = 1 }
        if variance.2 > (axis == 0 ? variance.0 : variance.1) { axis = 2 }
        let error = Float(max(variance.0 + variance.1 + variance.2, 0))
        return (OkLab(l: Float(mean.0), a: Float(mean.1), b: Float(mean.2)), error, axis)
    }

    /// Median cut: the points are kept as one array of (l, a, b, weight), each box a range of
    /// it, sorted in place (stably) along the axis it is split on.
    private static func medianCut(_ colors: [OkLab], _ weights: [Float], count: Int) -> [OkLab] {
        var points = zip(colors, weights).map { SIMD4($0.l, $0.a, $0.b, $1) }
        return points.withUnsafeMutableBufferPointer { points in
            let whole = measure(points, 0, points.count)
            var boxes = [Box(start: 0, end: points.count, error: whole.error, axis: whole.axis)]
            // The boxes of more than one point, largest error first (the lowest index among
            // equal errors, as a scan of the boxes in order would pick).
            var queue = SplitQueue()
            if points.count > 1 { queue.push(whole.error, 0) }
            while boxes.count < count {
                guard let pick = queue.pop(), boxes[pick].error > 0 else { break }
                let box = boxes[pick]
                var range = UnsafeMutableBufferPointer(rebasing: points[box.start..<box.end])
                switch box.axis {
                case 0: range.sort { $0.x < $1.x }
                case 1: range.sort { $0.y < $1.y }
                default: range.sort { $0.z < $1.z }
                }
                var half: Float = 0
                for position in box.start..<box.end { half += points[position].w }
                half /= 2
                var running: Float = 0
                var cut = box.start + 1
                for position in box.start..<box.end - 1 {
                    running += points[position].w
                    cut = position + 1
                    if running >= half { break }
                }
                let left = measure(points, box.start, cut)
                let right = measure(points, cut, box.end)
                boxes[pick] = Box(start: box.start, end: cut, error: left.error, axis: left.axis)
                boxes.append(Box(start: cut, end: box.end, error: right.error, axis: right.axis))
                if cut - box.start > 1 { queue.push(left.error, pick) }
                if box.end - cut > 1 { queue.push(right.error, boxes.count - 1) }
            }
            return boxes.map { measure(points, $0.start, $0.end).mean }
        }
    }

    /// A binary max-heap of (error, box index): the box with the largest error first, the
    /// lowest index among equal errors.
    private struct SplitQueue {
        private var entries: [(error: Float, index: Int)] = []

        @inline(__always)
        private func before(_ i: Int, _ j: Int) -> Bool {
            let (p, q) = (entries[i], entries[j])
            return p.error > q.error || (p.error == q.error && p.index < q.index)
        }

        mutating func push(_ error: Float, _ index: Int) {
            entries.append((error, index))
            var child = entries.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard before(child, parent) else { break }
                entries.swapAt(child, parent)
                child = parent
            }
        }

        /// The first box's index, removed; `nil` when there is none.
        mutating func pop() -> Int? {
            guard let top = entries.first else { return nil }
            let last = entries.removeLast()
            if !entries.isEmpty {
                entries[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1
                    guard left < entries.count else { break }
                    var first = left
                    if left + 1 < entries.count, before(left + 1, left) { first = left + 1 }
                    guard before(first, parent) else { break }
                    entries.swapAt(first, parent)
                    parent = first
                }
            }
            return top.index
        }
    }

    private static func refine(_ centres: inout [OkLab], _ points: [OkLab], _ weights: [Float], iterations: Int) {
        var assignment = [Int32](repeating: 0, count: points.count)
        for _ in 0..<iterations {
            let nearest = OkLabNearest(centres).nearest(to: points)
            var moved = 0
            for position in points.indices where assignment[position] != nearest[position] { moved += 1 }
            assignment = nearest
            var sums = [(Float, Float, Float, Float)](repeating: (0, 0, 0, 0), count: centres.count)
            for (position, point) in points.enumerated() {
                let w = weights[position]
                let index = Int(assignment[position])
                sums[index].0 += point.l * w
                sums[index].1 += point.a * w
                sums[index].2 += point.b * w
                sums[index].3 += w
            }
            for index in centres.indices where sums[index].3 > 0 {
                let w = sums[index].3
                centres[index] = OkLab(l: sums[index].0 / w, a: sums[index].1 / w, b: sums[index].2 / w)
            }
            if moved * 200 < points.count { break }
        }
    }
}
