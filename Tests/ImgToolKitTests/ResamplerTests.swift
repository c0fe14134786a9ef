import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// A float64 resize written independently of the library: the 2-D sum of `wx · wy` over
/// premultiplied samples, each axis's weights from the kernel's formula (or exact area overlap
/// for the box), normalized; rounded once at the end.
enum ReferenceResize {
    static func kernel(_ filter: ResampleFilter, _ x: Double) -> Double {
        let t = abs(x)
        func sinc(_ v: Double) -> Double { v == 0 ? 1 : sin(Double.pi * v) / (Double.pi * v) }
        func cubic(_ b: Double, _ c: Double) -> Double {
            if t < 1 { return ((12 - 9 * b - 6 * c) * pow(t, 3) + (-18 + 12 * b + 6 * c) * t * t + 6 - 2 * b) / 6 }
            if t < 2 {
                return ((-b - 6 * c) * pow(t, 3) + (6 * b + 30 * c) * t * t - (12 * b + 48 * c) * t + 8 * b + 24 * c)
                    / 6
            }
            return 0
        }
        switch filter {
        case .lanczos3: return t < 3 ? sinc(t) * sinc(t / 3) : 0
        case .mitchell: return cubic(1.0 / 3, 1.0 / 3)
        case .catmullRom: return cubic(0, 0.5)
        case .bilinear: return max(0, 1 - t)
        case .box: return 0  // unused: area weights below
        }
    }

    static let radius: [ResampleFilter: Double] = [.lanczos3: 3, .mitchell: 2, .catmullRom: 2, .bilinear: 1]

    /// Weights of every source pixel for output pixel `i` (most of them 0).
    static func weights(_ filter: ResampleFilter, source: Int, target: Int, index: Int) -> [Double] {
        let scale = Double(source) / Double(target)
        var w = [Double](repeating: 0, count: source)
        if source == target {
            w[index] = 1  // an axis that keeps its size is copied, as documented
        } else if filter == .box {
            let start = Double(index) * scale
            let end = Double(index + 1) * scale
            for j in 0..<source { w[j] = max(0, min(Double(j + 1), end) - max(Double(j), start)) }
        } else {
            let stretch = max(scale, 1)
            let center = (Double(index) + 0.5) * scale
            for j in 0..<source {
                let d = (Double(j) + 0.5 - center) / stretch
                if abs(d) < (radius[filter] ?? 0) { w[j] = kernel(filter, d) }
            }
        }
        let sum = w.reduce(0, +)
        return w.map { $0 / sum }
    }

    static func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func linearToSRGB(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// The image resized, as doubles in `0...1` per sample (straight alpha), before rounding.
    static func resize(_ image: PixelBuffer, to size: PixelSize, filter: ResampleFilter, linear: Bool) -> [Double] {
        let maximum = image.depth == .eight ? 255.0 : 65535.0
        let samples: [Double] =
            switch image.samples {
            case .rgba8(let s): s.map { Double($0) / maximum }
            case .rgba16(let s): s.map { Double($0) / maximum }
            }
        let wx = (0..<size.width).map { weights(filter, source: image.width, target: size.width, index: $0) }
        let wy = (0..<size.height).map { weights(filter, source: image.height, target: size.height, index: $0) }
        var out = [Double](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                var acc = [0.0, 0.0, 0.0, 0.0]
                for sy in 0..<image.height where wy[y][sy] != 0 {
                    for sx in 0..<image.width where wx[x][sx] != 0 {
                        let w = wx[x][sx] * wy[y][sy]
                        let base = (sy * image.width + sx) * 4
                        let a = samples[base + 3]
                        for c in 0..<3 {
                            let v = linear ? srgbToLinear(samples[base + c]) : samples[base + c]
                            acc[c] += w * v * a
                        }
                        acc[3] += w * a
                    }
                }
                let a = min(max(acc[3], 0), 1)
                let base = (y * size.width + x) * 4
                out[base + 3] = a
                guard a > 0 else { continue }
                for c in 0..<3 {
                    let v = min(max(acc[c], 0), a) / a
                    out[base + c] = linear ? linearToSRGB(v) : v
                }
            }
        }
        return out
    }
}

/// Noise with smooth and hard areas, some pixels transparent, some half transparent.
func noiseImage(width: Int, height: Int, depth: SampleDepth, seed: UInt64) -> PixelBuffer {
    var random = SeededRandom(seed: seed)
    var samples: [UInt16] = []
    for y in 0..<height {
        for x in 0..<width {
            let alpha: UInt16 =
                switch (x + 2 * y) % 5 {
                case 0: 0
                case 1: UInt16.random(in: 1...65535, using: &random)
                default: 65535
                }
            for _ in 0..<3 { samples.append(UInt16.random(in: 0...65535, using: &random)) }
            samples.append(alpha)
        }
    }
    return depth == .sixteen
        ? PixelBuffer(width: width, height: height, rgba16: samples)
        : PixelBuffer(width: width, height: height, rgba8: samples.map { UInt8($0 >> 8) })
}

@Suite("Resampler", .timeLimit(.minutes(5)))
struct ResamplerTests {
    static let cases: [(PixelSize, PixelSize)] = [
        (PixelSize(width: 37, height: 23), PixelSize(width: 17, height: 41)),
        (PixelSize(width: 64, height: 48), PixelSize(width: 9, height: 7)),
        (PixelSize(width: 13, height: 11), PixelSize(width: 40, height: 29)),
        (PixelSize(width: 300, height: 5), PixelSize(width: 7, height: 5)),
    ]

    @Test(
        "Every filter is within 1 (in 8 bits) of a float64 reference",
        arguments: ResampleFilter.allCases, [false, true])
    func matchesReference(filter: ResampleFilter, linear: Bool) throws {
        for depth in SampleDepth.allCases {
            for (index, (from, to)) in Self.cases.enumerated() {
                let image = noiseImage(width: from.width, height: from.height, depth: depth, seed: UInt64(index))
                let resized = try image.resized(to: to, filter: filter, linear: linear)
                #expect(resized.width == to.width && resized.height == to.height && resized.depth == depth)
                let reference = ReferenceResize.resize(image, to: to, filter: filter, linear: linear)
                let actual: [Double] =
                    switch resized.samples {
                    case .rgba8(let s): s.map { Double($0) }
                    case .rgba16(let s): s.map { Double($0) / 257 }
                    }
                var worst = 0.0
                var worstAt = ""
                var differing = 0
                for pixel in 0..<to.width * to.height {
                    let expectedAlpha = reference[pixel * 4 + 3] * 255
                    let alphaError = abs(actual[pixel * 4 + 3] - expectedAlpha)
                    var error = alphaError
                    // Colour is only defined where alpha is visible at both ends.
                    if expectedAlpha > 1.5, actual[pixel * 4 + 3] > 1.5 {
                        for c in 0..<3 {
                            error = max(error, abs(actual[pixel * 4 + c] - reference[pixel * 4 + c] * 255))
                        }
                    }
                    if error > 1 { differing += 1 }
                    if error > worst {
                        worst = error
                        worstAt = "pixel \(pixel % to.width),\(pixel / to.width)"
                    }
                }
                #expect(
                    worst <= 1,
                    "\(filter) linear \(linear) \(depth) \(from)->\(to): \(differing) samples off by more than 1, worst \(worst) at \(worstAt)"
                )
            }
        }
    }

    @Test("An opaque white square on a transparent field keeps white edges", arguments: ResampleFilter.allCases)
    func whiteSquareHasNoFringe(filter: ResampleFilter) throws {
        for depth in SampleDepth.allCases {
            // Given a 40x40 field, transparent with garbage colour, and a white 20x20 square in it
            var samples = [UInt8](repeating: 0, count: 40 * 40 * 4)
            for y in 0..<40 {
                for x in 0..<40 {
                    let base = (y * 40 + x) * 4
                    let inside = (10..<30).contains(x) && (10..<30).contains(y)
                    samples[base..<base + 4] =
                        inside ? [255, 255, 255, 255] : [(x * 7) % 256 == 0 ? 1 : 200, 0, 90, 0]
                }
            }
            let image = PixelBuffer(width: 40, height: 40, rgba8: samples).converted(to: depth)
            for size in [PixelSize(width: 13, height: 13), PixelSize(width: 57, height: 57)] {
                for linear in [false, true] {
                    // When it is resized
                    let resized = try image.resized(to: size, filter: filter, linear: linear)
                    let maximum = depth == .eight ? 255 : 65535
                    let out: [Int] =
                        switch resized.samples {
                        case .rgba8(let s): s.map(Int.init)
                        case .rgba16(let s): s.map(Int.init)
                        }
                    // Then every visible pixel is white, and every invisible one (0, 0, 0, 0)
                    for pixel in 0..<size.width * size.height {
                        let rgba = Array(out[pixel * 4..<pixel * 4 + 4])
                        if rgba[3] == 0 {
                            #expect(rgba == [0, 0, 0, 0], "\(filter) \(size) pixel \(pixel): \(rgba)")
                        } else {
                            #expect(
                                rgba[0...2].allSatisfy { $0 >= maximum - maximum / 255 },
                                "\(filter) \(size) pixel \(pixel): \(rgba)")
                        }
                    }
                    // and the corners, far from the square, stay transparent.
                    #expect(Array(out[0..<4]) == [0, 0, 0, 0])
                    #expect(Array(out[out.count - 4..<out.count]) == [0, 0, 0, 0])
                }
            }
        }
    }

    @Test("Flattened onto a colour: premultiplied colour plus the background, one rounding", arguments: [false, true])
    func flattened(linear: Bool) throws {
        let image = noiseImage(width: 45, height: 31, depth: .eight, seed: 11)
        let size = PixelSize(width: 13, height: 9)
        let background = RGBAColor(red: 30, green: 140, blue: 250)
        let resampler = try Resampler(
            from: PixelSize(width: 45, height: 31), to: size, filter: .lanczos3, linear: linear)
        let out = try #require(try resampler.resample(image, flattenedOnto: background).rgba8)
        let reference = ReferenceResize.resize(image, to: size, filter: .lanczos3, linear: linear)
        let under = [background.red, background.green, background.blue].map { Double($0) / 255 }
        var worst = 0.0
        for pixel in 0..<size.width * size.height {
            let a = reference[pixel * 4 + 3]
            #expect(out[pixel * 4 + 3] == 255)
            for c in 0..<3 {
                let color = reference[pixel * 4 + c]
                let expected: Double
                if linear {
                    let mixed =
                        ReferenceResize.srgbToLinear(color) * a + ReferenceResize.srgbToLinear(under[c]) * (1 - a)
                    expected = ReferenceResize.linearToSRGB(mixed) * 255
                } else {
                    expected = (color * a + under[c] * (1 - a)) * 255
                }
                worst = max(worst, abs(Double(out[pixel * 4 + c]) - expected))
            }
        }
        #expect(worst <= 1, "largest difference \(worst)")
    }

    @Test("An identity resize is exact", arguments: ResampleFilter.allCases)
    func identityIsExact(filter: ResampleFilter) throws {
        for depth in SampleDepth.allCases {
            let image = noiseImage(width: 31, height: 17, depth: depth, seed: 7)
            #expect(try image.resized(to: PixelSize(width: 31, height: 17), filter: filter) == image)
            #expect(try image.resized(to: PixelSize(width: 31, height: 17), filter: filter, linear: true) == image)
        }
    }

    @Test("A uniform colour stays uniform at odd sizes, 1xN and huge ratios", arguments: ResampleFilter.allCases)
    func uniformStaysUniform(filter: ResampleFilter) throws {
        let pairs: [(PixelSize, PixelSize)] = [
            (PixelSize(width: 4000, height: 1), PixelSize(width: 1, height: 1)),
            (PixelSize(width: 1, height: 4000), PixelSize(width: 1, height: 3)),
            (PixelSize(width: 1, height: 1), PixelSize(width: 7, height: 5)),
            (PixelSize(width: 1, height: 50), PixelSize(width: 1, height: 7)),
            (PixelSize(width: 7, height: 1), PixelSize(width: 3, height: 1)),
            (PixelSize(width: 2, height: 3), PixelSize(width: 1999, height: 1)),
            (PixelSize(width: 333, height: 77), PixelSize(width: 1, height: 1)),
        ]
        for (from, to) in pairs {
            let pixels = [UInt8]((0..<from.width * from.height).map { _ in [UInt8(201), 17, 99, 140] }.joined())
            let image = PixelBuffer(width: from.width, height: from.height, rgba8: pixels)
            for linear in [false, true] {
                let resized = try image.resized(to: to, filter: filter, linear: linear)
                #expect(resized.width == to.width && resized.height == to.height)
                let out = try #require(resized.rgba8)
                for pixel in 0..<to.width * to.height {
                    let rgba = out[pixel * 4..<pixel * 4 + 4].map(Int.init)
                    let expected = [201, 17, 99, 140]
                    #expect(
                        zip(rgba, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(filter) \(from)->\(to): \(rgba)")
                }
            }
        }
    }

    @Test("The thumbnail fast path: a box pre-reduction for reductions of 4 or more, close to the filter alone")
    func shrinkingFirst() throws {
        // A smooth picture with some alpha, 401x333 to 37x29: both axes shrink by more than 4.
        var samples: [UInt8] = []
        for y in 0..<333 {
            for x in 0..<401 {
                let v = sin(Double(x) / 23) * cos(Double(y) / 17)
                samples += [
                    UInt8(127 + 120 * v), UInt8(Double(x) / 401 * 255), UInt8(Double(y) / 333 * 255),
                    UInt8(255 - (x + y) % 64),
                ]
            }
        }
        let image = PixelBuffer(width: 401, height: 333, rgba8: samples)
        let size = PixelSize(width: 37, height: 29)
        let fast = try Resampler(from: PixelSize(width: 401, height: 333), to: size, shrinkingFirst: true)
        #expect(fast.preReduction.count == 1)
        #expect(
            try Resampler(
                from: PixelSize(width: 401, height: 333), to: PixelSize(width: 120, height: 100), shrinkingFirst: true
            ).preReduction.isEmpty)
        let out = try #require(try fast.resample(image).rgba8)
        let reference = ReferenceResize.resize(image, to: size, filter: .lanczos3, linear: false)
        var total = 0.0
        var worst = 0.0
        for index in 0..<out.count {
            let error = abs(Double(out[index]) - reference[index] * 255)
            total += error
            worst = max(worst, error)
        }
        #expect(total / Double(out.count) < 1, "mean difference \(total / Double(out.count))")
        #expect(worst <= 4, "largest difference \(worst)")
        // A uniform colour stays uniform through both stages.
        let flat = PixelBuffer(
            width: 500, height: 9, rgba8: [UInt8]((0..<500 * 9).map { _ in [UInt8(9), 200, 77, 180] }.joined()))
        let flatOut = try #require(try flat.resized(ResizeSpec(size: "20")).rgba8)
        #expect(try ResizeSpec(size: "20").isThumbnail)
        for pixel in 0..<flatOut.count / 4 {
            #expect(
                zip(flatOut[pixel * 4..<pixel * 4 + 4], [UInt8(9), 200, 77, 180]).allSatisfy {
                    abs(Int($0) - Int($1)) <= 1
                })
        }
    }

    @Test("4000x1 to 1x1 is the mean of the row")
    func hugeRatioIsTheMean() throws {
        let pixels = [UInt8]((0..<4000).map { x -> [UInt8] in [UInt8(x % 256), 0, 0, 255] }.joined())
        let image = PixelBuffer(width: 4000, height: 1, rgba8: pixels)
        let mean = Double((0..<4000).map { $0 % 256 }.reduce(0, +)) / 4000
        let resized = try image.resized(to: PixelSize(width: 1, height: 1), filter: .box)
        #expect(try abs(Double(#require(resized.rgba8)[0]) - mean) <= 0.5)
    }

    @Test("Limits are checked before anything is allocated")
    func limitsBeforeAllocation() throws {
        let image = PixelBuffer(width: 2, height: 2)
        // 100000 x 100000 x 4 bytes would be 40 GB: the limit must refuse it first.
        let error = #expect(throws: ImgToolError.self) {
            try image.resized(to: PixelSize(width: 100_000, height: 100_000))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("100000x100000") == true)
        let small = DecodingLimits(maxPixels: 99)
        #expect(throws: ImgToolError.self) {
            try image.resized(to: PixelSize(width: 10, height: 10), limits: small)
        }
        #expect(throws: ImgToolError.self) {
            try ResizeSpec(width: "5000000%").resolve(against: PixelSize(width: 1000, height: 1000))
        }
        let empty = #expect(throws: ImgToolError.self) { try image.resized(to: PixelSize(width: 0, height: 3)) }
        #expect(empty?.code == .invalidArgument)
        let wrongSize = try Resampler(from: PixelSize(width: 3, height: 3), to: PixelSize(width: 1, height: 1))
        let mismatch = #expect(throws: ImgToolError.self) { try wrongSize.resample(image) }
        #expect(mismatch?.code == .invalidArgument)
    }

    @Test("Large images are split in two bands with the same result as one")
    func bandsAgree() throws {
        let image = noiseImage(width: 640, height: 480, depth: .eight, seed: 3)
        let resampler = try Resampler(from: PixelSize(width: 640, height: 480), to: PixelSize(width: 123, height: 77))
        #expect(640 * 480 >= Resampler.parallelThreshold)
        let whole = try resampler.resample(image)
        // The bottom rows alone: resize a crop whose rows all fall in one band.
        let bottom = try Resampler(
            from: PixelSize(width: 640, height: 480), scaledTo: PixelSize(width: 123, height: 77),
            croppedTo: FrameRegion(x: 0, y: 70, width: 123, height: 7)
        ).resample(image)
        #expect(whole.cropped(to: FrameRegion(x: 0, y: 70, width: 123, height: 7)) == bottom)
    }
}

@Suite("Resampler on 256-bit vectors", .timeLimit(.minutes(5)))
struct WideResamplerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var source: PixelSize
        var output: PixelSize
        var filter: ResampleFilter
        var linear = false
        var testDescription: String { "\(source) -> \(output) \(filter)\(linear ? " linear" : "")" }
    }

    static let cases: [Case] = [
        Case(source: PixelSize(width: 401, height: 333), output: PixelSize(width: 50, height: 41), filter: .lanczos3),
        Case(source: PixelSize(width: 400, height: 300), output: PixelSize(width: 100, height: 75), filter: .mitchell),
        Case(source: PixelSize(width: 97, height: 61), output: PixelSize(width: 131, height: 40), filter: .catmullRom),
        Case(source: PixelSize(width: 64, height: 64), output: PixelSize(width: 3, height: 7), filter: .lanczos3),
        Case(source: PixelSize(width: 255, height: 9), output: PixelSize(width: 37, height: 9), filter: .bilinear),
        Case(source: PixelSize(width: 300, height: 200), output: PixelSize(width: 61, height: 33), filter: .box),
        Case(
            source: PixelSize(width: 120, height: 80), output: PixelSize(width: 33, height: 21), filter: .lanczos3,
            linear: true),
        Case(source: PixelSize(width: 1, height: 50), output: PixelSize(width: 1, height: 5), filter: .lanczos3),
        Case(source: PixelSize(width: 2, height: 2), output: PixelSize(width: 9, height: 9), filter: .lanczos3),
        // Two bands, each with an odd number of source rows: rows filtered in pairs, the last alone.
        Case(source: PixelSize(width: 701, height: 499), output: PixelSize(width: 87, height: 62), filter: .lanczos3),
    ]

    @Test(
        "every sample is the Swift loop's, 8- and 16-bit, flattened or not",
        .enabled(if: Resampler.hasWideVectors, "the processor has no AVX, so the wide path never runs here"),
        arguments: cases)
    func sameAsTheSwiftLoop(_ test: Case) throws {
        for depth in [SampleDepth.eight, .sixteen] {
            let image = noiseImage(
                width: test.source.width, height: test.source.height, depth: depth, seed: UInt64(test.source.width))
            var wide = try Resampler(from: test.source, to: test.output, filter: test.filter, linear: test.linear)
            wide.usesWideVectors = true
            var narrow = wide
            narrow.usesWideVectors = false
            #expect(try wide.resample(image) == narrow.resample(image), "\(depth)")
            let background = RGBAColor(red: 30, green: 140, blue: 250)
            #expect(
                try wide.resample(image, flattenedOnto: background) == narrow.resample(image, flattenedOnto: background)
            )
        }
    }
}

@Suite("Resized animations", .timeLimit(.minutes(5)))
struct ResizedFrameSourceTests {
    @Test("A base that fails hands out the frames before the failure, then its error on every call")
    func baseFailure() throws {
        for failAt in [0, 1, 2, 4] {
            let source = FakeFrameSource(delaysMs: [10, 10, 10, 10, 10], format: .gif, failAt: failAt)
            let reader = try ResizedFrameSource(source, spec: ResizeSpec(width: "50%")).makeFrameReader(depth: nil)
            var levels: [UInt8] = []
            var failures = 0
            for _ in 0..<8 {
                do {
                    guard let frame = try reader.nextFrame() else { break }
                    levels.append(frame.image.pixel8(x: 1, y: 0)[0])
                } catch {
                    #expect(error.code == .corrupt)
                    failures += 1
                }
            }
            // Frame i is grey level i, resized in order, however far ahead the reader works.
            #expect(levels == (0..<failAt).map { UInt8($0) }, "fail at \(failAt)")
            #expect(failures == 8 - failAt, "fail at \(failAt): the error again on every later call")
        }
    }

    @Test("Frames are the base's, resized in order; a reader dropped early releases the base's")
    func readsAheadInOrder() async throws {
        let source = FakeFrameSource(delaysMs: Array(repeating: 10, count: 12), format: .gif)
        let resized = try ResizedFrameSource(source, spec: ResizeSpec(width: "50%"))
        do {
            let reader = try resized.makeFrameReader(depth: nil)
            var levels: [UInt8] = []
            while let frame = try reader.nextFrame() { levels.append(frame.image.pixel8(x: 1, y: 0)[0]) }
            #expect(levels == (0..<12).map { UInt8($0) })
            #expect(try reader.nextFrame() == nil)
        }
        #expect(try await waitUntil { source.recorder.snapshot.readersAlive == 0 })
        // A reader dropped after one frame releases the base reader (and the frame it had
        // composited ahead).
        var early: (any FrameReader)? = try resized.makeFrameReader(depth: nil)
        #expect(try early?.nextFrame()?.index == 0)
        early = nil
        #expect(try await waitUntil(timeout: .seconds(60)) { source.recorder.snapshot.readersAlive == 0 })
    }

    @Test("Frames, delays and plays are kept; regions are the whole new canvas")
    func keepsTiming() async throws {
        let source = FakeFrameSource(delaysMs: [30, 70, 120, 10], format: .gif, plays: 3)
        let resized = try ResizedFrameSource(source, spec: ResizeSpec(width: "50%"))
        #expect(resized.info.width == 2 && resized.info.height == 1)
        #expect(resized.info.frameCount == 4)
        #expect(resized.info.plays == 3)
        #expect(resized.info.frames.map(\.delay) == [30, 70, 120, 10].map { .milliseconds($0) })
        #expect(resized.info.frames.allSatisfy { $0.region == FrameRegion(x: 0, y: 0, width: 2, height: 1) })
        let reader = try resized.makeFrameReader(depth: nil)
        var count = 0
        while let frame = try reader.nextFrame() {
            #expect(frame.image.width == 2 && frame.image.height == 1)
            #expect(frame.info.delay == .milliseconds([30, 70, 120, 10][count]))
            // Frame i is solid grey level i: resizing a solid colour keeps it.
            #expect(frame.image.pixel8(x: 1, y: 0) == [UInt8(count), UInt8(count), 0, 255])
            count += 1
        }
        #expect(count == 4)

        // Written as an APNG through the registry and read back: the same timing.
        let bytes = try await resized.encodedPNG()
        let reread = try ImageSource(data: bytes, name: "resized.png")
        #expect(reread.info.width == 2 && reread.info.height == 1)
        #expect(reread.info.frameCount == 4)
        #expect(reread.info.plays == 3)
        #expect(reread.info.frames.map(\.delay) == [30, 70, 120, 10].map { .milliseconds($0) })
    }

    @Test("Limits on the resized animation are checked when the source is made")
    func animationLimits() throws {
        let source = FakeFrameSource(delaysMs: [10, 10, 10], format: .gif)
        let error = #expect(throws: ImgToolError.self) {
            try ResizedFrameSource(
                source, spec: ResizeSpec(width: "100"), limits: DecodingLimits(maxTotalPixels: 1000))
        }
        #expect(error?.code == .tooLarge)
    }
}

@Suite("ResizeSpec")
struct ResizeSpecTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var width: String?
        var height: String?
        var size: String?
        var fit: String?
        var source: PixelSize
        var expected: String
        var testDescription: String {
            "w \(width ?? "-") h \(height ?? "-") size \(size ?? "-") fit \(fit ?? "-") of \(source) -> \(expected)"
        }
    }

    static let cases: [Case] = [
        Case(w: "100", h: nil, s: nil, f: nil, PixelSize(width: 400, height: 300), "100x75"),
        Case(w: nil, h: "100", s: nil, f: nil, PixelSize(width: 400, height: 300), "133x100"),
        Case(w: "50%", h: nil, s: nil, f: nil, PixelSize(width: 101, height: 51), "51x26"),
        Case(w: "200%", h: "50%", s: nil, f: "fill", PixelSize(width: 10, height: 10), "20x5"),
        Case(w: nil, h: nil, s: "50%", f: nil, PixelSize(width: 640, height: 480), "320x240"),
        Case(w: nil, h: nil, s: "256", f: nil, PixelSize(width: 4096, height: 2048), "256x128"),
        Case(w: nil, h: nil, s: "256", f: nil, PixelSize(width: 100, height: 50), "100x50"),
        Case(w: nil, h: nil, s: "256", f: "contain", PixelSize(width: 100, height: 50), "256x128"),
        Case(w: nil, h: nil, s: "640x480", f: nil, PixelSize(width: 1920, height: 1080), "640x360"),
        Case(w: nil, h: nil, s: "640x480", f: "inside", PixelSize(width: 320, height: 240), "320x240"),
        Case(w: nil, h: nil, s: "640x480", f: "contain", PixelSize(width: 320, height: 240), "640x480"),
        Case(w: nil, h: nil, s: "640x480", f: "fill", PixelSize(width: 1920, height: 1080), "640x480"),
        Case(
            w: nil, h: nil, s: "640x480", f: "cover", PixelSize(width: 1920, height: 1080),
            "640x480 of 853x480 at 106,0"),
        Case(
            w: nil, h: nil, s: "100x100", f: "cover", PixelSize(width: 50, height: 200), "100x100 of 100x400 at 0,150"),
        Case(w: nil, h: nil, s: "x100", f: nil, PixelSize(width: 50, height: 200), "25x100"),
        Case(w: nil, h: nil, s: "30x", f: nil, PixelSize(width: 50, height: 200), "30x120"),
        Case(w: "1", h: nil, s: nil, f: nil, PixelSize(width: 4000, height: 1), "1x1"),
        Case(w: nil, h: "1", s: nil, f: nil, PixelSize(width: 4000, height: 1), "4000x1"),
        Case(w: "3", h: nil, s: nil, f: nil, PixelSize(width: 4000, height: 10), "3x1"),
        Case(w: "500", h: nil, s: nil, f: "inside", PixelSize(width: 100, height: 80), "100x80"),
        Case(w: "500", h: nil, s: nil, f: nil, PixelSize(width: 100, height: 80), "500x400"),
        Case(w: nil, h: nil, s: "1x1", f: "cover", PixelSize(width: 4000, height: 1), "1x1 of 4000x1 at 1999,0"),
    ]

    @Test("Resolution", arguments: cases)
    func resolves(_ spec: Case) throws {
        let parsed = try ResizeSpec(width: spec.width, height: spec.height, size: spec.size, fit: spec.fit)
        #expect(try parsed.resolve(against: spec.source).description == spec.expected)
    }

    @Test(
        "Malformed input is refused, naming the option",
        arguments: [
            (nil, nil, "abc", nil, "--size"), ("0", nil, nil, nil, "--width"), (nil, "-5", nil, nil, "--height"),
            ("10.5", nil, nil, nil, "--width"), (nil, nil, "10x10", "stretch", "fit"), ("10", nil, "10", nil, "--size"),
            (nil, nil, "x", nil, "--size"), (nil, nil, "0%", nil, "--size"), (nil, nil, nil, nil, "width"),
        ] as [(String?, String?, String?, String?, String)])
    func refusesMalformed(width: String?, height: String?, size: String?, fit: String?, named: String) {
        let error = #expect(throws: ImgToolError.self) {
            try ResizeSpec(width: width, height: height, size: size, fit: fit)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(named) == true, "\(error?.message ?? "")")
    }

    @Test("Filter names and synonyms")
    func filterNames() throws {
        for filter in ResampleFilter.allCases { #expect(try ResampleFilter(named: filter.rawValue) == filter) }
        #expect(try ResampleFilter(named: "Lanczos") == .lanczos3)
        #expect(try ResampleFilter(named: "triangle") == .bilinear)
        #expect(try ResampleFilter(named: "area") == .box)
        #expect(throws: ImgToolError.self) { try ResampleFilter(named: "sharpest") }
    }
}

extension ResizeSpecTests.Case {
    init(w: String?, h: String?, s: String?, f: String?, _ source: PixelSize, _ expected: String) {
        self.width = w
        self.height = h
        self.size = s
        self.fit = f
        self.source = source
        self.expected = expected
    }
}
