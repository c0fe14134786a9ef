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

    @Test("the runner-up distance is the smallest to any colour but the nearest, equal to it on a tie")
    func nearestTwo() {
        var random = SeededRandom(seed: 21)
        func byte() -> Float { Float(random.next() % 256) }
        for count in [1, 2, 9, 256] {
            let colors = (0..<count).map { _ in OkLab(red: byte(), green: byte(), blue: byte()) }
            let points = (0..<500).map { _ in OkLab(red: byte(), green: byte(), blue: byte()) } + colors
            let search = OkLabNearest(colors)
            for simd in [true, false] {
                let found = search.nearestTwo(to: points, simd: simd)
                #expect(found.indices == search.nearest(to: points))
                for (slot, point) in points.enumerated() {
                    let distances = colors.map { point.distanceSquared(to: $0) }
                    let index = Int(found.indices[slot])
                    let others = distances.enumerated().filter { $0.offset != index }.map(\.element)
                    #expect(found.best[slot] == distances[index])
                    #expect(found.second[slot] == (others.min() ?? found.second[slot]))
                }
            }
        }
        // Two equal colours: the runner-up is as near as the nearest.
        let twice = OkLabNearest([OkLab(l: 0.5, a: 0, b: 0), OkLab(l: 0.5, a: 0, b: 0), OkLab(l: 0.9, a: 0, b: 0)])
        let tie = twice.nearestTwo(to: [OkLab(l: 0.4, a: 0, b: 0)])
        #expect(tie.indices == [0] && tie.best == tie.second)
    }

    @Test("k-means with bounds ends at the centres of a full search every iteration", arguments: [3, 64, 256])
    func boundedKMeansMatchesLloyd(count: Int) {
        var random = SeededRandom(seed: UInt64(count) + 100)
        func byte() -> Float { Float(random.next() % 256) }
        // Clustered points, as a frame's colours are, with weights.
        let seeds = (0..<12).map { _ in (byte(), byte(), byte()) }
        let points = (0..<3000).map { _ -> OkLab in
            let (r, g, b) = seeds[Int(random.next() % 12)]
            return OkLab(
                red: min(r + byte() / 16, 255), green: min(g + byte() / 16, 255), blue: min(b + byte() / 16, 255))
        }
        let weights = points.indices.map { _ in Float(1 + random.next() % 9) }
        let start = (0..<count).map { points[($0 * 7919) % points.count] }

        var bounded = start
        GIFQuantizer.refine(&bounded, points, weights, iterations: 8)
        // Lloyd's iterations with a full search each time, the rule the quantizer had before.
        var plain = start
        var assignment = [Int32](repeating: 0, count: points.count)
        for _ in 0..<8 {
            let nearest = OkLabNearest(plain).nearest(to: points)
            let moved = zip(assignment, nearest).filter { $0 != $1 }.count
            assignment = nearest
            var sums = [(Float, Float, Float, Float)](repeating: (0, 0, 0, 0), count: plain.count)
            for (position, point) in points.enumerated() {
                let w = weights[position]
                let index = Int(assignment[position])
                sums[index].0 += point.l * w
                sums[index].1 += point.a * w
                sums[index].2 += point.b * w
                sums[index].3 += w
            }
            for index in plain.indices where sums[index].3 > 0 {
                let w = sums[index].3
                plain[index] = OkLab(l: sums[index].0 / w, a: sums[index].1 / w, b: sums[index].2 / w)
            }
            if moved * 200 < points.count { break }
        }
        #expect(bounded == plain)
    }
}
