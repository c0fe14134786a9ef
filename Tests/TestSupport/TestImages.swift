import ImgToolKit

/// Small deterministic pictures, built in the test.
public enum TestImages {
    /// A `width` x `height` 8-bit image whose pixels come from `pixel(x, y)`.
    public static func make8(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba8: samples(width: width, height: height, pixel))
    }

    /// A `width` x `height` 16-bit image whose pixels come from `pixel(x, y)`.
    public static func make16(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt16]) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba16: samples(width: width, height: height, pixel))
    }

    /// The samples of `pixel(x, y)` for every pixel, row by row.
    private static func samples<Sample>(width: Int, height: Int, _ pixel: (Int, Int) -> [Sample]) -> [Sample] {
        var samples: [Sample] = []
        samples.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width { samples += pixel(x, y) }
        }
        return samples
    }

    /// An 8-bit image of noise with every sample value possible, alpha included.
    public static func noise8(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var generator = SeededRandom(seed: seed)
        let samples = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    /// A 16-bit image of noise.
    public static func noise16(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var generator = SeededRandom(seed: seed)
        let samples = (0..<width * height * 4).map { _ in UInt16.random(in: 0...65535, using: &generator) }
        return PixelBuffer(width: width, height: height, rgba16: samples)
    }

    /// A `width` x `height` 8-bit gradient: red across, green down, blue 90, alpha 200.
    public static func gradient(width: Int, height: Int) -> PixelBuffer {
        make8(width: width, height: height) { x, y in
            [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 90, 200]
        }
    }
}

/// Compares whole buffers: `nil` when they are equal, else the first differing pixel (x, y,
/// expected, actual) and how many pixels differ.
public func firstDifference(_ expected: PixelBuffer, _ actual: PixelBuffer) -> String? {
    guard expected.width == actual.width, expected.height == actual.height else {
        return "size \(actual.width)x\(actual.height), expected \(expected.width)x\(expected.height)"
    }
    guard expected.depth == actual.depth else { return "depth \(actual.depth), expected \(expected.depth)" }
    var first: String?
    var count = 0
    for y in 0..<expected.height {
        for x in 0..<expected.width {
            let e = pixelSamples(expected, x, y)
            let a = pixelSamples(actual, x, y)
            if e != a {
                count += 1
                if first == nil { first = "(\(x),\(y)): expected \(e), actual \(a)" }
            }
        }
    }
    return first.map { "\(count) pixels differ; first at \($0)" }
}

/// The four samples of pixel (x, y) as `Int`s, at the buffer's depth.
public func pixelSamples(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
    let base = (y * image.width + x) * 4
    switch image.samples {
    case .rgba8(let values): return values[base..<base + 4].map(Int.init)
    case .rgba16(let values): return values[base..<base + 4].map(Int.init)
    }
}
