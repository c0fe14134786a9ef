import Foundation
import ImgToolKit

/// Small deterministic images and files for the merge and loader tests.
enum MergeFixtures {
    /// One pixel of one colour.
    static func solid(_ rgba: [UInt8], width: Int = 1, height: Int = 1) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba8: Array((0..<width * height).map { _ in rgba }.joined()))
    }

    /// The PNG encoding of `image` (level 1, exact).
    static func png(_ image: PixelBuffer) throws -> [UInt8] {
        try PNGEncoder(compressionLevel: 1).encode(image)
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
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
