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
        "the pruned search answers as a full scan does, for palettes of 1 to 256 colours",
        arguments: [1, 2, 7, 64, 255, 256])
    func matchesAFullScan(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        func byte() -> Float { Float(random.next() % 256) }
        let colors = (0..<count).map { _ in OkLab(red: byte(), green: byte(), blue: byte()) }
        let search = OkLabNearest(colors)
        for _ in 0..<4000 {
            let point = OkLab(red: byte() + 0.5, green: byte(), blue: byte() + 0.25)
            let expected = scan(colors, point)
            #expect(search.nearest(to: point) == expected)
            // Started from any guess (k-means starts from a point's previous centre).
            #expect(search.nearest(to: point, guess: Int(random.next() % UInt64(count))) == expected)
        }
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
        for guess in colors.indices {
            #expect(search.nearest(to: grey, guess: guess) == 2)
        }
    }
}
