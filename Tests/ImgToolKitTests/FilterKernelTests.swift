import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Blur, sharpen, grey and content box", .timeLimit(.minutes(5)))
struct FilterKernelTests {
    /// The blur of pixel (x, y) as a 2-D sum in `Double`: premultiplied colour, weights
    /// `exp(-k² / 2σ²)` for `|k| <= ceil(3σ)` normalised to sum 1, clamp to edge; then straight
    /// alpha, and (0, 0, 0, 0) where alpha is below 0.5. Unrounded; the alpha before clamping too.
    private func referenceBlur(_ image: PixelBuffer, _ x: Int, _ y: Int, sigma: Double) -> (
        pixel: [Double], alpha: Double
    ) {
        let radius = Int((3 * sigma).rounded(.up))
        let raw = (-radius...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        let weights = raw.map { $0 / total }
        var sums = [Double](repeating: 0, count: 4)
        for j in -radius...radius {
            for i in -radius...radius {
                let samples = pixelSamples(
                    image, min(max(x + i, 0), image.width - 1), min(max(y + j, 0), image.height - 1))
                let weight = weights[i + radius] * weights[j + radius]
                let alpha = Double(samples[3])
                for c in 0..<3 { sums[c] += weight * Double(samples[c]) * alpha }
                sums[3] += weight * alpha
            }
        }
        let maximum = image.depth == .eight ? 255.0 : 65535.0
        let alpha = min(max(sums[3], 0), maximum)
        guard alpha >= 0.5 else { return ([0, 0, 0, 0], sums[3]) }
        return ((0..<3).map { min(max(sums[$0] / alpha, 0), maximum) } + [alpha], sums[3])
    }

    /// The pixels of `blurred` more than 1 level from ``referenceBlur(_:_:_:sigma:)``, at
    /// `points` (every pixel by default), described; colour is not compared where the alpha is
    /// within 0.001 of the 0.5 at which a pixel becomes (0, 0, 0, 0).
    private func blurErrors(
        _ image: PixelBuffer, _ blurred: PixelBuffer, sigma: Double, at points: [(Int, Int)]? = nil,
        tolerance: Double = 1
    ) -> [String] {
        let all = (0..<image.height).flatMap { y in (0..<image.width).map { x in (x, y) } }
        return (points ?? all).compactMap { x, y in
            let (expected, alpha) = referenceBlur(image, x, y, sigma: sigma)
            let actual = pixelSamples(blurred, x, y)
            let channels = abs(alpha - 0.5) < 0.001 ? 3..<4 : 0..<4
            let close = channels.allSatisfy { abs(Double(actual[$0]) - expected[$0]) <= tolerance }
            return close ? nil : "(\(x),\(y)): expected \(expected), actual \(actual)"
        }
    }

    private func noise(_ depth: SampleDepth, width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        depth == .eight
            ? TestImages.noise8(width: width, height: height, seed: seed)
            : TestImages.noise16(width: width, height: height, seed: seed)
    }

    @Test(
        "a wide blur (six extended boxes) is within 2.5 levels of the Gaussian, edges and alpha included",
        arguments: [SampleDepth.eight, .sixteen], [12, 20])
    func wideBlurMatchesTheReference(depth: SampleDepth, sigma: Double) {
        // Sharp-edged blocks of colour and alpha, wider than the kernel's reach in one axis only.
        let image =
            depth == .eight
            ? TestImages.make8(width: 61, height: 29) { x, y in
                [x < 20 ? 255 : 10, y < 12 ? 200 : 30, (x + y) % 7 == 0 ? 255 : 0, x > 40 ? 90 : 255]
            }
            : TestImages.make16(width: 61, height: 29) { x, y in
                [x < 20 ? 65535 : 2570, y < 12 ? 51400 : 7710, (x + y) % 7 == 0 ? 65535 : 0, x > 40 ? 23130 : 65535]
            }
        let blurred = image.blurred(sigma: sigma)
        let points = stride(from: 0, to: 61, by: 5).flatMap { x in stride(from: 0, to: 29, by: 7).map { (x, $0) } }
        let tolerance = depth == .eight ? 2.5 : 2.5 * 257
        let errors = blurErrors(image, blurred, sigma: sigma, at: points, tolerance: tolerance)
        #expect(errors.isEmpty, "\(errors.count) pixels differ; first \(errors.first ?? "")")
        // One thread or two: the same pixels.
        #expect(image.gaussianFiltered(.blur, sigma: sigma, threads: 2) == blurred)
        #expect(image.gaussianFiltered(.blur, sigma: sigma, threads: 1) == blurred)
    }

    @Test(
        "blur is within 1 level of a Double premultiplied Gaussian",
        arguments: [SampleDepth.eight, .sixteen], [0.5, 3])
    func blurMatchesTheReference(depth: SampleDepth, sigma: Double) {
        let image = noise(depth, width: 37, height: 23, seed: 7)
        let blurred = image.blurred(sigma: sigma)
        #expect(blurred.depth == depth)
        #expect(blurred.width == 37 && blurred.height == 23)
        let errors = blurErrors(image, blurred, sigma: sigma)
        #expect(errors.isEmpty, "\(errors.count) pixels differ; first \(errors.first ?? "")")
    }

    @Test(
        "images smaller than the kernel, one row or one column, on one thread or two",
        arguments: [(1, 1), (5, 2), (1, 9), (9, 1), (3, 4)], [1, 2])
    func smallImages(size: (Int, Int), threads: Int) {
        for depth in SampleDepth.allCases {
            let image = noise(depth, width: size.0, height: size.1, seed: 11)
            for sigma in [0.3, 2.5] {
                let blurred = image.gaussianFiltered(.blur, sigma: sigma, threads: threads)
                let errors = blurErrors(image, blurred, sigma: sigma)
                #expect(errors.isEmpty, "\(size) sigma \(sigma): \(errors.first ?? "")")
            }
        }
        #expect(PixelBuffer(width: 0, height: 3).blurred(sigma: 2) == PixelBuffer(width: 0, height: 3))
    }

    @Test("an image above the two-thread threshold: two threads give what one does, and the reference")
    func twoThreads() {
        // Given 513 x 512 pixels, at least 2^18.
        let image = TestImages.noise8(width: 513, height: 512, seed: 3)
        #expect(image.pixelCount >= 1 << 18)
        // When blurred and sharpened by the public methods, on one thread and on two.
        let blurred = image.blurred(sigma: 1)
        let oneThread = image.gaussianFiltered(.blur, sigma: 1, threads: 1)
        let twoThreads = image.gaussianFiltered(.blur, sigma: 1, threads: 2)
        // Then every result is the same, and within 1 level of the reference (rows around the split, and spread).
        #expect(firstDifference(oneThread, blurred) == nil)
        #expect(firstDifference(oneThread, twoThreads) == nil)
        var random = SeededRandom(seed: 5)
        let points =
            (250..<262).flatMap { y in [0, 1, 256, 511, 512].map { ($0, y) } }
            + (0..<300).map { _ in (Int(random.next() % 513), Int(random.next() % 512)) }
        let errors = blurErrors(image, twoThreads, sigma: 1, at: points)
        #expect(errors.isEmpty, "\(errors.count) pixels differ; first \(errors.first ?? "")")
        let sharpened = image.sharpened(sigma: 1)
        #expect(firstDifference(image.gaussianFiltered(.sharpen(amount: 1), sigma: 1, threads: 1), sharpened) == nil)
    }

    @Test("a transparent pixel's colour does not bleed into its neighbours", arguments: SampleDepth.allCases)
    func noBleeding(depth: SampleDepth) {
        // Given opaque red on the left, transparent green on the right.
        let image = TestImages.make8(width: 12, height: 3) { x, _ in x < 6 ? [255, 0, 0, 255] : [0, 255, 0, 0] }
            .converted(to: depth)
        let maximum = depth == .eight ? 255 : 65535
        // When blurred, then every visible pixel is pure red, and alpha falls off to the right.
        let blurred = image.blurred(sigma: 1.5)
        for y in 0..<3 {
            for x in 0..<12 {
                let pixel = pixelSamples(blurred, x, y)
                if pixel[3] == 0 {
                    #expect(pixel == [0, 0, 0, 0])
                } else {
                    #expect(pixel[0...2] == [maximum, 0, 0], "(\(x),\(y)): \(pixel)")
                }
            }
        }
        #expect(pixelSamples(blurred, 0, 1)[3] == maximum)
        #expect(pixelSamples(blurred, 5, 1)[3] < maximum && pixelSamples(blurred, 6, 1)[3] > 0)
    }

    @Test("sharpening a flat image changes nothing", arguments: SampleDepth.allCases)
    func sharpenFlat(depth: SampleDepth) {
        let flat8 = TestImages.make8(width: 19, height: 11) { _, _ in [100, 150, 201, 180] }.converted(to: depth)
        #expect(firstDifference(flat8, flat8.sharpened(sigma: 2, amount: 1.5)) == nil)
        let opaque = TestImages.make8(width: 7, height: 6) { _, _ in [0, 255, 7, 255] }.converted(to: depth)
        #expect(firstDifference(opaque, opaque.sharpened(sigma: 0.8)) == nil)
    }

    @Test("sharpening an edge overshoots on both sides, keeps alpha and transparent pixels")
    func sharpenEdge() {
        // Given a vertical edge from grey 50 to grey 200 at half alpha, and a transparent row.
        let image = TestImages.make8(width: 20, height: 5) { x, y in
            y == 4 ? [9, 8, 7, 0] : x < 10 ? [50, 50, 50, 128] : [200, 200, 200, 128]
        }
        let sharpened = image.sharpened(sigma: 1)
        // Then the dark side gets darker and the light side lighter next to the edge, far away nothing changes.
        #expect(pixelSamples(sharpened, 9, 2)[0] < 50)
        #expect(pixelSamples(sharpened, 10, 2)[0] > 200)
        #expect(pixelSamples(sharpened, 0, 0) == [50, 50, 50, 128])
        #expect(pixelSamples(sharpened, 19, 0) == [200, 200, 200, 128])
        for x in 0..<20 {
            #expect(pixelSamples(sharpened, x, 1)[3] == 128)
            #expect(pixelSamples(sharpened, x, 4) == [9, 8, 7, 0])
        }
        // A larger amount overshoots further, clamped to the sample range.
        let strong = image.sharpened(sigma: 1, amount: 20)
        #expect(pixelSamples(strong, 9, 2)[0...2] == [0, 0, 0])
        #expect(pixelSamples(strong, 10, 2)[0...2] == [255, 255, 255])
    }

    @Test("grey is the rounded Rec. 709 luma of the encoded values, alpha unchanged")
    func grayscale() {
        let primaries = TestImages.make8(width: 5, height: 1) { x, _ in
            [[255, 0, 0, 255], [0, 255, 0, 10], [0, 0, 255, 0], [255, 255, 255, 255], [10, 20, 30, 40]][x]
        }
        let grey = primaries.grayscaled()
        #expect(
            (0..<5).map { pixelSamples(grey, $0, 0) } == [
                [54, 54, 54, 255], [182, 182, 182, 10], [18, 18, 18, 0], [255, 255, 255, 255], [19, 19, 19, 40],
            ])
        #expect(pixelSamples(primaries.converted(to: .sixteen).grayscaled(), 0, 0) == [13933, 13933, 13933, 65535])
        // Every grey stays itself; noise matches the exact integer formula, at both depths.
        let greys = TestImages.make8(width: 256, height: 1) { x, _ in [UInt8(x), UInt8(x), UInt8(x), 77] }
        #expect(greys.grayscaled() == greys)
        for image in [
            TestImages.noise8(width: 40, height: 30, seed: 1), TestImages.noise16(width: 40, height: 30, seed: 2),
        ] {
            let result = image.grayscaled()
            for y in 0..<30 {
                for x in 0..<40 {
                    let p = pixelSamples(image, x, y)
                    let luma = (2126 * p[0] + 7152 * p[1] + 722 * p[2] + 5000) / 10000
                    #expect(pixelSamples(result, x, y) == [luma, luma, luma, p[3]])
                }
            }
        }
    }

    /// A `width` x `height` image of `border` with `content` at the pixels `inside` says.
    private func bordered(
        width: Int, height: Int, border: [UInt8], content: [UInt8], inside: (Int, Int) -> Bool
    ) -> PixelBuffer {
        TestImages.make8(width: width, height: height) { x, y in inside(x, y) ? content : border }
    }

    @Test("the content box inside borders on four sides, one side, none, or only border")
    func contentBox() {
        let white: [UInt8] = [255, 255, 255, 255]
        let red: [UInt8] = [255, 0, 0, 255]
        let four = bordered(width: 10, height: 8, border: white, content: red) { x, y in
            (2...6).contains(x) && (3...5).contains(y)
        }
        #expect(
            four.contentBox(differingFrom: pixelSamples(four, 0, 0)) == FrameRegion(x: 2, y: 3, width: 5, height: 3))
        let hollow = bordered(width: 10, height: 8, border: white, content: red) { x, y in
            (x == 1 || x == 8) && y == 4 || x == 4 && (y == 2 || y == 6)
        }
        #expect(hollow.contentBox(differingFrom: [255, 255, 255, 255]) == FrameRegion(x: 1, y: 2, width: 8, height: 5))
        let right = bordered(width: 10, height: 8, border: white, content: red) { x, _ in x < 7 }
        #expect(
            right.contentBox(differingFrom: pixelSamples(right, 9, 0)) == FrameRegion(x: 0, y: 0, width: 7, height: 8))
        let corners = bordered(width: 10, height: 8, border: white, content: red) { x, y in
            (x, y) == (0, 7) || (x, y) == (9, 0)
        }
        #expect(
            corners.contentBox(differingFrom: [255, 255, 255, 255]) == FrameRegion(x: 0, y: 0, width: 10, height: 8))
        let single = bordered(width: 10, height: 8, border: white, content: red) { x, y in (x, y) == (9, 7) }
        #expect(single.contentBox(differingFrom: [255, 255, 255, 255]) == FrameRegion(x: 9, y: 7, width: 1, height: 1))
        let none = TestImages.noise8(width: 9, height: 5, seed: 4)
        #expect(none.contentBox(differingFrom: [1, 2, 3, 4]) == FrameRegion(x: 0, y: 0, width: 9, height: 5))
        #expect(none.contentBox(differingFrom: [300, 2, 3, 4]) == FrameRegion(x: 0, y: 0, width: 9, height: 5))
        let blank = bordered(width: 6, height: 4, border: white, content: red) { _, _ in false }
        #expect(blank.contentBox(differingFrom: pixelSamples(blank, 0, 0)) == nil)
        #expect(blank.converted(to: .sixteen).contentBox(differingFrom: [65535, 65535, 65535, 65535]) == nil)
        #expect(blank.contentBox(differingFrom: [255, 255, 255, 254]) == FrameRegion(x: 0, y: 0, width: 6, height: 4))
        #expect(PixelBuffer(width: 0, height: 5).contentBox(differingFrom: [0, 0, 0, 0]) == nil)
    }

    @Test("a transparent border counts as one colour whatever its invisible samples", arguments: SampleDepth.allCases)
    func transparentBorder(depth: SampleDepth) {
        // Given content (one half-transparent pixel among opaque ones) in a border of alpha 0 and random colour.
        var random = SeededRandom(seed: 9)
        let image = TestImages.make8(width: 12, height: 9) { x, y in
            if (3...8).contains(x) && (2...5).contains(y) { return [10, 20, 30, x == 3 ? 128 : 255] }
            return [UInt8(random.next() % 256), UInt8(random.next() % 256), UInt8(random.next() % 256), 0]
        }.converted(to: depth)
        #expect(
            image.contentBox(differingFrom: pixelSamples(image, 0, 0)) == FrameRegion(x: 3, y: 2, width: 6, height: 4))
        #expect(image.contentBox(differingFrom: [-1, 70000, 5, 0]) == FrameRegion(x: 3, y: 2, width: 6, height: 4))
        // A colour of the opaque content: everything else differs, the transparent border included.
        let opaque = depth == .eight ? [10, 20, 30, 255] : [2570, 5140, 7710, 65535]
        #expect(image.contentBox(differingFrom: opaque) == FrameRegion(x: 0, y: 0, width: 12, height: 9))
    }

    @Test("the content box matches a scan of every pixel on sparse random images", arguments: 0..<20)
    func contentBoxMatchesAFullScan(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let width = 1 + Int(random.next() % 30)
        let height = 1 + Int(random.next() % 30)
        let marks = Set(
            (0..<Int(random.next() % 4)).map { _ in
                Int(random.next() % UInt64(width * height))
            })
        let image = TestImages.make16(width: width, height: height) { x, y in
            marks.contains(y * width + x) ? [7, 7, 7, UInt16(1 + x % 3)] : [7, 7, 7, 0]
        }
        let differing = marks.map { ($0 % width, $0 / width) }
        let expected =
            differing.isEmpty
            ? nil
            : FrameRegion(
                x: differing.map(\.0).min() ?? 0, y: differing.map(\.1).min() ?? 0,
                width: (differing.map(\.0).max() ?? 0) - (differing.map(\.0).min() ?? 0) + 1,
                height: (differing.map(\.1).max() ?? 0) - (differing.map(\.1).min() ?? 0) + 1)
        #expect(image.contentBox(differingFrom: [1, 2, 3, 0]) == expected)
    }
}
