import Foundation

/// Pixel filters that keep the size and depth: Gaussian blur, unsharp mask, grey, and the
/// content box that `--trim` keeps.
///
/// Each is synchronous CPU work with no isolation: call it from a `@concurrent` function or a
/// background task, never from the main actor. The result keeps ``metadata``.
extension PixelBuffer {
    /// A Gaussian blur of standard deviation `sigma` pixels.
    ///
    /// Separable (a horizontal pass, then a vertical one) over a kernel of radius
    /// `ceil(3 * sigma)` whose weights, `exp(-k² / 2σ²)`, are normalised to sum 1. Pixels beyond
    /// the edges repeat the edge pixel (clamp to edge). Colour is premultiplied by alpha before
    /// filtering and divided by the blurred alpha after, so a transparent pixel lends none of its
    /// invisible colour to its neighbours. Sums are `Float`; the result is straight alpha rounded
    /// to nearest (ties to even), within 1 level of the same sums in `Double`, and a pixel whose alpha rounds
    /// to 0 is written as (0, 0, 0, 0), as ``Resampler`` does. Images of at least 2¹⁸ pixels
    /// are filtered in two bands on two threads when two processors are available; the result
    /// is the same either way.
    ///
    /// Sigmas above 10 are filtered by six extended boxes along each axis (a running sum each),
    /// whose cost does not grow with sigma, within 2.5 levels of the same Gaussian summed exactly;
    /// up to 10 the kernel is exact.
    ///
    /// - Parameter sigma: The standard deviation in pixels, greater than 0 and at most 10⁶ (a
    ///   precondition).
    /// - Returns: The blurred image, at this size and depth.
    public func blurred(sigma: Double) -> PixelBuffer {
        gaussianFiltered(.blur, sigma: sigma, threads: filterThreads)
    }

    /// An unsharp mask: `original + amount * (original - blurred(sigma))`.
    ///
    /// Computed on premultiplied colour (the blur of ``blurred(sigma:)`` before its rounding),
    /// then divided by the pixel's own alpha, clamped to the sample range and rounded to
    /// nearest (ties to even). Alpha is unchanged, and fully transparent pixels are returned as they are.
    ///
    /// - Parameters:
    ///   - sigma: The blur's standard deviation in pixels, greater than 0.
    ///   - amount: How much of the difference to add: 1 by default, 0 changes nothing, negative
    ///     values blur.
    /// - Returns: The sharpened image, at this size and depth.
    public func sharpened(sigma: Double, amount: Double = 1) -> PixelBuffer {
        precondition(amount.isFinite, "amount must be finite")
        return gaussianFiltered(.sharpen(amount: Float(amount)), sigma: sigma, threads: filterThreads)
    }

    /// `mode` applied with a Gaussian of `sigma` (``blurred(sigma:)``, ``sharpened(sigma:amount:)``),
    /// stopping within a few rows when the calling task is cancelled (`--blur 1000` on a 12 MP
    /// photo is seconds of work): its buffers are freed and nothing is returned.
    /// - Throws: ``ImgToolError`` `cancelled`.
    func gaussianFilteredUnlessCancelled(_ mode: GaussianFilter.Mode, sigma: Double) throws(ImgToolError)
        -> PixelBuffer
    {
        guard let result = gaussianFiltered(mode, sigma: sigma, threads: filterThreads, stop: FilterStop()) else {
            throw ImgToolError(.cancelled, "cancelled while filtering a \(width)x\(height) frame")
        }
        return result
    }

    /// Grey: every pixel's R, G and B set to its Rec. 709 luma, alpha unchanged.
    ///
    /// Luma of the *encoded* (sRGB) values, `Y' = 0.2126 R + 0.7152 G + 0.0722 B`, rounded to
    /// nearest (halves up), computed exactly in integers. This is ImageMagick's
    /// `-grayscale Rec709Luma`. It is not luminance: libvips' `colourspace b-w` on sRGB input
    /// weights linear light and encodes the result again, which agrees on greys but is lighter
    /// on saturated colours (pure red: 54 here, about 127 there).
    ///
    /// - Returns: The grey image, at this size and depth.
    public func grayscaled() -> PixelBuffer {
        var result: PixelBuffer
        switch samples {
        case .rgba8(let values): result = PixelBuffer(width: width, height: height, rgba8: Self.luma(values))
        case .rgba16(let values): result = PixelBuffer(width: width, height: height, rgba16: Self.luma(values))
        }
        result.metadata = metadata
        return result
    }

    /// The smallest region holding every pixel that differs from `color`, or `nil` when every
    /// pixel equals it (or the image is empty).
    ///
    /// Pixels are compared exactly, sample by sample, except that two fully transparent pixels
    /// are equal whatever their colour. Rows are scanned from the top and from the bottom, and
    /// columns only within the rows left, each from the outside in.
    ///
    /// - Parameter color: R, G, B and A at this buffer's depth (0-255 or 0-65535), as the
    ///   top-left pixel's samples when trimming. A value out of range equals no sample.
    /// - Returns: The region, in this buffer's pixels.
    public func contentBox(differingFrom color: [Int]) -> FrameRegion? {
        precondition(color.count == 4, "a colour is 4 samples")
        guard width > 0, height > 0 else { return nil }
        switch samples {
        case .rgba8(let values): return Self.contentBox(values, width: width, height: height, color: color)
        case .rgba16(let values): return Self.contentBox(values, width: width, height: height, color: color)
        }
    }

    /// Threads for a filter: two for images of at least 2¹⁸ pixels when two processors are free.
    private var filterThreads: Int { pixelCount >= 1 << 18 && availableProcessors > 1 ? 2 : 1 }

    /// `mode` applied with a Gaussian of `sigma`, on `threads` (1 or 2) threads.
    func gaussianFiltered(_ mode: GaussianFilter.Mode, sigma: Double, threads: Int) -> PixelBuffer {
        gaussianFiltered(mode, sigma: sigma, threads: threads, stop: nil) ?? self
    }

    /// `mode` applied with a Gaussian of `sigma`, on `threads` (1 or 2) threads; `nil` when
    /// `stop` says to stop first.
    func gaussianFiltered(_ mode: GaussianFilter.Mode, sigma: Double, threads: Int, stop: FilterStop?)
        -> PixelBuffer?
    {
        let filter = GaussianFilter(sigma: sigma, mode: mode)
        guard width > 0, height > 0 else { return self }
        var result: PixelBuffer
        switch samples {
        case .rgba8(let values):
            guard let filtered = filter.apply(to: values, width: width, threads: threads, stop: stop) else {
                return nil
            }
            result = PixelBuffer(width: width, height: height, rgba8: filtered)
        case .rgba16(let values):
            guard let filtered = filter.apply(to: values, width: width, threads: threads, stop: stop) else {
                return nil
            }
            result = PixelBuffer(width: width, height: height, rgba16: filtered)
        }
        result.metadata = metadata
        return result
    }

    /// Every pixel's colour replaced by its Rec. 709 luma, `(2126 R + 7152 G + 722 B + 5000) / 10000`.
    private static func luma<S: Sample>(_ values: [S]) -> [S] {
        [S](unsharedUninitializedCapacity: values.count) { output, initialized in
            values.withUnsafeBufferPointer { input in
                var index = 0
                while index < input.count {
                    let sum = 2126 &* UInt32(input[index]) &+ 7152 &* UInt32(input[index + 1])
                    let grey = S(truncatingIfNeeded: (sum &+ 722 &* UInt32(input[index + 2]) &+ 5000) / 10000)
                    output[index] = grey
                    output[index + 1] = grey
                    output[index + 2] = grey
                    output[index + 3] = input[index + 3]
                    index += 4
                }
            }
            initialized = values.count
        }
    }

    /// ``contentBox(differingFrom:)`` over samples of type `S`.
    private static func contentBox<S: Sample>(_ values: [S], width: Int, height: Int, color: [Int]) -> FrameRegion? {
        let transparent = color[3] == 0
        guard transparent || color.allSatisfy({ (0...Int(S.max)).contains($0) }) else {
            return FrameRegion(x: 0, y: 0, width: width, height: height)  // nothing equals it
        }
        let key = color.map { S(truncatingIfNeeded: $0) }
        let (red, green, blue, alpha) = (key[0], key[1], key[2], key[3])
        return values.withUnsafeBufferPointer { pixels -> FrameRegion? in
            @inline(__always) func differs(_ x: Int, _ y: Int) -> Bool {
                let index = (y &* width &+ x) &* 4
                if transparent { return pixels[index + 3] != 0 }
                return pixels[index] != red || pixels[index + 1] != green || pixels[index + 2] != blue
                    || pixels[index + 3] != alpha
            }
            func rowDiffers(_ y: Int) -> Bool { (0..<width).contains { differs($0, y) } }
            guard let top = (0..<height).first(where: rowDiffers) else { return nil }
            let bottom = (top..<height).last(where: rowDiffers) ?? top
            var left = width
            var right = -1
            for y in top...bottom {
                if let x = (0..<left).first(where: { differs($0, y) }) { left = x }
                if let x = (right + 1..<width).last(where: { differs($0, y) }) { right = x }
            }
            return FrameRegion(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
        }
    }
}

/// A separable Gaussian with clamp-to-edge borders on premultiplied `Float` RGBA, and what to do
/// with its result (``Mode``): the kernel of ``PixelBuffer/blurred(sigma:)`` and
/// ``PixelBuffer/sharpened(sigma:amount:)``.
///
/// Each band of output rows is computed from the source alone: source rows are filtered
/// horizontally into a ring of `2 * radius + 1` rows as the band needs them, and each output row
/// is the weighted sum of the ring rows around it. Two bands on two threads filter the few source
/// rows where they meet twice, and every output sample is computed the same way on one thread
/// or two.
struct GaussianFilter: Sendable {
    /// What becomes of the blurred premultiplied colour.
    enum Mode: Sendable, Hashable {
        /// Straight alpha again: the blur.
        case blur
        /// `original + amount * (original - blurred)` on premultiplied colour, alpha unchanged.
        case sharpen(amount: Float)
    }

    /// `ceil(3 * sigma)`: the taps are offsets `-radius...radius`.
    let radius: Int
    /// The weight of offsets `k` and `-k` at index `k`; all `2 * radius + 1` taps sum to 1.
    let weights: [Float]
    let mode: Mode
    /// For sigmas above ``widestExact``: the boxes that stand in for the kernel.
    let wide: ExtendedBoxGaussian?

    /// The largest sigma filtered with the exact kernel (61 taps); wider ones take
    /// ``ExtendedBoxGaussian``, whose cost does not grow with sigma, within 2.5 levels of the
    /// exact kernel.
    static let widestExact = 10.0

    init(sigma: Double, mode: Mode) {
        precondition(sigma > 0 && sigma <= 1_000_000, "sigma must be in 0 < sigma <= 1000000")
        self.mode = mode
        if sigma > Self.widestExact {
            wide = ExtendedBoxGaussian(sigma: sigma)
            radius = 0
            weights = []
            return
        }
        wide = nil
        radius = Int((3 * sigma).rounded(.up))
        let raw = (0...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        weights = raw.map { Float($0 / total) }
    }

    /// `source` (straight RGBA rows of `width` pixels) filtered, in two bands on two threads
    /// when `threads` is 2 and there are two rows; `nil` when `stop` says to stop first (each
    /// thread asks it every ``FilterStop/rows`` rows).
    func apply<S: Sample & SIMDScalar>(to source: [S], width: Int, threads: Int, stop: FilterStop? = nil) -> [S]? {
        if let wide { return apply(wide, to: source, width: width, threads: threads, stop: stop) }
        let rowLength = width * 4
        let height = source.count / rowLength
        let split = threads > 1 && height >= 2 ? height / 2 : 0
        var finished = true
        let result = [S](unsharedUninitializedCapacity: source.count) { output, initialized in
            if split == 0 {
                finished = band(rows: 0..<height, of: source, width: width, into: output, stop: stop)
            } else {
                let (top, bottom) = forkJoin(
                    { [self] in
                        var done = true
                        let rows = [S](unsharedUninitializedCapacity: rowLength * split) { band, count in
                            done = self.band(rows: 0..<split, of: source, width: width, into: band, stop: stop)
                            count = done ? rowLength * split : 0
                        }
                        return done ? rows : nil
                    },
                    alongside: {
                        band(
                            rows: split..<height, of: source, width: width,
                            into: UnsafeMutableBufferPointer(rebasing: output[(rowLength * split)...]), stop: stop)
                    })
                if let top, bottom {
                    _ = UnsafeMutableBufferPointer(rebasing: output[..<(rowLength * split)]).initialize(from: top)
                } else {
                    finished = false
                }
            }
            initialized = finished ? source.count : 0
        }
        return finished ? result : nil
    }

    /// `source` filtered by `boxes` along its rows, then its columns, each half of them on a
    /// second thread when `threads` is 2; then stored as ``Mode`` says.
    private func apply<S: Sample & SIMDScalar>(
        _ boxes: ExtendedBoxGaussian, to source: [S], width: Int, threads: Int, stop: FilterStop?
    ) -> [S]? {
        let height = source.count / (width * 4)
        let premultiplied = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width * height)
        defer { premultiplied.deallocate() }
        let premultipliedAll = source.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return true }
            let pixels = UnsafeRawPointer(base).assumingMemoryBound(to: SIMD4<S>.self)
            for y in 0..<height {
                if y % FilterStop.rows == 0, stop?.shouldStop() == true { return false }
                for i in (y * width)..<((y + 1) * width) {
                    let pixel = SIMD4<Float>(pixels[i])
                    premultiplied[i] = pixel * SIMD4<Float>(pixel[3], pixel[3], pixel[3], 1)
                }
            }
            return true
        }
        guard premultipliedAll else { return nil }
        let image = UncheckedSendablePixels(base: premultiplied.baseAddress.unsafelyUnwrapped)
        /// Filters lines `lines` (rows when `stride` is 1, else columns), each `count` long;
        /// `false` when `stop` said to stop first.
        @Sendable func lines(_ lines: Range<Int>, count: Int, step: Int, stride: Int) -> Bool {
            let room = count + 2 * boxes.margin
            let from = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: room)
            let to = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: room)
            defer {
                from.deallocate()
                to.deallocate()
            }
            for line in lines {
                if (line - lines.lowerBound) % FilterStop.rows == 0, stop?.shouldStop() == true { return false }
                boxes.filter(image.base + line * step, count: count, stride: stride, scratch: (from, to))
            }
            return true
        }
        for (count, lineCount, step, stride) in [(width, height, width, 1), (height, width, 1, width)] {
            let split = threads > 1 && lineCount >= 2 ? lineCount / 2 : 0
            if split == 0 {
                guard lines(0..<lineCount, count: count, step: step, stride: stride) else { return nil }
            } else {
                let done = forkJoin(
                    { lines(0..<split, count: count, step: step, stride: stride) },
                    alongside: { lines(split..<lineCount, count: count, step: step, stride: stride) })
                guard done.side, done.main else { return nil }
            }
        }
        var stored = true
        let result = [S](unsharedUninitializedCapacity: source.count) { output, initialized in
            stored = source.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress, let out = output.baseAddress else { return true }
                let pixels = UnsafeRawPointer(base).assumingMemoryBound(to: SIMD4<S>.self)
                for y in 0..<height {
                    if y % FilterStop.rows == 0, stop?.shouldStop() == true { return false }
                    for i in (y * width)..<((y + 1) * width) {
                        store(premultiplied[i], over: pixels[i], into: out + i &* 4)
                    }
                }
                return true
            }
            initialized = stored ? source.count : 0
        }
        return stored ? result : nil
    }

    /// Output rows `rows` into `output`, which starts at the first of them; `false` when `stop`
    /// said to stop first.
    private func band<S: Sample & SIMDScalar>(
        rows: Range<Int>, of source: [S], width: Int, into output: UnsafeMutableBufferPointer<S>, stop: FilterStop?
    ) -> Bool {
        let height = source.count / (width * 4)
        let ringSize = min(2 * radius + 1, height)
        let padded = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width + 2 * radius)
        let ring = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: ringSize * width)
        // The ring rows of offsets -radius...radius from the output row, at `radius + k`.
        let taps = UnsafeMutableBufferPointer<UnsafePointer<SIMD4<Float>>>.allocate(capacity: 2 * radius + 1)
        defer {
            padded.deallocate()
            ring.deallocate()
            taps.deallocate()
        }
        return source.withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { weights in
                guard let base = source.baseAddress, let ringBase = ring.baseAddress,
                    let paddedBase = padded.baseAddress, let output = output.baseAddress
                else { return true }
                let pixels = UnsafeRawPointer(base).assumingMemoryBound(to: SIMD4<S>.self)
                func ringRow(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
                    ringBase + (min(max(y, 0), height - 1) % ringSize) * width
                }
                var next = max(rows.lowerBound - radius, 0)  // the next source row to filter
                for y in rows {
                    if (y - rows.lowerBound) % FilterStop.rows == 0, stop?.shouldStop() == true { return false }
                    // The horizontal pass, for the source rows this output row is the first to need.
                    while next <= min(y + radius, height - 1) {
                        let row = pixels + next * width
                        for x in 0..<width {
                            let pixel = SIMD4<Float>(row[x])
                            paddedBase[radius &+ x] = pixel * SIMD4<Float>(pixel[3], pixel[3], pixel[3], 1)
                        }
                        (paddedBase).update(repeating: paddedBase[radius], count: radius)
                        (paddedBase + radius + width).update(repeating: paddedBase[radius + width - 1], count: radius)
                        let target = ringRow(next)
                        for x in 0..<width {
                            let center = paddedBase + (radius &+ x)
                            var sum = center.pointee * weights[0]
                            var k = 1
                            while k <= radius {
                                sum += ((center - k).pointee + (center + k).pointee) * weights[k]
                                k &+= 1
                            }
                            target[x] = sum
                        }
                        next += 1
                    }
                    // The vertical pass, each sum written as it is made.
                    for k in -radius...radius { taps[radius + k] = UnsafePointer(ringRow(y + k)) }
                    let sourceRow = pixels + y * width
                    let outputRow = output + (y - rows.lowerBound) * width * 4
                    for x in 0..<width {
                        var sum = taps[radius][x] * weights[0]
                        var k = 1
                        while k <= radius {
                            sum += (taps[radius &- k][x] + taps[radius &+ k][x]) * weights[k]
                            k &+= 1
                        }
                        store(sum, over: sourceRow[x], into: outputRow + x &* 4)
                    }
                }
                return true
            }
        }
    }

    /// Writes the output pixel whose blurred premultiplied colour is `sum` and whose source pixel
    /// is `pixel`, rounded to nearest (ties to even).
    @inline(__always)
    private func store<S: Sample & SIMDScalar>(
        _ sum: SIMD4<Float>, over pixel: SIMD4<S>, into out: UnsafeMutablePointer<S>
    ) {
        let maximum = Float(S.max)
        var straight: SIMD4<Float>
        switch mode {
        case .blur:
            let alpha = min(max(sum[3], 0), maximum)
            guard alpha >= 0.5 else {
                out.update(repeating: 0, count: 4)
                return
            }
            let inverse = 1 / alpha
            straight = sum * SIMD4<Float>(inverse, inverse, inverse, 0)
            straight[3] = alpha
        case .sharpen(let amount):
            guard pixel[3] != 0 else {
                for c in 0..<4 { out[c] = pixel[c] }
                return
            }
            let original = SIMD4<Float>(pixel)
            let alpha = original[3]
            let premultiplied = original * SIMD4<Float>(alpha, alpha, alpha, 1)
            let inverse = 1 / alpha
            straight = (premultiplied + (premultiplied - sum) * amount) * SIMD4<Float>(inverse, inverse, inverse, 0)
            straight[3] = alpha
        }
        for c in 0..<4 {
            // Adding 2^23 to a float in 0...65535 leaves it rounded in the low bits of the significand.
            let bits = (min(max(straight[c], 0), maximum) + 8_388_608).bitPattern
            out[c] = S(truncatingIfNeeded: bits)
        }
    }
}

/// Whether a filter stops: asked every ``rows`` rows (or lines of a box pass) by each thread at
/// work. The task's own thread reads `Task.isCancelled` and raises a flag for the helper
/// thread, which runs outside any task.
final class FilterStop: Sendable {
    /// Rows (or lines) between two questions: a few milliseconds of work on a 12 MP image.
    static let rows = 8
    private let raised = Locked(false)
    private let isCancelled: @Sendable () -> Bool

    /// A stop that asks `isCancelled`; by default, whether the current task is cancelled.
    init(isCancelled: @escaping @Sendable () -> Bool = { Task.isCancelled }) {
        self.isCancelled = isCancelled
    }

    /// Whether the task that started the filter is cancelled.
    func shouldStop() -> Bool {
        if raised.withLock({ $0 }) { return true }
        guard isCancelled() else { return false }
        raised.withLock { $0 = true }
        return true
    }
}

/// The premultiplied image the box passes work on, shared by the two threads of a pass, each of
/// which filters lines of its own (rows, then columns, with a join between).
private struct UncheckedSendablePixels: @unchecked Sendable {
    let base: UnsafeMutablePointer<SIMD4<Float>>
}
