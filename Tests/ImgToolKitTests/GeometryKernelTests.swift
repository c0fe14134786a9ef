import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Geometry kernels: turns, mirrors, crop, pad, any-angle rotation", .timeLimit(.minutes(5)))
struct GeometryKernelTests {
    /// A `width` x `height` image at `depth` whose pixels come from `pixel(x, y)`.
    private func image(width: Int, height: Int, depth: SampleDepth, _ pixel: (Int, Int) -> [Int]) -> PixelBuffer {
        switch depth {
        case .eight: TestImages.make8(width: width, height: height) { pixel($0, $1).map { UInt8($0) } }
        case .sixteen: TestImages.make16(width: width, height: height) { pixel($0, $1).map { UInt16($0) } }
        }
    }

    private func noise(width: Int, height: Int, depth: SampleDepth, seed: UInt64) -> PixelBuffer {
        switch depth {
        case .eight: TestImages.noise8(width: width, height: height, seed: seed)
        case .sixteen: TestImages.noise16(width: width, height: height, seed: seed)
        }
    }

    /// One clockwise quarter turn, by its definition: pixel (x, y) goes to (h - 1 - y, x).
    private func referenceQuarterTurn(_ source: PixelBuffer) -> PixelBuffer {
        image(width: source.height, height: source.width, depth: source.depth) { x, y in
            pixelSamples(source, y, source.height - 1 - x)
        }
    }

    private static let depths: [SampleDepth] = [.eight, .sixteen]
    private static let metadata = ImageMetadata(format: .png, bitDepth: 16, colorType: .rgba)

    @Test(
        "quarter turns move every pixel as turning one step at a time does", arguments: [1, 2, 3, 4, -1, 5, -6], depths)
    func quarterTurns(turns: Int, depth: SampleDepth) {
        // Given a non-square noise image, larger than a 32x32 tile.
        var source = noise(width: 37, height: 70, depth: depth, seed: UInt64(turns + 10))
        source.metadata = Self.metadata
        var expected = source
        for _ in 0..<((turns % 4 + 4) % 4) { expected = referenceQuarterTurn(expected) }
        let turned = source.rotated(quarterTurns: turns)
        #expect(firstDifference(expected, turned) == nil)
        #expect(turned.metadata == Self.metadata)
    }

    @Test("four turns, or a turn and its inverse, give the image back", arguments: depths)
    func turnsComposeToIdentity(depth: SampleDepth) {
        let source = noise(width: 5, height: 3, depth: depth, seed: 1)
        let four = source.rotated(quarterTurns: 1).rotated(quarterTurns: 1).rotated(quarterTurns: 1)
            .rotated(quarterTurns: 1)
        #expect(firstDifference(source, four) == nil)
        #expect(firstDifference(source, source.rotated(quarterTurns: 3).rotated(quarterTurns: -3)) == nil)
        #expect(firstDifference(source.rotated(quarterTurns: 2), source.flipped().flopped()) == nil)
    }

    @Test("flip mirrors top to bottom and flop left to right", arguments: depths)
    func mirrors(depth: SampleDepth) {
        var source = noise(width: 41, height: 6, depth: depth, seed: 2)
        source.metadata = Self.metadata
        let flipped = image(width: 41, height: 6, depth: depth) { x, y in pixelSamples(source, x, 5 - y) }
        let flopped = image(width: 41, height: 6, depth: depth) { x, y in pixelSamples(source, 40 - x, y) }
        #expect(firstDifference(flipped, source.flipped()) == nil)
        #expect(firstDifference(flopped, source.flopped()) == nil)
        #expect(firstDifference(source, source.flipped().flipped()) == nil)
        #expect(source.flipped().metadata == Self.metadata && source.flopped().metadata == Self.metadata)
    }

    /// `cropped(to:)` is `PixelBuffer+Regions.swift`'s (it clips the region to the image).
    @Test("crop copies the region's pixels exactly", arguments: depths)
    func crop(depth: SampleDepth) {
        let source = noise(width: 9, height: 7, depth: depth, seed: 3)
        let region = FrameRegion(x: 2, y: 1, width: 6, height: 5)
        let expected = image(width: 6, height: 5, depth: depth) { x, y in pixelSamples(source, x + 2, y + 1) }
        let cropped = source.cropped(to: region)
        #expect(firstDifference(expected, cropped) == nil)
        #expect(firstDifference(source, source.cropped(to: FrameRegion(x: 0, y: 0, width: 9, height: 7))) == nil)
        #expect(source.cropped(to: FrameRegion(x: 9, y: 7, width: 0, height: 0)).pixelCount == 0)
    }

    @Test("pad surrounds an exact copy with the colour, or with transparent", arguments: depths)
    func pad(depth: SampleDepth) {
        var source = noise(width: 4, height: 3, depth: depth, seed: 4)
        source.metadata = Self.metadata
        let scale = depth == .eight ? 1 : 257
        for color in [RGBAColor(red: 10, green: 20, blue: 30, alpha: 40), nil] {
            let fill = color.map { [$0.red, $0.green, $0.blue, $0.alpha].map { Int($0) * scale } } ?? [0, 0, 0, 0]
            let expected = image(width: 4 + 5 + 2, height: 3 + 1 + 3, depth: depth) { x, y in
                (5..<9).contains(x) && (1..<4).contains(y) ? pixelSamples(source, x - 5, y - 1) : fill
            }
            let padded = source.padded(top: 1, right: 2, bottom: 3, left: 5, color: color)
            #expect(firstDifference(expected, padded) == nil)
            #expect(padded.metadata == Self.metadata)
        }
        #expect(firstDifference(source, source.padded(top: 0, right: 0, bottom: 0, left: 0, color: .white)) == nil)
    }

    // MARK: - Any angle

    /// The documented any-angle rotation in `Double`, straight RGBA, unrounded: for each output
    /// pixel, the source point under its centre, blended bilinearly from premultiplied taps, with
    /// taps outside the source taking `background`.
    private func referenceRotation(_ source: PixelBuffer, degrees: Double, background: RGBAColor?)
        -> (width: Int, height: Int, pixels: [[Double]])
    {
        var reduced = degrees.truncatingRemainder(dividingBy: 360)
        if reduced < 0 { reduced += 360 }
        let theta = reduced * Double.pi / 180
        let (w, h) = (Double(source.width), Double(source.height))
        let outWidth = Int((abs(w * cos(theta)) + abs(h * sin(theta)) - 1e-9).rounded(.up))
        let outHeight = Int((abs(w * sin(theta)) + abs(h * cos(theta)) - 1e-9).rounded(.up))
        let scale = source.depth == .eight ? 1.0 : 257.0
        let color = background ?? RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
        let outside = [color.red, color.green, color.blue, color.alpha].map { Double($0) * scale }
        var pixels: [[Double]] = []
        for j in 0..<outHeight {
            for i in 0..<outWidth {
                let x = Double(i) + 0.5 - Double(outWidth) / 2
                let y = Double(j) + 0.5 - Double(outHeight) / 2
                // Turning the output point back (counter-clockwise) onto the source.
                let sourceX = x * cos(theta) + y * sin(theta) + w / 2
                let sourceY = -x * sin(theta) + y * cos(theta) + h / 2
                let (u, v) = (sourceX - 0.5, sourceY - 0.5)
                let (left, top) = (Int(floor(u)), Int(floor(v)))
                var premultiplied = [0.0, 0.0, 0.0]
                var alpha = 0.0
                for (tapX, tapY) in [(left, top), (left + 1, top), (left, top + 1), (left + 1, top + 1)] {
                    let weight = (1 - abs(u - Double(tapX))) * (1 - abs(v - Double(tapY)))
                    let inside = tapX >= 0 && tapY >= 0 && tapX < source.width && tapY < source.height
                    let tap = inside ? pixelSamples(source, tapX, tapY).map(Double.init) : outside
                    alpha += weight * tap[3]
                    for channel in 0..<3 { premultiplied[channel] += weight * tap[3] * tap[channel] }
                }
                pixels.append(premultiplied.map { alpha > 0 ? $0 / alpha : 0 } + [alpha])
            }
        }
        return (outWidth, outHeight, pixels)
    }

    @Test(
        "any-angle rotation is within 1 level of a Double premultiplied bilinear reference",
        arguments: [30.0, -17.5, 123.4, 721.0], depths)
    func anyAngleMatchesReference(degrees: Double, depth: SampleDepth) {
        var source = noise(width: 23, height: 14, depth: depth, seed: UInt64(degrees.magnitude * 10))
        source.metadata = Self.metadata
        for background in [nil, RGBAColor(red: 250, green: 10, blue: 128, alpha: 200)] {
            let reference = referenceRotation(source, degrees: degrees, background: background)
            let rotated = source.rotated(degrees: degrees, background: background)
            #expect(rotated.width == reference.width && rotated.height == reference.height)
            #expect(rotated.metadata == Self.metadata)
            guard rotated.width == reference.width && rotated.height == reference.height else { return }
            var worst = 0.0
            var first: String?
            for y in 0..<rotated.height {
                for x in 0..<rotated.width {
                    let actual = pixelSamples(rotated, x, y).map(Double.init)
                    let expected = reference.pixels[y * rotated.width + x]
                    // Colour is undefined, and written 0, where alpha rounds to 0.
                    let channels = actual[3] == 0 ? [3] : [0, 1, 2, 3]
                    if actual[3] == 0 { #expect(actual == [0, 0, 0, 0]) }
                    for channel in channels where abs(actual[channel] - expected[channel]) > worst {
                        worst = abs(actual[channel] - expected[channel])
                        if worst > 1, first == nil { first = "(\(x),\(y)): expected \(expected), actual \(actual)" }
                    }
                }
            }
            #expect(worst <= 1, "\(first ?? "")")
        }
    }

    @Test("the canvas grows to the rotated bounding box")
    func canvasSize() {
        let source = PixelBuffer(width: 100, height: 50)
        let thirty = source.rotated(degrees: 30, background: nil)
        #expect(thirty.width == 112 && thirty.height == 94)  // ceil(86.6 + 25), ceil(50 + 43.3)
        let fortyFive = PixelBuffer(width: 10, height: 10).rotated(degrees: -45, background: nil)
        #expect(fortyFive.width == 15 && fortyFive.height == 15)  // ceil(14.14)
    }

    @Test("multiples of 90 degrees are exactly the quarter turns", arguments: depths)
    func rightAngles(depth: SampleDepth) {
        var source = noise(width: 7, height: 4, depth: depth, seed: 5)
        source.metadata = Self.metadata
        // 9e20 degrees is 2.5e18 whole turns.
        for (degrees, turns) in [(0.0, 0), (90, 1), (180, 2), (270, 3), (-90, 3), (450, 1), (-360, 0), (9e20, 0)] {
            let rotated = source.rotated(degrees: degrees, background: .white)
            #expect(firstDifference(source.rotated(quarterTurns: turns), rotated) == nil, "\(degrees) degrees")
            #expect(rotated.metadata == Self.metadata)
        }
    }

    @Test("the background fills the corners; transparent when nil", arguments: depths)
    func backgroundInCorners(depth: SampleDepth) {
        let source = image(width: 20, height: 10, depth: depth) { _, _ in
            depth == .eight ? [0, 0, 255, 255] : [0, 0, 65535, 65535]
        }
        let scale = depth == .eight ? 1 : 257
        let cases: [(RGBAColor?, [Int])] = [
            (RGBAColor(red: 10, green: 200, blue: 30), [10, 200, 30, 255].map { $0 * scale }),
            (RGBAColor(red: 1, green: 2, blue: 3, alpha: 4), [1, 2, 3, 4].map { $0 * scale }),
            (nil, [0, 0, 0, 0]), (RGBAColor(red: 9, green: 9, blue: 9, alpha: 0), [0, 0, 0, 0]),
        ]
        for (background, expected) in cases {
            let rotated = source.rotated(degrees: 45, background: background)
            let (right, bottom) = (rotated.width - 1, rotated.height - 1)
            for (x, y) in [(0, 0), (right, 0), (0, bottom), (right, bottom)] {
                #expect(pixelSamples(rotated, x, y) == expected, "\(background?.description ?? "nil") at (\(x),\(y))")
            }
        }
    }

    @Test("a turn is clockwise, keeps an odd image's centre pixel, and leaves no dark fringe")
    func orientationAndFringe() {
        // Given an 11x11 transparent image with an opaque white centre and a white mark at the top middle.
        let source = TestImages.make8(width: 11, height: 11) { x, y in
            (x == 5 && (y == 5 || y == 0)) ? [255, 255, 255, 255] : [0, 0, 0, 0]
        }
        let rotated = source.rotated(degrees: 30, background: nil)
        #expect(rotated.width == 16 && rotated.height == 16)  // ceil(11 cos 30 + 11 sin 30) = ceil(15.03)
        // The mark, above the centre, moves right when turned clockwise: its heaviest pixel is
        // in the upper right quarter.
        var best = (x: 0, y: 0, alpha: 0)
        for y in 0..<rotated.height {
            for x in 0..<rotated.width where abs(x - 8) + abs(y - 8) > 4 && pixelSamples(rotated, x, y)[3] > best.alpha
            {
                best = (x, y, pixelSamples(rotated, x, y)[3])
            }
        }
        #expect(best.x > 8 && best.y < 8, "mark at \(best)")
        // Premultiplied blending: every visible pixel stays pure white.
        for y in 0..<rotated.height {
            for x in 0..<rotated.width where pixelSamples(rotated, x, y)[3] > 0 {
                #expect(pixelSamples(rotated, x, y).prefix(3) == [255, 255, 255], "(\(x),\(y))")
            }
        }
    }

    @Test("an odd image turned by any angle onto an odd canvas keeps its centre pixel exactly")
    func centrePixel() {
        let source = noise(width: 3, height: 3, depth: .sixteen, seed: 6)
        // |3 cos 53.13| + |3 sin 53.13| = 3 * 1.4 = 4.2, so the canvas is 5x5, centred on (2, 2).
        let rotated = source.rotated(degrees: atan2(4, 3) * 180 / .pi, background: .black)
        #expect(rotated.width == 5 && rotated.height == 5)
        let centre = pixelSamples(source, 1, 1)
        let expected = centre[3] == 0 ? [0, 0, 0, 0] : centre
        #expect(pixelSamples(rotated, 2, 2) == expected)
    }
}
