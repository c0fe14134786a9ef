import CColor
import Foundation
import Testing

@testable import ImgToolKit

/// Every transform a conversion uses (grey tables, the RGB matrix/shaper path, Little CMS's CMYK
/// transform), against Little CMS's unoptimised double-precision transform of the same profiles
/// (`imgtool_color_reference`): within 1 level at 8 and at 16 bits, on linear, gamma 2.2 and PQ
/// curves.
@Suite("Colour precision")
struct ColorPrecisionTests {
    /// A transfer curve the test profiles are built with.
    enum Curve: String, CaseIterable, CustomStringConvertible {
        case linear, gamma22, pq

        var description: String { rawValue }

        var gamma: Double { self == .gamma22 ? 2.2 : 1 }

        /// SMPTE ST 2084 (PQ), encoded 0...1 to linear 0...1 (1 is 10000 cd/m2), sampled at 4096
        /// points: what a tabulated profile curve holds.
        var table: [Float]? {
            guard self == .pq else { return nil }
            let (m1, m2) = (2610.0 / 16384, 2523.0 / 4096 * 128)
            let (c1, c2, c3) = (3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
            return (0..<4096).map { index in
                let power = pow(Double(index) / 4095, 1 / m2)
                return Float(pow(max(power - c1, 0) / (c2 - c3 * power), 1 / m1))
            }
        }
    }

    static func grayProfile(_ curve: Curve) throws -> ColorProfile {
        try serialised { length in
            if let table = curve.table {
                return table.withUnsafeBufferPointer { imgtool_icc_make_gray(0, $0.baseAddress, $0.count, &length) }
            }
            return imgtool_icc_make_gray(curve.gamma, nil, 0, &length)
        }
    }

    /// Rec. 2020 primaries, D65 white, with `curve`.
    static func rgbProfile(_ curve: Curve) throws -> ColorProfile {
        let (white, red, green, blue) = ([0.3127, 0.3290], [0.708, 0.292], [0.170, 0.797], [0.131, 0.046])
        return try serialised { length in
            let table = curve.table ?? []
            return table.withUnsafeBufferPointer { table in
                imgtool_icc_make_rgb_curve(
                    white, red, green, blue, curve.gamma, curve.table == nil ? nil : table.baseAddress, table.count,
                    "test \(curve)", &length)
            }
        }
    }

    static func serialised(_ make: (inout Int) -> UnsafeMutablePointer<UInt8>?) throws -> ColorProfile {
        var length = 0
        guard let bytes = make(&length) else { throw ImgToolError(.corrupt, "Little CMS made no profile") }
        defer { imgtool_icc_free(bytes) }
        return ColorProfile(data: Array(UnsafeBufferPointer(start: bytes, count: length)))
    }

    /// The reference: `input` (`channels` samples 0...1 a pixel) through Little CMS's unoptimised
    /// double transform, 3 samples a pixel.
    static func reference(
        from source: ColorProfile?, to destination: ColorProfile?, channels: Int, input: [Double]
    ) throws -> [Double] {
        let count = input.count / channels
        var output = [Double](repeating: 0, count: count * 3)
        let ok = (source?.data ?? []).withUnsafeBufferPointer { from in
            (destination?.data ?? []).withUnsafeBufferPointer { to in
                imgtool_color_reference(
                    from.baseAddress, from.count, to.baseAddress, to.count, Int32(channels), input, &output, count)
            }
        }
        guard ok == 1 else { throw ImgToolError(.corrupt, "Little CMS refused the reference transform") }
        return output
    }

    /// Runs `layout`'s transform on `pixels` (RGBA samples, `depth`) and checks every R, G and B
    /// against `reference` (0...1) within 1 level; reports the worst sample.
    /// - Parameter slack: per sample (R, G, B of each pixel), levels allowed beyond 1; none by default.
    static func expectWithinOneLevel(
        _ pixels: PixelBuffer, from source: ColorProfile?, to destination: ColorProfile?,
        layout: ColorTransform.Layout, reference: [Double], slack: [Double]? = nil, what: String
    ) throws {
        var image = pixels
        try ColorTransform.make(from: source, to: destination, layout: layout).apply(to: &image)
        let maximum = image.depth == .sixteen ? 65535.0 : 255.0
        let output: [Int] =
            switch image.samples {
            case .rgba8(let samples): samples.map(Int.init)
            case .rgba16(let samples): samples.map(Int.init)
            }
        var worst = (error: 0.0, pixel: 0, channel: 0)
        for pixel in 0..<image.pixelCount {
            for channel in 0..<3 {
                let exact = min(max(reference[pixel * 3 + channel], 0), 1) * maximum
                let error = abs(Double(output[pixel * 4 + channel]) - exact) - (slack?[pixel * 3 + channel] ?? 0)
                if error > worst.error { worst = (error, pixel, channel) }
            }
        }
        #expect(
            worst.error <= 1,
            "\(what): pixel \(worst.pixel) channel \(worst.channel) is \(output[worst.pixel * 4 + worst.channel]), the reference \(reference[worst.pixel * 3 + worst.channel] * maximum)"
        )
    }

    @Test("Grey to sRGB: every 8-bit and every 16-bit code within 1 level", arguments: Curve.allCases)
    func gray(curve: Curve) throws {
        let profile = try Self.grayProfile(curve)
        for depth in [SampleDepth.eight, .sixteen] {
            let levels = depth == .sixteen ? 65536 : 256
            let codes = (0..<levels).map { Double($0) / Double(levels - 1) }
            let image =
                depth == .sixteen
                ? PixelBuffer(width: levels, height: 1, rgba16: (0..<levels).flatMap { [UInt16($0), 0, 0, 65535] })
                : PixelBuffer(width: levels, height: 1, rgba8: (0..<levels).flatMap { [UInt8($0), 0, 0, 255] })
            let reference = try Self.reference(from: profile, to: nil, channels: 1, input: codes)
            try Self.expectWithinOneLevel(
                image, from: profile, to: nil, layout: .grayInRGBA(depth), reference: reference,
                what: "\(curve) grey, \(depth)")
        }
    }

    /// Every grey level and a cube of colours, at `depth`.
    static func rgbSweep(depth: SampleDepth) -> [[Int]] {
        let maximum = depth == .sixteen ? 65535 : 255
        let step = depth == .sixteen ? 4369 : 17
        let grid = Array(stride(from: 0, through: maximum, by: step))
        let greys = Array(stride(from: 0, through: maximum, by: depth == .sixteen ? 3 : 1))
        return grid.flatMap { r in grid.flatMap { g in grid.map { b in [r, g, b] } } } + greys.map { [$0, $0, $0] }
    }

    @Test(
        "RGB profile to sRGB and back: a sweep of 8-bit and 16-bit colours within 1 level", arguments: Curve.allCases)
    func rgb(curve: Curve) throws {
        let profile = try Self.rgbProfile(curve)
        for depth in [SampleDepth.eight, .sixteen] {
            let sweep = Self.rgbSweep(depth: depth)
            let maximum = Double(depth == .sixteen ? 65535 : 255)
            let image =
                depth == .sixteen
                ? PixelBuffer(width: sweep.count, height: 1, rgba16: sweep.flatMap { $0.map(UInt16.init) + [65535] })
                : PixelBuffer(width: sweep.count, height: 1, rgba8: sweep.flatMap { $0.map(UInt8.init) + [255] })
            let input = sweep.flatMap { $0.map { Double($0) / maximum } }
            for (from, to) in [(profile, nil), (nil, profile)] as [(ColorProfile?, ColorProfile?)] {
                let reference = try Self.reference(from: from, to: to, channels: 3, input: input)
                let slack =
                    to != nil && curve.table != nil && depth == .sixteen
                    ? try Self.staircase(
                        to: curve,
                        linear: Self.reference(
                            from: nil, to: Self.rgbProfile(.linear), channels: 3, input: input), reference: reference)
                    : nil
                try Self.expectWithinOneLevel(
                    image, from: from, to: to, layout: .rgba(depth), reference: reference, slack: slack,
                    what: "\(curve) RGB \(from == nil ? "from" : "to") sRGB, \(depth)")
            }
        }
    }

    /// Little CMS evaluates a sampled curve (and the inverse it makes of one) at the nearest of
    /// 65536 inputs, in float as in 16-bit transforms: its 16-bit rendering into a PQ profile is a
    /// staircase, up to a dozen levels a step where PQ is steep, and which step a value lands on
    /// depends on the last bit of its arithmetic. The slack for each sample of `linear` (the
    /// reference's linear light): the reference's own rise over one input step, either side of
    /// `reference`.
    static func staircase(to curve: Curve, linear: [Double], reference center: [Double]) throws -> [Double] {
        let step = 1.0 / 65535
        let profile = try rgbProfile(curve)
        let below = try reference(
            from: rgbProfile(.linear), to: profile, channels: 3, input: linear.map { max($0 - step, 0) })
        let above = try reference(
            from: rgbProfile(.linear), to: profile, channels: 3, input: linear.map { min($0 + step, 1) })
        return center.indices.map { max(abs(center[$0] - below[$0]), abs(above[$0] - center[$0])) * 65535 }
    }

    @Test("CMYK to sRGB: a grid of 8-bit inks within 1 level (both ink conventions)")
    func cmyk() throws {
        let profile = ColorProfile(data: try ColorManagementTests.fixture("cmyk-test.icc"))
        let levels = Array(stride(from: 0, through: 255, by: 17))
        let inks = levels.flatMap { c in
            levels.flatMap { m in levels.flatMap { y in levels.map { k in [c, m, y, k] } } }
        }
        let reference = try Self.reference(
            from: profile, to: nil, channels: 4, input: inks.flatMap { $0.map { Double($0) / 255 } })
        let image = PixelBuffer(width: inks.count, height: 1, rgba8: inks.flatMap { $0.map(UInt8.init) })
        try Self.expectWithinOneLevel(
            image, from: profile, to: nil, layout: .cmyk, reference: reference, what: "CMYK")
        let inverted = PixelBuffer(width: inks.count, height: 1, rgba8: inks.flatMap { $0.map { UInt8(255 - $0) } })
        try Self.expectWithinOneLevel(
            inverted, from: profile, to: nil, layout: .cmykInverted, reference: reference, what: "inverted CMYK")
    }
}
