import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Source-over", .timeLimit(.minutes(5)))
struct SourceOverTests {
    /// The real-valued Porter-Duff formula, rounded half up, in rational arithmetic.
    static func reference(_ s: [Int], _ d: [Int], max m: Int) -> [Int] {
        let sa = s[3]
        let da = d[3]
        let den = sa * m + da * (m - sa)  // Ao * m * m
        if den == 0 { return [0, 0, 0, 0] }
        var out = (0..<3).map { c in
            let num = s[c] * sa * m + d[c] * da * (m - sa)
            return (2 * num + den) / (2 * den)
        }
        out.append((2 * den + m) / (2 * m))
        return out
    }

    @Test("8-bit blending equals the exact formula for every alpha pair")
    func everyAlphaPair8() {
        let colours: [(Int, Int)] = [(0, 255), (255, 0), (17, 200), (128, 127), (3, 4)]
        var failures = 0
        for sa in 0...255 {
            for da in 0...255 {
                for (sc, dc) in colours {
                    var d = (r: UInt8(dc), g: UInt8(sc), b: UInt8(dc / 2), a: UInt8(da))
                    let s = (r: UInt8(sc), g: UInt8(dc), b: UInt8(sc / 3), a: UInt8(sa))
                    let expected = Self.reference([sc, dc, sc / 3, sa], [dc, sc, dc / 2, da], max: 255)
                    SourceOver.blend8(source: s, over: &d)
                    var actual = [Int(d.r), Int(d.g), Int(d.b), Int(d.a)]
                    if sa == 0 { continue }  // the destination is kept as it is
                    if actual[3] == 0 { actual = [0, 0, 0, 0] }
                    if actual != expected {
                        failures += 1
                        if failures < 5 { Issue.record("sa=\(sa) da=\(da) s=\(sc) d=\(dc): \(actual) != \(expected)") }
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("16-bit blending equals the exact formula on a grid of alphas")
    func alphaGrid16() {
        let alphas = [0, 1, 2, 255, 256, 32767, 32768, 65279, 65534, 65535]
        for sa in alphas {
            for da in alphas where sa != 0 {
                let s = (r: UInt16(40000), g: UInt16(1), b: UInt16(65535), a: UInt16(sa))
                var d = (r: UInt16(3), g: UInt16(65535), b: UInt16(30000), a: UInt16(da))
                SourceOver.blend16(source: s, over: &d)
                let expected = Self.reference([40000, 1, 65535, sa], [3, 65535, 30000, da], max: 65535)
                #expect([Int(d.r), Int(d.g), Int(d.b), Int(d.a)] == expected, "sa=\(sa) da=\(da)")
            }
        }
    }

    @Test("hand-computed examples")
    func handComputed() {
        // Half-transparent red over opaque blue: (127.5 -> 128, 0, 127.5 -> 128, 255).
        var d = (r: UInt8(0), g: UInt8(0), b: UInt8(255), a: UInt8(255))
        SourceOver.blend8(source: (255, 0, 0, 128), over: &d)
        #expect([d.r, d.g, d.b, d.a] == [128, 0, 127, 255])
        // Half over half: alpha 128 + 128 * 127 / 255 = 191.75 -> 192.
        var e = (r: UInt8(0), g: UInt8(0), b: UInt8(255), a: UInt8(128))
        SourceOver.blend8(source: (255, 0, 0, 128), over: &e)
        #expect(e.a == 192)
    }

    @Test("drawing clips overlays at every offset from fully outside to fully inside")
    func clippingOffsets() {
        let overlay = TestImages.make8(width: 3, height: 2) { x, y in [UInt8(x + 1), UInt8(y + 1), 9, 255] }
        for oy in -3...5 {
            for ox in -4...6 {
                var canvas = PixelBuffer(width: 4, height: 3)
                canvas.draw(overlay, at: (ox, oy), blend: .over)
                for y in 0..<3 {
                    for x in 0..<4 {
                        let inside = (ox..<ox + 3).contains(x) && (oy..<oy + 2).contains(y)
                        let expected: [UInt8] = inside ? [UInt8(x - ox + 1), UInt8(y - oy + 1), 9, 255] : [0, 0, 0, 0]
                        #expect(canvas.pixel8(x: x, y: y) == expected, "offset \(ox),\(oy) pixel \(x),\(y)")
                    }
                }
            }
        }
    }
}
