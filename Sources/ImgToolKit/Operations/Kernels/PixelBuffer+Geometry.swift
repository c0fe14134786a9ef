import Foundation

extension PixelBuffer {
    /// This image turned clockwise by `quarterTurns` times 90 degrees, exactly (pixels are moved,
    /// never resampled).
    ///
    /// One quarter turn sends pixel `(x, y)` of a `w` x `h` image to `(h - 1 - y, x)` of an
    /// `h` x `w` image, as ImageMagick's `-rotate 90` does.
    /// - Parameter quarterTurns: any integer; negative turns counter-clockwise, and a multiple of
    ///   4 returns `self`.
    /// - Returns: the turned image, at the same depth, with this image's ``metadata``.
    public func rotated(quarterTurns: Int) -> PixelBuffer {
        switch (quarterTurns % 4 + 4) % 4 {
        case 1: remapped(width: height, height: width, origin: (height - 1) * width, columnStep: -width, rowStep: 1)
        case 2: remapped(width: width, height: height, origin: width * height - 1, columnStep: -1, rowStep: -width)
        case 3: remapped(width: height, height: width, origin: width - 1, columnStep: width, rowStep: -1)
        default: self
        }
    }

    /// This image mirrored top to bottom (ImageMagick's `-flip`), exactly.
    /// - Returns: the mirrored image, at the same depth, with this image's ``metadata``.
    public func flipped() -> PixelBuffer {
        rowsCopied(width: width, height: height, fill: nil) { row in (height - 1 - row, 0) }
    }

    /// This image mirrored left to right (ImageMagick's `-flop`), exactly.
    /// - Returns: the mirrored image, at the same depth, with this image's ``metadata``.
    public func flopped() -> PixelBuffer {
        remapped(width: width, height: height, origin: width - 1, columnStep: -1, rowStep: width)
    }

    /// This image with borders added, the image inside copied exactly.
    /// - Parameters:
    ///   - top: rows added above, at least 0.
    ///   - right: columns added on the right, at least 0.
    ///   - bottom: rows added below, at least 0.
    ///   - left: columns added on the left, at least 0.
    ///   - color: the borders' colour (straight alpha; on a 16-bit image each sample times 257);
    ///     `nil` for transparent, `0,0,0,0`.
    /// - Returns: a `(left + width + right)` x `(top + height + bottom)` image, at the same
    ///   depth, with this image's ``metadata``.
    public func padded(top: Int, right: Int, bottom: Int, left: Int, color: RGBAColor?) -> PixelBuffer {
        precondition(top >= 0 && right >= 0 && bottom >= 0 && left >= 0, "negative padding")
        return rowsCopied(width: left + width + right, height: top + height + bottom, fill: color) { row in
            (row - top, left)
        }
    }

    /// This image rotated clockwise by `degrees` about its centre, on a canvas grown to hold all
    /// of it, resampled bilinearly.
    ///
    /// A multiple of 90 degrees returns exactly ``rotated(quarterTurns:)``. Any other angle is
    /// computed in `Double` as follows, for a `w` x `h` image:
    /// - The angle is `θ = r · π / 180`, where `r` is `degrees` reduced modulo 360 into
    ///   `0 ..< 360` (`degrees.truncatingRemainder(dividingBy: 360)`, plus 360 when negative,
    ///   and 0 if that rounds to 360).
    ///   Let `c = cos θ`, `s = sin θ`.
    /// - The output is `W` x `H`, with `W = ceil(|w·c| + |h·s| - 1e-9)` and
    ///   `H = ceil(|w·s| + |h·c| - 1e-9)` (never below 0).
    /// - Pixel `(i, j)` has its centre at `(i + 0.5, j + 0.5)`, in both images. With
    ///   `dx = i + 0.5 - W/2` and `dy = j + 0.5 - H/2` (offsets from the output's centre), the
    ///   output pixel shows the source point `sx = c·dx + s·dy + w/2`, `sy = -s·dx + c·dy + h/2`:
    ///   the output's centre maps to the source's centre, and (y pointing down) a turn by +θ
    ///   is clockwise on screen.
    /// - That point is sampled bilinearly between the four pixel centres around it: with
    ///   `u = sx - 0.5`, `v = sy - 0.5`, `x0 = floor(u)`, `y0 = floor(v)`, `fx = u - x0`,
    ///   `fy = v - y0`, the pixels `(x0, y0)`, `(x0 + 1, y0)`, `(x0, y0 + 1)`, `(x0 + 1, y0 + 1)`
    ///   weigh `(1-fx)(1-fy)`, `fx(1-fy)`, `(1-fx)fy`, `fx·fy`. A pixel outside the source
    ///   counts as `background`, so edges are smoothed against it.
    /// - The blend is of premultiplied colour (so transparent pixels add no dark fringe), in
    ///   sample units: `A = Σ weight·alpha`, `P = Σ weight·alpha·colour` per channel. The output
    ///   alpha is `A` rounded to nearest (halves up); the output colour is `P / A` rounded so and
    ///   capped at the sample maximum, or 0 when the output alpha is 0.
    /// - Parameters:
    ///   - degrees: the clockwise angle; any finite value (a precondition).
    ///   - background: the colour outside the source (straight alpha; on a 16-bit image each
    ///     sample times 257); `nil` for transparent, `0,0,0,0`.
    /// - Returns: the rotated image, straight alpha, at the same depth, with this image's
    ///   ``metadata``.
    public func rotated(degrees: Double, background: RGBAColor?) -> PixelBuffer {
        precondition(degrees.isFinite, "rotation angle \(degrees) is not finite")
        var turn = degrees.truncatingRemainder(dividingBy: 360)
        if turn < 0 { turn += 360 }
        if turn == 360 { turn = 0 }
        if turn.truncatingRemainder(dividingBy: 90) == 0 { return rotated(quarterTurns: Int(turn / 90)) }
        let angle = turn * .pi / 180
        let (c, s) = (cos(angle), sin(angle))
        let w = Double(width)
        let h = Double(height)
        let outWidth = max(0, Int((abs(w * c) + abs(h * s) - 1e-9).rounded(.up)))
        let outHeight = max(0, Int((abs(w * s) + abs(h * c) - 1e-9).rounded(.up)))
        let map = RotationMap(
            cos: c, sin: s, sourceWidth: width, sourceHeight: height, outWidth: outWidth, outHeight: outHeight)
        switch samples {
        case .rgba8(let values):
            return withSamples(.rgba8(map.apply(values, background)), width: outWidth, height: outHeight)
        case .rgba16(let values):
            return withSamples(.rgba16(map.apply(values, background)), width: outWidth, height: outHeight)
        }
    }
}

// MARK: - Exact kernels

extension PixelBuffer {
    /// A `width` x `height` image whose pixel `(x, y)` is this image's pixel number
    /// `origin + x * columnStep + y * rowStep`: every quarter turn and mirror is one such map.
    private func remapped(width outWidth: Int, height outHeight: Int, origin: Int, columnStep: Int, rowStep: Int)
        -> PixelBuffer
    {
        func remap<S: Sample>(_ values: [S]) -> [S] {
            let count = outWidth * outHeight * 4
            let tile = 32  // a 32x32 tile reads from 32 source rows at most; both sides stay in L1
            return [S](unsharedUninitializedCapacity: count) { out, initialized in
                values.withUnsafeBufferPointer { source in
                    for tileY in stride(from: 0, to: outHeight, by: tile) {
                        for tileX in stride(from: 0, to: outWidth, by: tile) {
                            for y in tileY..<min(tileY + tile, outHeight) {
                                var from = (origin + tileX * columnStep + y * rowStep) * 4
                                var to = (y * outWidth + tileX) * 4
                                for _ in tileX..<min(tileX + tile, outWidth) {
                                    out[to] = source[from]
                                    out[to + 1] = source[from + 1]
                                    out[to + 2] = source[from + 2]
                                    out[to + 3] = source[from + 3]
                                    from += columnStep * 4
                                    to += 4
                                }
                            }
                        }
                    }
                }
                initialized = count
            }
        }
        switch samples {
        case .rgba8(let values): return withSamples(.rgba8(remap(values)), width: outWidth, height: outHeight)
        case .rgba16(let values): return withSamples(.rgba16(remap(values)), width: outWidth, height: outHeight)
        }
    }

    /// A `width` x `height` image filled with `fill` (transparent when `nil`), into whose row
    /// `y` a whole row of this image is copied: `source(y)` gives the source row (none when
    /// outside this image) and the output column it starts at.
    private func rowsCopied(
        width outWidth: Int, height outHeight: Int, fill: RGBAColor?, source: (Int) -> (row: Int, to: Int)
    ) -> PixelBuffer {
        func copy<S: Sample>(_ values: [S]) -> [S] {
            let color = fill ?? RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
            let pixel = [color.red, color.green, color.blue, color.alpha].map { S($0) &* (S.max / 255) }
            let fillRow = [[S]](repeating: pixel, count: outWidth).flatMap(\.self)
            var result = [S]()
            result.reserveCapacity(outWidth * outHeight * 4)
            for y in 0..<outHeight {
                let (row, to) = source(y)
                let run = row >= 0 && row < height ? min(width, outWidth - to) : 0
                guard run > 0 else {
                    result += fillRow
                    continue
                }
                let start = row * width * 4
                result += fillRow[0..<to * 4]
                result += values[start..<start + run * 4]
                result += fillRow[(to + run) * 4..<outWidth * 4]
            }
            return result
        }
        switch samples {
        case .rgba8(let values): return withSamples(.rgba8(copy(values)), width: outWidth, height: outHeight)
        case .rgba16(let values): return withSamples(.rgba16(copy(values)), width: outWidth, height: outHeight)
        }
    }

    /// A `width` x `height` buffer of `samples` with this image's ``metadata``.
    private func withSamples(_ samples: Samples, width: Int, height: Int) -> PixelBuffer {
        var result: PixelBuffer
        switch samples {
        case .rgba8(let values): result = PixelBuffer(width: width, height: height, rgba8: values)
        case .rgba16(let values): result = PixelBuffer(width: width, height: height, rgba16: values)
        }
        result.metadata = metadata
        return result
    }
}

// MARK: - Any angle

/// The inverse map and premultiplied bilinear sampler of
/// ``PixelBuffer/rotated(degrees:background:)``, whose comment gives the formulas.
private struct RotationMap {
    let cos: Double
    let sin: Double
    let sourceWidth: Int
    let sourceHeight: Int
    let outWidth: Int
    let outHeight: Int

    func apply<S: Sample>(_ values: [S], _ background: RGBAColor?) -> [S] {
        let (w, h) = (sourceWidth, sourceHeight)
        let scale = Double(S.max / 255)
        let color = background ?? RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
        let straight = SIMD4(Double(color.red), Double(color.green), Double(color.blue), Double(color.alpha)) * scale
        // Premultiplied, in sample units, with 1 in the alpha lane: `P` and `A` add up together.
        var outside = straight
        outside[3] = 1
        outside *= straight[3]
        let filled = straight[3] == 0 ? SIMD4<Double>() : straight  // all four taps outside
        let maximum = SIMD4(repeating: Double(S.max))
        let count = outWidth * outHeight * 4
        return [S](unsharedUninitializedCapacity: count) { out, initialized in
            values.withUnsafeBufferPointer { source in
                @inline(__always) func tap(_ x: Int, _ y: Int) -> SIMD4<Double> {
                    let index = (y * w + x) * 4
                    let alpha = Double(source[index + 3])
                    return SIMD4(Double(source[index]), Double(source[index + 1]), Double(source[index + 2]), 1) * alpha
                }
                @inline(__always) func tapOrOutside(_ x: Int, _ y: Int) -> SIMD4<Double> {
                    x >= 0 && y >= 0 && x < w && y < h ? tap(x, y) : outside
                }
                let dx0 = 0.5 - Double(outWidth) / 2
                var to = 0
                for j in 0..<outHeight {
                    let dy = Double(j) + 0.5 - Double(outHeight) / 2
                    let u0 = cos * dx0 + sin * dy + Double(w) / 2 - 0.5
                    let v0 = -sin * dx0 + cos * dy + Double(h) / 2 - 0.5
                    for i in 0..<outWidth {
                        let u = u0 + Double(i) * cos
                        let v = v0 - Double(i) * sin
                        // floor without a libm call (x86-64's baseline has no SSE4.1 `roundsd`)
                        var (x0, y0) = (Int(u), Int(v))
                        if Double(x0) > u { x0 -= 1 }
                        if Double(y0) > v { y0 -= 1 }
                        let (fx, fy) = (u - Double(x0), v - Double(y0))
                        let sum: SIMD4<Double>
                        if x0 >= 0 && y0 >= 0 && x0 < w - 1 && y0 < h - 1 {
                            sum =
                                (tap(x0, y0) * (1 - fx) + tap(x0 + 1, y0) * fx) * (1 - fy)
                                + (tap(x0, y0 + 1) * (1 - fx) + tap(x0 + 1, y0 + 1) * fx) * fy
                        } else if x0 < -1 || y0 < -1 || x0 >= w || y0 >= h {
                            for lane in 0..<4 { out[to + lane] = S(filled[lane]) }
                            to += 4
                            continue
                        } else {
                            sum =
                                (tapOrOutside(x0, y0) * (1 - fx) + tapOrOutside(x0 + 1, y0) * fx) * (1 - fy)
                                + (tapOrOutside(x0, y0 + 1) * (1 - fx) + tapOrOutside(x0 + 1, y0 + 1) * fx) * fy
                        }
                        // Rounding to nearest is `+ 0.5` and truncation: every value is at least 0.
                        if sum[3] < 0.5 {
                            for lane in 0..<4 { out[to + lane] = 0 }
                        } else {
                            var pixel = sum * (1 / sum[3]) + 0.5
                            pixel[3] = sum[3] + 0.5
                            pixel = pixel.replacing(with: maximum, where: pixel .> maximum)
                            for lane in 0..<4 { out[to + lane] = S(truncatingIfNeeded: Int(pixel[lane])) }
                        }
                        to += 4
                    }
                }
            }
            initialized = count
        }
    }
}
