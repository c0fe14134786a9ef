import Foundation
import ImgToolKit

/// Small deterministic images and files for the merge and loader tests.
enum MergeFixtures {
    /// A reproducible pseudo-random generator (SplitMix64), so failures can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// An 8-bit image of noise with every alpha value possible.
    static func noise8(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var generator = Generator(state: seed)
        let samples = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    /// A 16-bit image of noise.
    static func noise16(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var generator = Generator(state: seed)
        let samples = (0..<width * height * 4).map { _ in UInt16.random(in: 0...65535, using: &generator) }
        return PixelBuffer(width: width, height: height, rgba16: samples)
    }

    /// One pixel of one colour.
    static func solid(_ rgba: [UInt8], width: Int = 1, height: Int = 1) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba8: Array((0..<width * height).map { _ in rgba }.joined()))
    }

    /// The PNG encoding of `image` (level 1, exact).
    static func png(_ image: PixelBuffer) throws -> [UInt8] {
        try PNGEncoder(compressionLevel: 1).encode(image)
    }

    /// A fresh empty folder under the system's temporary folder.
    static func temporaryFolder(_ label: String) throws -> String {
        let path = NSTemporaryDirectory() + "imgtool-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The first differing pixel and how many differ, or `nil` when the buffers are equal.
    static func mismatch(_ expected: PixelBuffer, _ actual: PixelBuffer) -> String? {
        guard expected.width == actual.width, expected.height == actual.height else {
            return "size \(actual.width)x\(actual.height), expected \(expected.width)x\(expected.height)"
        }
        guard expected.depth == actual.depth else { return "depth \(actual.depth), expected \(expected.depth)" }
        var first: String?
        var count = 0
        for y in 0..<expected.height {
            for x in 0..<expected.width {
                let a = samples(expected, x, y)
                let b = samples(actual, x, y)
                if a != b {
                    count += 1
                    if first == nil { first = "(\(x), \(y)): expected \(a), got \(b)" }
                }
            }
        }
        return first.map { "\($0); \(count) pixels differ" }
    }

    /// The four samples of pixel (x, y) as `Int`s, at the buffer's depth.
    static func samples(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let base = (y * image.width + x) * 4
        switch image.samples {
        case .rgba8(let values): return values[base..<base + 4].map(Int.init)
        case .rgba16(let values): return values[base..<base + 4].map(Int.init)
        }
    }
}

/// Reference arithmetic in wide integers, written from the formulas in the documentation, not
/// from the implementation.
enum MergeReference {
    /// `p / q` rounded half up, for `p >= 0`, `q > 0`.
    static func roundHalfUp(_ p: Int, _ q: Int) -> Int { (2 * p + q) / (2 * q) }

    /// Straight-alpha Porter-Duff source-over of one pixel, samples in `0...m`.
    ///
    /// A fully transparent source leaves the destination as it is.
    static func over(_ source: [Int], _ destination: [Int], m: Int) -> [Int] {
        let sa = source[3]
        let da = destination[3]
        if sa == 0 { return destination }
        let alphaTimesM = sa * m + da * (m - sa)  // Ao * M
        let alpha = roundHalfUp(alphaTimesM, m)
        if alphaTimesM == 0 { return [0, 0, 0, 0] }
        let colour = (0..<3).map { c in roundHalfUp(source[c] * sa * m + destination[c] * da * (m - sa), alphaTimesM) }
        return colour + [alpha]
    }

    /// Opacity applied to an alpha: `q = round(opacity × M)`, `A' = ⌊(2·A·q + M) / (2·M)⌋`.
    static func faded(_ alpha: Int, opacity: Double, m: Int) -> Int {
        let q = Int((opacity * Double(m)).rounded())
        return roundHalfUp(alpha * q, m)
    }
}
