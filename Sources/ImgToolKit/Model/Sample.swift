/// A sample type of ``PixelBuffer``: `UInt8` (8 bits) or `UInt16` (16 bits).
///
/// Every pixel loop is written once, generic over `Sample`; the 8-bit or 16-bit choice is made
/// once, at the top, by switching on ``PixelBuffer/samples`` and calling the generic function
/// with the array found there. Inside the module the optimizer specializes each generic function
/// for both types (whole-module optimization in release builds), so the loops run as fast as
/// hand-written 8-bit and 16-bit copies.
protocol Sample: FixedWidthInteger, UnsignedInteger, Sendable {
    /// An unsigned integer wide enough for exact source-over: four times `max³` fits.
    associatedtype Wide: FixedWidthInteger & UnsignedInteger

    /// `values` as the samples of a ``PixelBuffer``.
    static func samples(_ values: [Self]) -> PixelBuffer.Samples

    /// The values of `samples` when they are of this type, else `nil`.
    static func values(of samples: PixelBuffer.Samples) -> [Self]?
}

extension Sample {
    /// `max` as a ``Wide`` value.
    static var wideMax: Wide { Wide(truncatingIfNeeded: max) }
}

extension UInt8: Sample {
    typealias Wide = UInt32  // 4 × 255³ < 2³²
    static func samples(_ values: [Self]) -> PixelBuffer.Samples { .rgba8(values) }
    static func values(of samples: PixelBuffer.Samples) -> [Self]? { samples.rgba8 }
}

extension UInt16: Sample {
    typealias Wide = UInt64  // 4 × 65535³ < 2⁵⁰
    static func samples(_ values: [Self]) -> PixelBuffer.Samples { .rgba16(values) }
    static func values(of samples: PixelBuffer.Samples) -> [Self]? { samples.rgba16 }
}

extension PixelBuffer.Samples {
    /// The 8-bit samples, or `nil`.
    var rgba8: [UInt8]? {
        if case .rgba8(let values) = self { return values }
        return nil
    }

    /// The 16-bit samples, or `nil`.
    var rgba16: [UInt16]? {
        if case .rgba16(let values) = self { return values }
        return nil
    }
}
