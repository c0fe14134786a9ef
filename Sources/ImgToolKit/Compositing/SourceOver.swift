/// Porter-Duff source-over for straight (non-premultiplied) alpha, exact to the last bit.
///
/// With source colour `Cs` and alpha `As`, destination `Cd` and `Ad`, all in `0...M`
/// (`M` = 255 or 65535), the real-valued result is
///
///     Ao = As + Ad (M - As) / M
///     Co = (Cs As M + Cd Ad (M - As)) / (As M + Ad (M - As))
///
/// and each is rounded half up to an integer. It is computed in 64-bit integers, so nothing is
/// lost to fixed-point shortcuts: an opaque source gives the source, a transparent source gives
/// the destination, and a result with alpha 0 is `(0, 0, 0, 0)`. This is the APNG specification's
/// `APNG_BLEND_OP_OVER` and what `imgtool merge` does.
public enum SourceOver {
    /// Blends one 8-bit source pixel over one destination pixel, in place.
    @inlinable
    public static func blend8(
        source: (r: UInt8, g: UInt8, b: UInt8, a: UInt8),
        over destination: inout (r: UInt8, g: UInt8, b: UInt8, a: UInt8)
    ) {
        let sa = UInt64(source.a)
        if sa == 255 {
            destination = source
            return
        }
        if sa == 0 { return }
        let da = UInt64(destination.a)
        let weightD = da * (255 - sa)  // destination weight, scaled by 255
        let den = sa * 255 + weightD  // output alpha, scaled by 255
        @inline(__always) func channel(_ s: UInt8, _ d: UInt8) -> UInt8 {
            UInt8(truncatingIfNeeded: (2 * (UInt64(s) * sa * 255 + UInt64(d) * weightD) + den) / (2 * den))
        }
        destination = (
            channel(source.r, destination.r), channel(source.g, destination.g), channel(source.b, destination.b),
            UInt8(truncatingIfNeeded: (2 * den + 255) / 510)
        )
    }

    /// Blends one 16-bit source pixel over one destination pixel, in place.
    @inlinable
    public static func blend16(
        source: (r: UInt16, g: UInt16, b: UInt16, a: UInt16),
        over destination: inout (r: UInt16, g: UInt16, b: UInt16, a: UInt16)
    ) {
        let sa = UInt64(source.a)
        if sa == 65535 {
            destination = source
            return
        }
        if sa == 0 { return }
        let da = UInt64(destination.a)
        let weightD = da * (65535 - sa)
        let den = sa * 65535 + weightD
        @inline(__always) func channel(_ s: UInt16, _ d: UInt16) -> UInt16 {
            UInt16(truncatingIfNeeded: (2 * (UInt64(s) * sa * 65535 + UInt64(d) * weightD) + den) / (2 * den))
        }
        destination = (
            channel(source.r, destination.r), channel(source.g, destination.g), channel(source.b, destination.b),
            UInt16(truncatingIfNeeded: (2 * den + 65535) / 131_070)
        )
    }

    /// Blends `count` 8-bit RGBA pixels from `source` over `destination`, in place.
    @inlinable
    public static func blendRow8(
        _ source: UnsafePointer<UInt8>, over destination: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        for i in 0..<count {
            let s = source + i * 4
            let alpha = s[3]
            if alpha == 0 { continue }
            let d = destination + i * 4
            if alpha == 255 {
                d.update(from: s, count: 4)
                continue
            }
            var pixel = (r: d[0], g: d[1], b: d[2], a: d[3])
            blend8(source: (s[0], s[1], s[2], alpha), over: &pixel)
            (d[0], d[1], d[2], d[3]) = pixel
        }
    }

    /// Blends `count` 16-bit RGBA pixels from `source` over `destination`, in place.
    @inlinable
    public static func blendRow16(
        _ source: UnsafePointer<UInt16>, over destination: UnsafeMutablePointer<UInt16>, count: Int
    ) {
        for i in 0..<count {
            let s = source + i * 4
            let alpha = s[3]
            if alpha == 0 { continue }
            let d = destination + i * 4
            if alpha == 65535 {
                d.update(from: s, count: 4)
                continue
            }
            var pixel = (r: d[0], g: d[1], b: d[2], a: d[3])
            blend16(source: (s[0], s[1], s[2], alpha), over: &pixel)
            (d[0], d[1], d[2], d[3]) = pixel
        }
    }
}
