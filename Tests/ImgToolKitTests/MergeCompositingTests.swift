import ImgToolKit
import TestSupport
import Testing

/// Exact values of `OverlayCompositor`: every alpha pair against a wide-integer reference,
/// 16-bit and mixed depths, opacity, clipping at every offset, and the nine gravities.
@Suite("Merge compositing", .timeLimit(.minutes(5)))
struct MergeCompositingTests {
    /// Colours tried for every (source alpha, destination alpha) pair.
    static let colourPairs: [(Int, Int)] = {
        let values = [0, 1, 77, 128, 255]
        return values.flatMap { s in values.map { d in (s, d) } }
    }()

    @Test("8-bit: every source alpha over every destination alpha", arguments: colourPairs)
    func everyAlphaPair8(colours: (Int, Int)) throws {
        // Given a 256x256 background whose alpha is its row and an overlay whose alpha is its column
        let (cs, cd) = colours
        var background = PixelBuffer(width: 256, height: 256)
        var overlay = PixelBuffer(width: 256, height: 256)
        background.withMutableRGBA8 { samples in
            for y in 0..<256 {
                for x in 0..<256 {
                    samples.replaceSubrange(
                        (y * 256 + x) * 4..<(y * 256 + x) * 4 + 4,
                        with: [UInt8(cd), UInt8(255 - cd), UInt8(cd / 2), UInt8(y)])
                }
            }
        }
        overlay.withMutableRGBA8 { samples in
            for y in 0..<256 {
                for x in 0..<256 {
                    samples.replaceSubrange(
                        (y * 256 + x) * 4..<(y * 256 + x) * 4 + 4,
                        with: [UInt8(cs), UInt8(cs / 3), UInt8(255 - cs), UInt8(x)])
                }
            }
        }
        // When it is merged at the top-left corner
        let placement = try OverlayPlacement(gravity: .northWest)
        let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
        // Then every pixel is the rounded Porter-Duff result
        var expected = PixelBuffer(width: 256, height: 256)
        expected.withMutableRGBA8 { samples in
            for y in 0..<256 {
                for x in 0..<256 {
                    let out = MergeReference.over(
                        pixelSamples(overlay, x, y), pixelSamples(background, x, y), m: 255)
                    samples.replaceSubrange((y * 256 + x) * 4..<(y * 256 + x) * 4 + 4, with: out.map { UInt8($0) })
                }
            }
        }
        #expect(firstDifference(expected, result) == nil, "colours \(cs) over \(cd)")
    }

    @Test("Hand-computed 8-bit values")
    func handComputed() throws {
        // 50% red over 50% blue: Ao = 128 + 128*127/255 = 191.75 -> 192;
        // R = 255*128*255 / (128*255 + 128*127) = 8323200 / 48896 = 170.22 -> 170, B = 0*... + 255*128*127/48896 = 84.78 -> 85
        let result = OverlayCompositor.composite(
            [MergeFixtures.solid([255, 0, 0, 128])], onto: MergeFixtures.solid([0, 0, 255, 128]), placement: .centered)
        #expect(result.pixel8(x: 0, y: 0) == [170, 0, 85, 192])
        // Opaque overlay replaces; transparent overlay keeps the background.
        #expect(
            OverlayCompositor.composite(
                [MergeFixtures.solid([1, 2, 3, 255])], onto: MergeFixtures.solid([9, 9, 9, 9]), placement: .centered
            ).pixel8(x: 0, y: 0) == [1, 2, 3, 255])
        #expect(
            OverlayCompositor.composite(
                [MergeFixtures.solid([1, 2, 3, 0])], onto: MergeFixtures.solid([9, 9, 9, 9]), placement: .centered
            ).pixel8(x: 0, y: 0) == [9, 9, 9, 9])
        // Over a transparent background the overlay's straight colour survives.
        #expect(
            OverlayCompositor.composite(
                [MergeFixtures.solid([10, 20, 30, 40])], onto: MergeFixtures.solid([0, 0, 0, 0]), placement: .centered
            ).pixel8(x: 0, y: 0) == [10, 20, 30, 40])
    }

    @Test("16-bit: alpha pairs from a small domain against the reference")
    func alphaPairs16() throws {
        var generator = SeededRandom(seed: 16)
        var alphas = [0, 1, 2, 255, 256, 257, 32767, 32768, 65278, 65534, 65535]
        alphas += (0..<53).map { _ in Int.random(in: 0...65535, using: &generator) }
        let colours = [0, 1, 257, 32768, 65534, 65535]
        let n = alphas.count
        for cs in colours {
            for cd in colours {
                var background = PixelBuffer(width: n, height: n, depth: .sixteen)
                var overlay = PixelBuffer(width: n, height: n, depth: .sixteen)
                background.withMutableRGBA16 { s in
                    for y in 0..<n {
                        for x in 0..<n {
                            s.replaceSubrange(
                                (y * n + x) * 4..<(y * n + x) * 4 + 4,
                                with: [UInt16(cd), UInt16(65535 - cd), 7, UInt16(alphas[y])])
                        }
                    }
                }
                overlay.withMutableRGBA16 { s in
                    for y in 0..<n {
                        for x in 0..<n {
                            s.replaceSubrange(
                                (y * n + x) * 4..<(y * n + x) * 4 + 4,
                                with: [UInt16(cs), 3, UInt16(65535 - cs), UInt16(alphas[x])])
                        }
                    }
                }
                let result = OverlayCompositor.composite(
                    [overlay], onto: background, placement: try OverlayPlacement(gravity: .northWest))
                #expect(result.depth == .sixteen)
                var expected = PixelBuffer(width: n, height: n, depth: .sixteen)
                expected.withMutableRGBA16 { s in
                    for y in 0..<n {
                        for x in 0..<n {
                            let out = MergeReference.over(
                                pixelSamples(overlay, x, y), pixelSamples(background, x, y), m: 65535)
                            s.replaceSubrange((y * n + x) * 4..<(y * n + x) * 4 + 4, with: out.map { UInt16($0) })
                        }
                    }
                }
                #expect(firstDifference(expected, result) == nil, "colours \(cs) over \(cd)")
            }
        }
    }

    @Test("A 16-bit input makes the merge 16-bit; the 8-bit side is widened by 257")
    func mixedDepths() throws {
        let background = TestImages.noise8(width: 9, height: 7, seed: 1)
        let overlay = TestImages.noise16(width: 5, height: 4, seed: 2)
        let placement = try OverlayPlacement(gravity: .southEast, offsetX: -1, offsetY: 0)
        let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
        #expect(result.depth == .sixteen)
        let wide = background.converted(to: .sixteen)
        for y in 0..<7 {
            for x in 0..<9 {
                let ox = x - 3, oy = y - 3  // southeast: (9-5, 7-4) = (4, 3), offset -1 -> (3, 3)
                var expected = pixelSamples(wide, x, y)
                if (0..<5).contains(ox), (0..<4).contains(oy) {
                    expected = MergeReference.over(pixelSamples(overlay, ox, oy), expected, m: 65535)
                }
                #expect(pixelSamples(result, x, y) == expected, "pixel \(x),\(y)")
            }
        }
        // And the other way round: a 16-bit background with an 8-bit overlay.
        let reversed = OverlayCompositor.composite(
            [background], onto: TestImages.noise16(width: 3, height: 3, seed: 3), placement: .centered)
        #expect(reversed.depth == .sixteen)
    }

    @Test("Opacity scales alpha exactly, in 8 and 16 bits", arguments: [0.0, 0.1, 0.25, 0.5, 0.7, 0.999, 1.0])
    func opacity(opacity: Double) throws {
        // Given a row with every 8-bit alpha over a half-transparent background
        var overlay = PixelBuffer(width: 256, height: 1)
        overlay.withMutableRGBA8 { s in
            for a in 0..<256 { s.replaceSubrange(a * 4..<a * 4 + 4, with: [200, 100, UInt8(a / 2), UInt8(a)]) }
        }
        let background = MergeFixtures.solid([10, 250, 90, 128], width: 256)
        let placement = try OverlayPlacement(gravity: .west, opacity: opacity)
        let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
        for a in 0..<256 {
            let faded = [200, 100, a / 2, MergeReference.faded(a, opacity: opacity, m: 255)]
            #expect(
                pixelSamples(result, a, 0) == MergeReference.over(faded, [10, 250, 90, 128], m: 255),
                "alpha \(a)")
        }
        // 16-bit
        let overlay16 = TestImages.noise16(width: 64, height: 2, seed: 9)
        let background16 = TestImages.noise16(width: 64, height: 2, seed: 10)
        let result16 = OverlayCompositor.composite([overlay16], onto: background16, placement: placement)
        for y in 0..<2 {
            for x in 0..<64 {
                var source = pixelSamples(overlay16, x, y)
                source[3] = MergeReference.faded(source[3], opacity: opacity, m: 65535)
                #expect(
                    pixelSamples(result16, x, y)
                        == MergeReference.over(source, pixelSamples(background16, x, y), m: 65535))
            }
        }
    }

    @Test("Opacity outside 0...1 is refused")
    func opacityRange() {
        for bad in [-0.01, 1.01, Double.nan, .infinity] {
            #expect(throws: ImgToolError.self) { try OverlayPlacement(opacity: bad) }
        }
        #expect(throws: Never.self) { try OverlayPlacement(opacity: 0) }
    }

    @Test("Every offset from fully outside to fully inside clips exactly")
    func clippingAtEveryOffset() throws {
        let background = TestImages.noise8(width: 5, height: 4, seed: 4)
        let overlay = TestImages.noise8(width: 3, height: 2, seed: 5)
        for dy in -3...5 {
            for dx in -4...6 {
                let placement = try OverlayPlacement(gravity: .northWest, offsetX: dx, offsetY: dy, opacity: 0.6)
                let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
                #expect(result.width == 5 && result.height == 4)
                for y in 0..<4 {
                    for x in 0..<5 {
                        var expected = pixelSamples(background, x, y)
                        if (0..<3).contains(x - dx), (0..<2).contains(y - dy) {
                            var source = pixelSamples(overlay, x - dx, y - dy)
                            source[3] = MergeReference.faded(source[3], opacity: 0.6, m: 255)
                            expected = MergeReference.over(source, expected, m: 255)
                        }
                        #expect(pixelSamples(result, x, y) == expected, "offset \(dx),\(dy) pixel \(x),\(y)")
                    }
                }
            }
        }
    }

    /// Canvas 7x5: overlay 2x3 (smaller) and 9x8 (larger than the canvas).
    static let gravityOrigins: [(Gravity, small: (Int, Int), large: (Int, Int))] = [
        (.northWest, (0, 0), (0, 0)), (.north, (2, 0), (-1, 0)), (.northEast, (5, 0), (-2, 0)),
        (.west, (0, 1), (0, -2)), (.center, (2, 1), (-1, -2)), (.east, (5, 1), (-2, -2)),
        (.southWest, (0, 2), (0, -3)), (.south, (2, 2), (-1, -3)), (.southEast, (5, 2), (-2, -3)),
    ]

    @Test("Every gravity puts the overlay where the table says", arguments: gravityOrigins.indices)
    func gravity(row: Int) throws {
        let (gravity, small, large) = Self.gravityOrigins[row]
        #expect(gravity.origin(overlay: (2, 3), canvas: (7, 5)) == small)
        #expect(gravity.origin(overlay: (9, 8), canvas: (7, 5)) == large)
        // And the composite agrees: an opaque overlay shows exactly where it was placed.
        let background = MergeFixtures.solid([0, 0, 0, 255], width: 7, height: 5)
        for (size, origin) in [((2, 3), small), ((9, 8), large)] {
            let overlay = MergeFixtures.solid([255, 255, 255, 255], width: size.0, height: size.1)
            let placement = try OverlayPlacement(gravity: gravity, offsetX: 1, offsetY: -1)
            let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
            for y in 0..<5 {
                for x in 0..<7 {
                    let inside =
                        (origin.0 + 1..<origin.0 + 1 + size.0).contains(x)
                        && (origin.1 - 1..<origin.1 - 1 + size.1).contains(y)
                    #expect(result.pixel8(x: x, y: y)[0] == (inside ? 255 : 0), "\(gravity) \(size) pixel \(x),\(y)")
                }
            }
        }
    }

    @Test("Several overlays are applied in order")
    func order() throws {
        let background = MergeFixtures.solid([0, 0, 0, 255], width: 2, height: 1)
        let red = MergeFixtures.solid([255, 0, 0, 255])
        let halfBlue = MergeFixtures.solid([0, 0, 255, 128])
        let result = OverlayCompositor.composite(
            [red, halfBlue], onto: background, placement: try OverlayPlacement(gravity: .west))
        #expect(
            result.pixel8(x: 0, y: 0)
                == MergeReference.over([0, 0, 255, 128], [255, 0, 0, 255], m: 255).map(UInt8.init))
        #expect(result.pixel8(x: 1, y: 0) == [0, 0, 0, 255])
    }
}
