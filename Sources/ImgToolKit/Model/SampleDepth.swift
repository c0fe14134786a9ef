/// Bits per sample of a ``PixelBuffer``.
public enum SampleDepth: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 8 bits per sample, stored as `UInt8`.
    case eight = 8
    /// 16 bits per sample, stored as `UInt16` in host byte order.
    case sixteen = 16
}

extension SampleDepth {
    /// Reduces a 16-bit sample to 8 bits, rounding to nearest: `(v * 255 + 32767) / 65535`.
    ///
    /// This equals libpng's `png_set_scale_16`, `(v * 255 + 32895) >> 16`, for every input.
    @inlinable
    public static func reduce(_ value: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt32(value) &* 255 &+ 32895) >> 16)
    }

    /// Widens an 8-bit sample to 16 bits exactly: `v * 257`.
    @inlinable
    public static func widen(_ value: UInt8) -> UInt16 {
        UInt16(value) &* 257
    }
}
