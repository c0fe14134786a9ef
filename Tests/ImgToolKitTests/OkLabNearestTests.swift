import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Nearest OkLab colour", .timeLimit(.minutes(5)))
struct OkLabNearestTests {
    /// A full scan: the smallest squared distance, the lowest index among equals.
    private func scan(_ colors: [OkLab], _ point: OkLab) -> Int {
        var best = 0
        var bestDistance = Float.infinity
        for (index, color) in colors.enumerated() where point.distanceSquared(to: color) < bestDistance {
            bestDistance = point.distanceSquared(to: color)
            best = index
        }
        return best
    }

    @Test(
        "the search answers as a full scan does, for palettes of 1 to 256 colours",
        arguments: [1, 2, 7, 64, 255, 256])
    func matchesAFullScan(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        func byte() -> Float { Float(random.next() % 256) }
        let colors = (0..<count).map { _ in OkLab(red: byte(), green: byte(), blue: byte()) }
        let search = OkLabNearest(colors)
        var points: [OkLab] = []
        for _ in 0..<4000 {
            let point = OkLab(red: byte() + 0.5, green: byte(), blue: byte() + 0.25)
            points.append(point)
            #expect(search.nearest(to: point) == scan(colors, point))
        }
        // Palette colours themselves, and points between two of them (distance ties).
        for (first, second) in zip(colors, colors.reversed()) {
            points.append(first)
            points.append(OkLab(l: (first.l + second.l) / 2, a: (first.a + second.a) / 2, b: (first.b + second.b) / 2))
        }
        let expected = points.map { Int32(scan(colors, $0)) }
        #expect(search.nearest(to: points) == expected)
        #expect(search.nearest(to: points, simd: false) == expected)
    }

    @Test("equal distances go to the lowest index, as in a full scan")
    func ties() {
        // Repeated colours and colours of equal lightness around the query.
        let grey = OkLab(l: 0.5, a: 0, b: 0)
        let colors = [
            OkLab(l: 0.9, a: 0, b: 0), OkLab(l: 0.5, a: 0.1, b: 0), grey, OkLab(l: 0.5, a: -0.1, b: 0), grey,
            OkLab(l: 0.4, a: 0, b: 0), OkLab(l: 0.6, a: 0, b: 0),
        ]
        let search = OkLabNearest(colors)
        #expect(search.nearest(to: grey) == 2)
        #expect(search.nearest(to: OkLab(l: 0.5, a: 0, b: 0.1)) == 2)
        #expect(search.nearest(to: OkLab(l: 0.55, a: 0, b: 0)) == scan(colors, OkLab(l: 0.55, a: 0, b: 0)))
        #expect(OkLabNearest([]).nearest(to: grey) == 0)
        #expect(OkLabNearest([]).nearest(to: [grey, grey]) == [0, 0])
        // Many colours of one lightness, in several blocks: the tie is settled across blocks.
        let ring = (0..<40).map { OkLab(l: 0.5, a: $0 % 2 == 0 ? 0.1 : -0.1, b: 0) }
        #expect(OkLabNearest(ring).nearest(to: grey) == 0)
        #expect(OkLabNearest(ring).nearest(to: [grey], simd: false) == [0])
        #expect(OkLabNearest(ring.reversed()).nearest(to: OkLab(l: 0.5, a: -0.2, b: 0)) == 0)
        // Points searched two at a time, and an odd one left at the end.
        let mixed = [
            grey, OkLab(l: 0.5, a: -0.2, b: 0), grey, OkLab(l: 0.5, a: 0.3, b: 0), OkLab(l: 0.5, a: -0.2, b: 0),
        ]
        #expect(OkLabNearest(ring).nearest(to: mixed) == [0, 1, 0, 0, 1])
        #expect(OkLabNearest(ring).nearest(to: mixed, simd: false) == [0, 1, 0, 0, 1])
    }

    @Test("cube roots are within one unit in the last place of the exact root, and exact for cubes")
    func cubeRoots() {
        var random = SeededRandom(seed: 3)
        for step in 0..<200_000 {
            // Every binade the colour work meets, and the sums of products OkLab takes roots of.
            let x = step < 100_000 ? Float(step) / 100_000 : Float(bitPattern: UInt32(random.next() % 0x3F80_0000))
            let exact = Float(cbrt(Double(x)))
            let root = OkLab.cubeRoot(x)
            #expect(abs(root - exact) <= exact.ulp, "cube root of \(x): \(root), not \(exact)")
            if abs(root - exact) > exact.ulp { break }
        }
        for n in 1...40 { #expect(OkLab.cubeRoot(Float(n * n * n)) == Float(n)) }
        #expect(OkLab.cubeRoot(0) == 0)
        #expect(OkLab.cubeRoot(1) == 1)
        #expect(OkLab.cubeRoot(-8) == -2)
        #expect(OkLab.cubeRoot(.infinity) == .infinity)
        #expect(OkLab.cubeRoot(.nan).isNaN)
    }

    @Test("three cube roots at once are each cubeRoot's to the bit, in and out of its fast range")
    func cubeRootsSideBySide() {
        var random = SeededRandom(seed: 5)
        func check(_ x: SIMD4<Float>) -> Bool {
            let roots = OkLab.cubeRoots(x)
            for lane in 0..<3 where roots[lane].bitPattern != OkLab.cubeRoot(x[lane]).bitPattern {
                Issue.record("lane \(lane) of \(x): \(roots[lane]), not \(OkLab.cubeRoot(x[lane]))")
                return false
            }
            return true
        }
        for _ in 0..<100_000 {
            let lanes = (0..<4).map { _ in Float(bitPattern: UInt32(random.next() % 0x3F80_0000)) }
            guard check(SIMD4(lanes[0], lanes[1], lanes[2], lanes[3])) else { return }
        }
        for x in [
            SIMD4<Float>(0, 0.5, 1, 0), SIMD4(-8, 27, 1e-35, 0), SIMD4(.infinity, 1, 1, 1), SIMD4(.nan, 8, 64, 0),
        ] {
            _ = check(x)
        }
        // Every 8-bit sRGB grey and primary through the OkLab conversion that uses them.
        for level in 0...255 {
            let v = OkLab.toLinear(Float(level))
            for (r, g, b) in [(v, v, v), (v, 0, 0), (0, v, 0), (0, 0, v)] {
                let l = OkLab.cubeRoot(0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b)
                let m = OkLab.cubeRoot(0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b)
                let s = OkLab.cubeRoot(0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b)
                let color = OkLab(linearRed: r, green: g, blue: b)
                #expect(color.l == 0.210_454_255_3 * l + 0.793_617_785_0 * m - 0.004_072_046_8 * s)
                #expect(color.a == 1.977_998_495_1 * l - 2.428_592_205_0 * m + 0.450_593_709_9 * s)
                #expect(color.b == 0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766_0 * s)
            }
        }
    }
}
