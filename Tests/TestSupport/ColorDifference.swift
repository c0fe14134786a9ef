import Foundation
import ImgToolKit

/// CIE colour difference for tests: 8-bit sRGB to CIELAB (D65) and CIEDE2000 between them.
public enum ColorDifference {
    /// The CIELAB coordinates (D65 white) of an 8-bit sRGB colour.
    public static func lab(_ r: Int, _ g: Int, _ b: Int) -> (l: Double, a: Double, b: Double) {
        func linear(_ v: Int) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (rl, gl, bl) = (linear(r), linear(g), linear(b))
        let x = (0.4124564 * rl + 0.3575761 * gl + 0.1804375 * bl) / 0.95047
        let y = 0.2126729 * rl + 0.7151522 * gl + 0.0721750 * bl
        let z = (0.0193339 * rl + 0.1191920 * gl + 0.9503041 * bl) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// CIEDE2000 between two CIELAB colours.
    public static func deltaE2000(
        _ one: (l: Double, a: Double, b: Double), _ two: (l: Double, a: Double, b: Double)
    ) -> Double {
        let c1 = hypot(one.a, one.b)
        let c2 = hypot(two.a, two.b)
        let cMean = (c1 + c2) / 2
        let g = 0.5 * (1 - sqrt(pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7))))
        let a1 = one.a * (1 + g)
        let a2 = two.a * (1 + g)
        let cp1 = hypot(a1, one.b)
        let cp2 = hypot(a2, two.b)
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(one.b, a1)
        let h2 = hue(two.b, a2)
        let dL = two.l - one.l
        let dC = cp2 - cp1
        var dh = 0.0
        if cp1 * cp2 != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * sqrt(cp1 * cp2) * sin(dh * .pi / 360)
        let lMean = (one.l + two.l) / 2
        let cpMean = (cp1 + cp2) / 2
        var hMean = h1 + h2
        if cp1 * cp2 != 0 {
            if abs(h1 - h2) > 180 { hMean += hMean < 360 ? 360 : -360 }
            hMean /= 2
        }
        let t =
            1 - 0.17 * cos((hMean - 30) * .pi / 180) + 0.24 * cos(2 * hMean * .pi / 180)
            + 0.32 * cos((3 * hMean + 6) * .pi / 180) - 0.20 * cos((4 * hMean - 63) * .pi / 180)
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let rc = 2 * sqrt(pow(cpMean, 7) / (pow(cpMean, 7) + pow(25, 7)))
        let sl = 1 + 0.015 * pow(lMean - 50, 2) / sqrt(20 + pow(lMean - 50, 2))
        let sc = 1 + 0.045 * cpMean
        let sh = 1 + 0.015 * cpMean * t
        let rt = -sin(2 * dTheta * .pi / 180) * rc
        return sqrt(
            pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh))
    }

    /// The mean and largest CIEDE2000 between two 8-bit images of one size, over the pixels
    /// whose alpha is not 0 in `expected` (is 255, with `opaqueOnly`).
    public static func compare(_ expected: PixelBuffer, _ actual: PixelBuffer, opaqueOnly: Bool = false) -> (
        mean: Double, max: Double
    ) {
        precondition(expected.width == actual.width && expected.height == actual.height, "sizes differ")
        var total = 0.0
        var largest = 0.0
        var count = 0
        for y in 0..<expected.height {
            for x in 0..<expected.width {
                let e = pixelSamples(expected, x, y)
                let a = pixelSamples(actual, x, y)
                guard e[3] != 0, !opaqueOnly || e[3] == 255 else { continue }
                let difference = deltaE2000(lab(e[0], e[1], e[2]), lab(a[0], a[1], a[2]))
                total += difference
                largest = max(largest, difference)
                count += 1
            }
        }
        return (count == 0 ? 0 : total / Double(count), largest)
    }
}
