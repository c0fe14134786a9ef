import Foundation

/// The sRGB transfer function (IEC 61966-2-1) as lookup tables, for resizing in linear light.
///
/// Decoding is exact per input value (one table for 8-bit samples, one for 16-bit). Encoding
/// looks up the linear value quantized to 1/65535, which is within 0.03 of the exact 8-bit
/// result and within 7 of the exact 16-bit one (near black, where the curve is steepest).
/// Tables are built on first use.
enum SRGBTransfer {
    /// sRGB-encoded `0...1` to linear `0...1`.
    static func decode(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// Linear `0...1` to sRGB-encoded `0...1`.
    static func encode(_ value: Double) -> Double {
        value <= 0.003_130_8 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
    }

    /// Linear value of each 8-bit sample, scaled to `0...255`.
    static let decode8: [Float] = (0...255).map { Float(decode(Double($0) / 255) * 255) }

    /// Linear value of each 16-bit sample, scaled to `0...65535`.
    static let decode16: [Float] = (0...65535).map { Float(decode(Double($0) / 65535) * 65535) }

    /// The sRGB value (`0...1`) of each linear value `i / 65535`.
    static let encode16: [Float] = (0...65535).map { Float(encode(Double($0) / 65535)) }
}
