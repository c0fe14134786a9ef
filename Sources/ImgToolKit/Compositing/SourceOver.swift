/// Porter-Duff source-over for straight (non-premultiplied) alpha, exact to the last bit.
///
/// With source colour `Cs` and alpha `As`, destination `Cd` and `Ad`, all in `0...M`
/// (`M` = 255 or 65535), the real-valued result is
///
///     Ao = As + Ad (M - As) / M
///     Co = (Cs As M + Cd Ad (M - As)) / (As M + Ad (M - As))
///
/// and each is rounded half up to an integer. It is computed in integers wide enough for every
/// product (32 bits for 8-bit samples, 64 bits for 16-bit samples), so nothing is lost to
/// fixed-point shortcuts: an opaque source gives the source, a transparent source gives the
/// destination, and a result with alpha 0 is `(0, 0, 0, 0)`. This is the APNG specification's
/// `APNG_BLEND_OP_OVER` and what `imgtool merge` does.
public enum SourceOver {
    /// Blends one 8-bit source pixel over one destination pixel, in place.
    public static func blend8(
        source: (r: UInt8, g: UInt8, b: UInt8, a: UInt8),
        over destination: inout (r: UInt8, g: UInt8, b: UInt8, a: UInt8)
    ) {
        blend(source: source, over: &destination)
    }

    /// Blends one 16-bit source pixel over one destination pixel, in place.
    public static func blend16(
        source: (r: UInt16, g: UInt16, b: UInt16, a: UInt16),
        over destination: inout (r: UInt16, g: UInt16, b: UInt16, a: UInt16)
    ) {
        blend(source: source, over: &destination)
    }

    /// Blends one source pixel over one destination pixel of the same depth, in place.
    @inline(__always)
    static func blend<S: Sample>(source: (r: S, g: S, b: S, a: S), over destination: inout (r: S, g: S, b: S, a: S)) {
        let m = S.wideMax
        let sa = S.Wide(source.a)
        if sa == m {
            destination = source
            return
        }
        if sa == 0 { return }
        let weightD = S.Wide(destination.a) * (m - sa)  // destination weight, scaled by M
        let den = sa * m + weightD  // output alpha, scaled by M
        @inline(__always) func channel(_ s: S, _ d: S) -> S {
            S(truncatingIfNeeded: (2 * (S.Wide(s) * sa * m + S.Wide(d) * weightD) + den) / (2 * den))
        }
        destination = (
            channel(source.r, destination.r), channel(source.g, destination.g), channel(source.b, destination.b),
            S(truncatingIfNeeded: (2 * den + m) / (2 * m))
        )
    }

    /// Blends `count` RGBA pixels from `source` over `destination`, in place, with each source
    /// alpha first scaled by the opacity level `level` (`0...M`; `M` leaves alpha as it is):
    /// `A' = ⌊(2·A·level + M) / (2·M)⌋`, as ``OverlayPlacement/scaledAlpha(_:level:maximum:)``.
    @inline(__always)
    static func blendRow<S: Sample>(
        _ source: UnsafePointer<S>, over destination: UnsafeMutablePointer<S>, count: Int, opacity level: S.Wide
    ) {
        let m = S.wideMax
        let faded = level != m
        for i in 0..<count {
            let s = source + i * 4
            var alpha = s[3]
            if faded { alpha = S(truncatingIfNeeded: (2 * S.Wide(alpha) * level + m) / (2 * m)) }
            if alpha == 0 { continue }
            let d = destination + i * 4
            if alpha == S.max {
                d.update(from: s, count: 4)
                continue
            }
            var pixel = (r: d[0], g: d[1], b: d[2], a: d[3])
            blend(source: (s[0], s[1], s[2], alpha), over: &pixel)
            (d[0], d[1], d[2], d[3]) = pixel
        }
    }
}
