import TestSupport
import Testing

@testable import ImgToolKit

/// Frames held in memory, as any decoder would hand them over: for writer tests.
private struct ArrayFrameSource: FrameSource {
    var info: ImageInfo
    let images: [PixelBuffer]

    init(format: ImageFormat = .apng, images: [PixelBuffer], delaysMs: [Int], plays: Int = 0) {
        let width = images[0].width
        let height = images[0].height
        let frames = delaysMs.enumerated().map { index, delay in
            FrameInfo(
                index: index, delay: .milliseconds(delay),
                region: FrameRegion(x: 0, y: 0, width: width, height: height),
                disposal: .none, blend: .source)
        }
        info = ImageInfo(
            format: format, width: width, height: height, bitDepth: 8, colorType: .rgba, frames: frames,
            loopValue: plays, plays: plays)
        self.images = images
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        Reader(source: self)
    }

    final class Reader: FrameReader {
        let source: ArrayFrameSource
        var next = 0
        init(source: ArrayFrameSource) { self.source = source }
        func nextFrame() throws(ImgToolError) -> Frame? {
            guard next < source.images.count else { return nil }
            defer { next += 1 }
            return Frame(info: source.info.frames[next], image: source.images[next])
        }
    }
}

/// What a file decodes to.
private struct Decoded: Equatable {
    var frames: [PixelBuffer]
    var delaysMs: [Double]
    var plays: Int
}

private func decode(_ bytes: [UInt8], name: String = "out.gif") throws -> Decoded {
    let source = try ImageSource(data: bytes, name: name)
    let reader = try source.makeFrameReader(depth: .eight)
    var frames: [PixelBuffer] = []
    while let frame = try reader.nextFrame() { frames.append(normalized(frame.image)) }
    return Decoded(frames: frames, delaysMs: source.info.frames.map(\.delayMilliseconds), plays: source.info.plays)
}

/// Every pixel with alpha 0 as transparent black, as a GIF decodes it.
private func normalized(_ image: PixelBuffer) -> PixelBuffer {
    guard case .rgba8(var samples) = image.samples else { return image }
    for position in stride(from: 0, to: samples.count, by: 4) where samples[position + 3] == 0 {
        samples[position] = 0
        samples[position + 1] = 0
        samples[position + 2] = 0
    }
    return PixelBuffer(width: image.width, height: image.height, rgba8: samples)
}

private func writeGIF(_ source: any FrameSource, _ options: ImageWriteOptions = ImageWriteOptions()) async throws
    -> [UInt8]
{
    var sink = ByteSink()
    try await GIFCodec().write(source, into: &sink, options: options, progress: nil)
    return sink.bytes
}

/// A deterministic pseudo-random generator for test pictures.
private struct Noise {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}

/// A `width` x `height` frame whose pixels are drawn from `colors` (RGBA each) at random.
private func randomImage(_ width: Int, _ height: Int, colors: [[UInt8]], seed: UInt64) -> PixelBuffer {
    var noise = Noise(state: seed)
    var samples: [UInt8] = []
    for _ in 0..<width * height { samples += colors[Int(noise.next() % UInt64(colors.count))] }
    return PixelBuffer(width: width, height: height, rgba8: samples)
}

private func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
    guard haystack.count >= needle.count else { return 0 }
    return (0...haystack.count - needle.count).filter { haystack[$0..<$0 + needle.count].elementsEqual(needle) }.count
}

@Suite(.timeLimit(.minutes(5)))
struct GIFWriterTests {
    @Test func gifRoundTripKeepsFramesDelaysAndPlays() async throws {
        var gif = GIFBuilder(width: 6, height: 4, globalColors: [(255, 0, 0), (0, 255, 0), (0, 0, 255), (9, 9, 9)])
        gif.loop(2)
        gif.control(delay: 0)
        gif.image(width: 6, height: 4, indices: (0..<24).map { UInt8($0 % 3) })
        gif.control(delay: 7, disposal: 2, transparent: 3)
        gif.image(x: 1, y: 1, width: 3, height: 2, indices: [3, 1, 1, 3, 0, 2])
        gif.control(delay: 250, transparent: 0)
        gif.image(
            x: 2, y: 0, width: 2, height: 2, indices: [0, 1, 2, 0],
            localColors: [(1, 2, 3), (200, 100, 50), (7, 7, 7), (0, 0, 0)])
        let input = gif.build()
        let source = try ImageSource(data: input, name: "in.gif")
        let written = try await writeGIF(source)
        let expected = try decode(input, name: "in.gif")
        let actual = try decode(written)
        #expect(actual == expected)
        #expect(actual.delaysMs == [0, 70, 2500])
        #expect(actual.plays == 3)
        #expect(written.starts(with: Array("GIF89a".utf8)))
    }

    @Test func framesThatFitOnlyOneByOneGetLocalPalettes() async throws {
        // Two frames of 200 colours each, 400 in all: exact, each frame with its own table.
        let first = (0..<200).map { [UInt8($0), 10, 20, 255] }
        let second = (0..<200).map { [30, UInt8($0), 40, 255] }
        let images = [
            randomImage(40, 30, colors: first, seed: 1), randomImage(40, 30, colors: second, seed: 2),
            randomImage(40, 30, colors: first, seed: 3),
        ]
        let source = ArrayFrameSource(images: images, delaysMs: [100, 200, 300])
        let written = try await writeGIF(source)
        let decoded = try decode(written)
        #expect(decoded.frames == images)
        #expect(decoded.delaysMs == [100, 200, 300])
    }

    /// `image` with the `side` x `side` square at (`x`, `y`) redrawn from `colors` at random.
    private func patched(_ image: PixelBuffer, x: Int, y: Int, side: Int, colors: [[UInt8]], seed: UInt64)
        -> PixelBuffer
    {
        guard case .rgba8(var samples) = image.samples else { return image }
        let patch = randomImage(side, side, colors: colors, seed: seed)
        guard case .rgba8(let patchSamples) = patch.samples else { return image }
        for row in 0..<side {
            let to = ((y + row) * image.width + x) * 4
            samples.replaceSubrange(to..<to + side * 4, with: patchSamples[row * side * 4..<(row + 1) * side * 4])
        }
        return PixelBuffer(width: image.width, height: image.height, rgba8: samples)
    }

    @Test func framesWhoseChangesFitAreExactThoughTheCanvasDoesNot() async throws {
        // 200 colours, then 150 new ones drawn over a corner, then 150 more: the later canvases
        // hold 350 and 500 colours, but what each frame changes fits a local table.
        let base = (0..<200).map { [UInt8($0), 10, 20, 255] }
        let more = (0..<150).map { [30, UInt8($0), 40, 255] }
        let most = (0..<150).map { [50, 60, UInt8($0), 255] }
        let first = randomImage(48, 32, colors: base, seed: 1)
        let second = patched(first, x: 2, y: 3, side: 16, colors: more, seed: 2)
        let third = patched(second, x: 20, y: 10, side: 20, colors: most, seed: 3)
        let images = [first, second, third, second]
        let source = ArrayFrameSource(images: images, delaysMs: [100, 200, 300, 400])
        let decoded = try decode(try await writeGIF(source))
        #expect(decoded.frames == images)
        #expect(decoded.delaysMs == [100, 200, 300, 400])
    }

    @Test func aFrameAfterAQuantizedOneIsJudgedWhole() async throws {
        // Frame 0 has 400 colours and is quantized; frame 1 changes a few pixels to colours
        // that would fit a local table, but the canvas under it is not frame 0, so it is
        // quantized too, and the file still decodes with both frames.
        let many = (0..<400).map { [UInt8($0 % 256), UInt8($0 / 256 * 100), 20, 255] }
        let first = randomImage(40, 30, colors: many, seed: 4)
        let second = patched(first, x: 0, y: 0, side: 4, colors: [[1, 2, 3, 255]], seed: 5)
        let source = ArrayFrameSource(images: [first, second], delaysMs: [100, 100])
        let decoded = try decode(try await writeGIF(source))
        #expect(decoded.frames.count == 2)
        #expect(decoded.frames[0] != first)
    }

    @Test func transparencyComesAndGoesExactly() async throws {
        let red: [UInt8] = [255, 0, 0, 255]
        let clear: [UInt8] = [0, 0, 0, 0]
        let blue: [UInt8] = [0, 0, 255, 255]
        let images = [
            APNGBuilder.image([[red, red, clear], [red, red, clear]]),
            APNGBuilder.image([[clear, red, blue], [clear, clear, blue]]),
            APNGBuilder.image([[red, clear, clear], [clear, clear, clear]]),
            APNGBuilder.image([[blue, blue, blue], [blue, blue, blue]]),
        ]
        let source = ArrayFrameSource(images: images, delaysMs: [50, 50, 50, 50])
        let decoded = try decode(try await writeGIF(source))
        #expect(decoded.frames == images)
    }

    @Test func lossyKeepsEveryPixelWithinItsErrorAndTransparencyExactly() async throws {
        // Three frames of a dithered ramp (120 greys, so the exact file needs no quantizing),
        // with transparent holes that move
        func frame(_ shift: Int, seed: UInt64) -> PixelBuffer {
            var noise = Noise(state: seed)
            var samples: [UInt8] = []
            for y in 0..<48 {
                for x in 0..<96 {
                    let hole = ((x + shift) / 12 + y / 12) % 5 == 0
                    let grey = UInt8(min(119, (x + shift) % 96 + Int(noise.next() % 24)) * 2)
                    samples += hole ? [0, 0, 0, 0] : [grey, grey, grey, 255]
                }
            }
            return PixelBuffer(width: 96, height: 48, rgba8: samples)
        }
        let images = [frame(0, seed: 1), frame(4, seed: 2), frame(9, seed: 3)]
        let source = ArrayFrameSource(images: images, delaysMs: [100, 100, 100])
        var options = ImageWriteOptions()
        let exact = try await writeGIF(source, options)
        options.lossy = 0
        #expect(try await writeGIF(source, options) == exact, "--lossy 0 is no --lossy")
        options.lossy = 80
        let lossy = try await writeGIF(source, options)
        #expect(Double(lossy.count) < Double(exact.count) * 0.85, "\(lossy.count) against \(exact.count) bytes")
        let decoded = try decode(lossy)
        #expect(decoded.frames.count == images.count)
        let bound = GIFLossy.maxError(for: 80) * 2.8 + 1e-4
        for (got, want) in zip(decoded.frames, images) {
            guard case .rgba8(let a) = got.samples, case .rgba8(let b) = want.samples else {
                Issue.record("not 8-bit RGBA")
                continue
            }
            var worst: Float = 0
            for position in stride(from: 0, to: a.count, by: 4) {
                #expect(a[position + 3] == b[position + 3], "alpha at \(position / 4)")
                guard b[position + 3] == 255 else { continue }
                let x = OkLab(red: Float(a[position]), green: Float(a[position + 1]), blue: Float(a[position + 2]))
                let y = OkLab(red: Float(b[position]), green: Float(b[position + 1]), blue: Float(b[position + 2]))
                worst = max(worst, x.distance(to: y))
            }
            #expect(worst <= bound, "an error of \(worst)")
        }
        // Out of range is refused
        options.lossy = 201
        await #expect(throws: ImgToolError.self) { try await writeGIF(source, options) }
    }

    @Test func alphaIsThresholdedOrFlattened() async throws {
        let image = APNGBuilder.image([[[10, 20, 30, 127], [10, 20, 30, 128], [200, 0, 0, 0]]])
        let source = ArrayFrameSource(images: [image], delaysMs: [0])
        let thresholded = try decode(try await writeGIF(source))
        #expect(thresholded.frames == [APNGBuilder.image([[[0, 0, 0, 0], [10, 20, 30, 255], [0, 0, 0, 0]]])])
        let flattened = try decode(try await writeGIF(source, ImageWriteOptions(background: .white)))
        #expect(
            flattened.frames == [
                APNGBuilder.image([[[133, 138, 143, 255], [132, 137, 142, 255], [255, 255, 255, 255]]])
            ])
    }

    @Test(arguments: [(1, nil), (3, 2), (0, 0), (65536, 65535)] as [(Int, Int?)])
    func playsMapToTheLoopExtension(plays: Int, loopValue: Int?) async throws {
        let images = [APNGBuilder.solid(2, 2, [1, 2, 3, 255]), APNGBuilder.solid(2, 2, [4, 5, 6, 255])]
        let source = ArrayFrameSource(images: images, delaysMs: [100, 100], plays: 7)
        let written = try await writeGIF(source, ImageWriteOptions(plays: plays))
        let netscape = Array("NETSCAPE2.0".utf8)
        if let loopValue {
            #expect(
                occurrences(of: netscape + [3, 1, UInt8(loopValue & 0xFF), UInt8(loopValue >> 8)], in: written) == 1)
        } else {
            #expect(occurrences(of: netscape, in: written) == 0)
        }
        #expect(try decode(written).plays == plays)
    }

    @Test func sourcePlaysAreKeptByDefault() async throws {
        let images = [APNGBuilder.solid(2, 2, [1, 2, 3, 255]), APNGBuilder.solid(2, 2, [4, 5, 6, 255])]
        let source = ArrayFrameSource(images: images, delaysMs: [100, 100], plays: 4)
        #expect(try decode(try await writeGIF(source)).plays == 4)
    }

    @Test func millisecondTimelinesRoundByRunningTotal() {
        let ms: (Int) -> Duration = { .milliseconds($0) }
        #expect(
            GIFTiming.centiseconds(for: Array(repeating: ms(33), count: 6), keepExactly: false) == [3, 4, 3, 3, 4, 3])
        // Play times under 20 ms are folded (WrittenTiming): each slot shows the frame on screen
        // when it starts, a short last slot joins the one before, and the total is kept.
        #expect(GIFTiming.centiseconds(for: [ms(0), ms(10), ms(100)], keepExactly: false) == [nil, 2, 9])
        #expect(GIFTiming.centiseconds(for: [ms(100), ms(5)], keepExactly: false) == [11, nil])
        #expect(GIFTiming.centiseconds(for: [ms(0), ms(10), ms(70)], keepExactly: true) == [0, 1, 7])
        #expect(GIFTiming.centiseconds(for: [ms(16), ms(17), ms(17)], keepExactly: false) == [2, 3, nil])
    }

    @Test func apngTimingFoldsShortFramesAndMergesIdenticalOnes() async throws {
        let a = APNGBuilder.solid(3, 3, [10, 10, 10, 255])
        let b = APNGBuilder.solid(3, 3, [20, 20, 20, 255])
        let c = APNGBuilder.solid(3, 3, [30, 30, 30, 255])
        // Play times: b is meant to show for 5 ms, so its slot lasts 20 ms and c starts 15 ms
        // late, at 93 ms; the total stays 178 ms (18 cs). The two a frames merge.
        var source = ArrayFrameSource(images: [a, a, b, c], delaysMs: [40, 33, 5, 100])
        source.info.delaysArePlayTimes = true
        var decoded = try decode(try await writeGIF(source))
        #expect(decoded.frames == [a, b, c])
        #expect(decoded.delaysMs == [70, 20, 90])
        // Read from an APNG file, the delays are folded and rounded the same way into a GIF.
        source.info.delaysArePlayTimes = false
        decoded = try decode(try await writeGIF(source))
        #expect(decoded.frames == [a, b, c])
        #expect(decoded.delaysMs == [70, 20, 90])
    }

    @Test func gifSourcesKeepIdenticalFramesOneForOne() async throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: [(0, 0, 0), (255, 255, 255)])
        for _ in 0..<3 {
            gif.control(delay: 1)
            gif.image(width: 2, height: 1, indices: [0, 1])
        }
        let input = gif.build()
        let decoded = try decode(try await writeGIF(try ImageSource(data: input, name: "in.gif")))
        #expect(decoded == (try decode(input)))
        #expect(decoded.delaysMs == [10, 10, 10])
    }

    @Test(arguments: ImageWriteOptions.Dither.allCases)
    func manyColoursAreQuantizedToAValidGIF(dither: ImageWriteOptions.Dither) async throws {
        // A gradient with thousands of colours that moves, on a static noisy background.
        let width = 64
        let height = 48
        var images: [PixelBuffer] = []
        for frame in 0..<4 {
            var samples: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let moving = x >= frame * 8 && x < frame * 8 + 16
                    samples += [UInt8(x * 4), UInt8(y * 5), UInt8(moving ? 255 - x * 2 : (x * y) % 256), 255]
                }
            }
            images.append(PixelBuffer(width: width, height: height, rgba8: samples))
        }
        let source = ArrayFrameSource(images: images, delaysMs: [40, 40, 40, 40])
        let written = try await writeGIF(source, ImageWriteOptions(colors: 64, dither: dither))
        let decoded = try decode(written)
        #expect(decoded.frames.count == 4)
        #expect(decoded.delaysMs == [40, 40, 40, 40])
        for (actual, wanted) in zip(decoded.frames, images) {
            guard case .rgba8(let got) = actual.samples, case .rgba8(let want) = wanted.samples else { continue }
            let error = zip(got, want).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            #expect(Double(error) / Double(got.count) < 16)
            // The first frame takes a palette of its own (it redraws everything, and the shared
            // palette serves the three frames' colours); the later ones draw their band with the
            // shared palette and keep the rest shown: the colours of two palettes of 64.
            #expect(Set(stride(from: 0, to: got.count, by: 4).map { got[$0..<$0 + 4].map(\.self) }).count <= 128)
        }
        // Every colour table holds at most 64 colours (and the transparent entry, black padding).
        let globalEntries = written[10] & 0x80 != 0 ? 2 << Int(written[10] & 7) : 0
        let global = (0..<globalEntries).map { Array(written[13 + $0 * 3..<16 + $0 * 3]) }
        for table in [global] + localTableColors(written).compactMap({ $0 }) {
            #expect(Set(table).count <= 65)
        }
        // The static left column area does not flicker between frames 2 and 3.
        guard case .rgba8(let two) = decoded.frames[2].samples, case .rgba8(let three) = decoded.frames[3].samples
        else { return }
        for y in 0..<height {
            let row = y * width * 4
            #expect(two[row..<row + 8 * 4] == three[row..<row + 8 * 4])
        }
    }

    /// Whether each image of a GIF carries a local colour table, in file order.
    private func localTables(_ gif: [UInt8]) -> [Bool] {
        localTableColors(gif).map { $0 != nil }
    }

    /// Each image's local colour table as RGB triples (with its padding entries), or `nil`.
    private func localTableColors(_ gif: [UInt8]) -> [[[UInt8]]?] {
        var tables: [[[UInt8]]?] = []
        var position = 13
        if gif[10] & 0x80 != 0 { position += 3 << (Int(gif[10] & 7) + 1) }
        func skipSubBlocks() {
            while position < gif.count, gif[position] != 0 { position += Int(gif[position]) + 1 }
            position += 1
        }
        while position < gif.count {
            switch gif[position] {
            case 0x21:
                position += 2
                skipSubBlocks()
            case 0x2C:
                let packed = gif[position + 9]
                position += 10
                if packed & 0x80 != 0 {
                    let entries = 2 << Int(packed & 7)
                    tables.append((0..<entries).map { Array(gif[position + $0 * 3..<position + $0 * 3 + 3]) })
                    position += entries * 3
                } else {
                    tables.append(nil)
                }
                position += 1
                skipSubBlocks()
            default:
                return tables
            }
        }
        return tables
    }

    @Test func framesWhoseColoursWanderGetPalettesOfTheirOwn() async throws {
        // Two scenes of 400 colours each (every colour in a histogram bin of its own), reds,
        // then blues, then reds, each redrawing the whole canvas: one shared palette of 255
        // gives a scene part of that, a palette of its own 255 for its 400 colours.
        let reds: [[UInt8]] = (0..<400).map { (index: Int) -> [UInt8] in
            [UInt8((16 + index % 16) * 8 + 4), UInt8(index / 16 * 8 + 4), 30, 255]
        }
        let blues: [[UInt8]] = (0..<400).map { (index: Int) -> [UInt8] in
            [20, UInt8(index / 16 * 8 + 4), UInt8((16 + index % 16) * 8 + 4), 255]
        }
        let images = [
            randomImage(64, 48, colors: reds, seed: 7), randomImage(64, 48, colors: blues, seed: 8),
            randomImage(64, 48, colors: reds, seed: 9),
        ]
        let written = try await writeGIF(
            ArrayFrameSource(images: images, delaysMs: [100, 100, 100]), ImageWriteOptions(dither: .none))
        // The blue frame, a third of what the shared palette serves, gets a table of its own
        // (the red ones may or may not: reds are two thirds of the shared palette).
        let tables = localTables(written)
        #expect(tables.count == 3 && tables[1])
        let decoded = try decode(written)
        for ((actual, wanted), ownTable) in zip(zip(decoded.frames, images), tables) {
            guard case .rgba8(let got) = actual.samples, case .rgba8(let want) = wanted.samples else { continue }
            let error = Double(zip(got, want).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(got.count)
            // Measured: 0.70-0.75 with a table of its own; 1.51, 2.07 and 1.52 when every frame
            // is mapped to the shared palette.
            #expect(error < (ownTable ? 1.0 : 2.5))
        }
    }

    @Test func aFrameWithAPaletteOfItsOwnIsMappedWhole() async throws {
        // Reds, then a frame whose left quarter is the same reds and the rest blues, then reds:
        // the middle frame gets a table of its own. Pixels kept from the shared palette beside
        // pixels mapped onto the frame's own quantize one colour two ways (seams a viewer
        // sees), so every pixel it shows is a colour of its own table, unchanged ones included.
        let reds: [[UInt8]] = (0..<400).map { (index: Int) -> [UInt8] in
            [UInt8((16 + index % 16) * 8 + 4), UInt8(index / 16 * 8 + 4), 30, 255]
        }
        let blues: [[UInt8]] = (0..<400).map { (index: Int) -> [UInt8] in
            [20, UInt8(index / 16 * 8 + 4), UInt8((16 + index % 16) * 8 + 4), 255]
        }
        let (width, height) = (64, 48)
        let first = randomImage(width, height, colors: reds, seed: 7)
        guard case .rgba8(let left) = first.samples,
            case .rgba8(var mixed) = randomImage(width, height, colors: blues, seed: 8).samples
        else { return }
        for y in 0..<height {
            let row = y * width * 4
            mixed.replaceSubrange(row..<row + width, with: left[row..<row + width])
        }
        let images = [
            first, PixelBuffer(width: width, height: height, rgba8: mixed),
            randomImage(width, height, colors: reds, seed: 9),
        ]
        let written = try await writeGIF(
            ArrayFrameSource(images: images, delaysMs: [100, 100, 100]), ImageWriteOptions(dither: .none))
        let tables = localTableColors(written)
        let own = try #require(tables.count == 3 ? tables[1] : nil)
        let decoded = try decode(written)
        guard case .rgba8(let shown) = decoded.frames[1].samples else { return }
        // Every pixel shown is a colour of the frame's own palette: one written in its table, or
        // one already on the canvas that its own palette maps the pixel to (shown through the
        // transparent index, so the written table need not hold it). Pixels left over from the
        // shared palette's mapping would add colours of that palette: more than one palette's
        // worth in all.
        #expect(own.count <= 256)
        let colours = Set(stride(from: 0, to: shown.count, by: 4).map { Array(shown[$0..<$0 + 3]) })
        #expect(colours.count <= 255, "frame 1 shows \(colours.count) colours: more than its own palette holds")
    }

    @Test func aSharedPaletteStaysWhereOwnPalettesDoNotPay() async throws {
        // The same 400 colours in every frame (a camera panning over one picture): the global
        // table serves them all.
        let colors: [[UInt8]] = (0..<400).map { (index: Int) -> [UInt8] in
            [UInt8(index % 256), UInt8(index * 7 % 256), UInt8(index / 2), 255]
        }
        let images = (0..<3).map { randomImage(64, 48, colors: colors, seed: UInt64(20 + $0)) }
        let written = try await writeGIF(ArrayFrameSource(images: images, delaysMs: [100, 100, 100]))
        #expect(localTables(written) == [false, false, false])
        #expect(try decode(written).frames.count == 3)
    }

    @Test(arguments: [0, 2 * 40 * 30 * 4, 64 << 20])
    func readingTheSourceAgainOrKeepingFramesWritesTheSameFile(keptBytes: Int) throws {
        // Frames that fit, then frames that are quantized, then a repeat: whichever frames pass 1
        // keeps, pass 2 writes the same bytes as when it reads every frame again.
        let few = (0..<20).map { [UInt8($0 * 10), 40, 90, 255] }
        let many = (0..<600).map { [UInt8($0 % 256), UInt8($0 / 3 % 256), 77, 255] }
        let images = [
            randomImage(40, 30, colors: few, seed: 11), randomImage(40, 30, colors: many, seed: 12),
            randomImage(40, 30, colors: many, seed: 13), randomImage(40, 30, colors: few, seed: 14),
            randomImage(40, 30, colors: few, seed: 14),
        ]
        // Play times: the frame of 0 ms is folded away (read from an APNG, it would show 100 ms).
        var source = ArrayFrameSource(images: images, delaysMs: [100, 0, 50, 100, 100])
        source.info.delaysArePlayTimes = true
        let (everything, kept) = try bothWrites(
            source, GIFWriter(options: ImageWriteOptions()), setting: \.keptBytes, 0, keptBytes)
        #expect(kept == everything)
        #expect(try decode(kept).frames.count == 3)
    }

    /// `source` written by `writer` with `setting` at `first`, then at `second`.
    private func bothWrites<Value>(
        _ source: some FrameSource, _ writer: GIFWriter, setting: WritableKeyPath<GIFWriter, Value>, _ first: Value,
        _ second: Value
    ) throws -> ([UInt8], [UInt8]) {
        var writer = writer
        var one = ByteSink()
        writer[keyPath: setting] = first
        try writer.write(source, into: &one, progress: nil)
        var other = ByteSink()
        writer[keyPath: setting] = second
        try writer.write(source, into: &other, progress: nil)
        return (one.bytes, other.bytes)
    }

    @Test(arguments: [ImageWriteOptions.Dither.ordered, .none, .diffusion])
    func twoThreadsWriteTheBytesOfOne(dither: ImageWriteOptions.Dither) throws {
        // 320x200 frames (past both thresholds for a second thread): a noisy gradient whose hue
        // jumps in frames 1 and 2 (whole frames change: palettes of their own), then changes
        // only in a band (mapped onto the shared palette, the rest kept), a corner never.
        var random = SeededRandom(seed: 21)
        let noise = (0..<320 * 200).map { _ in Int(random.next() % 12) }
        let images = (0..<6).map { frame -> PixelBuffer in
            var samples = [UInt8](repeating: 255, count: 320 * 200 * 4)
            for y in 0..<200 {
                for x in 0..<320 {
                    let at = (y * 320 + x) * 4
                    let still = x < 60 && y < 40
                    let shift = still ? 0 : frame < 3 || (100..<130).contains(y) ? frame * 70 : 140
                    let noise = noise[y * 320 + x]
                    samples[at] = UInt8((x * 255 / 320 + shift + noise) % 256)
                    samples[at + 1] = UInt8((y * 255 / 200 + shift * 2) % 256)
                    samples[at + 2] = UInt8(((x + y) * 128 / 520 + shift / 2 + noise) % 256)
                }
            }
            return PixelBuffer(width: 320, height: 200, rgba8: samples)
        }
        let source = ArrayFrameSource(images: images, delaysMs: [80, 80, 80, 80, 80, 80])
        var options = ImageWriteOptions()
        options.dither = dither
        let (parallel, serial) = try bothWrites(source, GIFWriter(options: options), setting: \.inParallel, true, false)
        #expect(parallel == serial)
        #expect(try decode(parallel).frames.count == 6)
    }

    @Test func aHistogramEmptiedForReuseCountsAsANewOne() {
        var random = SeededRandom(seed: 5)
        func pixels(_ count: Int) -> [UInt32] {
            (0..<count).map { _ in GIFPixel.opaque(UInt8(random.next() % 256), UInt8(random.next() % 256), 200) }
        }
        var reused = GIFHistogram()
        for pixel in pixels(5000) { reused.add(pixel, weight: 3) }
        reused.removeAll()
        var fresh = GIFHistogram()
        for pixel in pixels(700) {
            reused.add(pixel, weight: 1)
            fresh.add(pixel, weight: 1)
        }
        #expect(reused.points.colors == fresh.points.colors)
        #expect(reused.points.weights == fresh.points.weights)
    }

    @Test("a frame added to a histogram in one call counts as its pixels added one at a time")
    func bulkAddsMatchPixelByPixel() {
        var random = SeededRandom(seed: 11)
        func frame(_ count: Int) -> [UInt32] {
            (0..<count).map { _ in
                random.next() % 5 == 0
                    ? 0
                    : GIFPixel.opaque(UInt8(random.next() % 256), UInt8(random.next() % 64), UInt8(random.next() % 256))
            }
        }
        let now = frame(3000)
        var before = frame(3000)
        for position in stride(from: 0, to: before.count, by: 3) { before[position] = now[position] }

        var bulk = GIFHistogram()
        now.withUnsafeBufferPointer { bulk.addOpaque($0) }
        var single = GIFHistogram()
        for pixel in now where pixel != 0 { single.add(pixel, weight: 1) }
        #expect(bulk.points.colors == single.points.colors)
        #expect(bulk.points.weights == single.points.weights)

        for previous in [before, []] {
            var changes = GIFHistogram()
            changes.add(changesOf: now, since: previous, weight: 7)
            var expected = GIFHistogram()
            for (position, pixel) in now.enumerated() where pixel != 0 {
                if previous.isEmpty || previous[position] != pixel {
                    expected.add(pixel, weight: 7)
                } else if position % 8 == 0 {
                    expected.add(pixel, weight: 7 * 0.8)
                }
            }
            #expect(changes.points.colors == expected.points.colors)
            #expect(changes.points.weights == expected.points.weights)
        }
    }

    @Test("a sample's distinct colours come in the order they first occur, each with its count")
    func distinctColoursAreCounted() {
        #expect(GIFPaletteMapper.distinct([]).colors.isEmpty)
        let (colors, counts) = GIFPaletteMapper.distinct([5, 7, 5, 9, 7, 5])
        #expect(colors == [5, 7, 9])
        #expect(counts == [3, 2, 1])
        // Many colours, some repeated, against a dictionary's count.
        var random = SeededRandom(seed: 12)
        let pixels = (0..<5000).map { _ in GIFPixel.opaque(UInt8(random.next() % 40), UInt8(random.next() % 40), 7) }
        let counted = GIFPaletteMapper.distinct(pixels)
        var expected: [UInt32: Int] = [:]
        for pixel in pixels { expected[pixel, default: 0] += 1 }
        #expect(counted.colors.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: zip(counted.colors, counted.counts)) == expected)
        var firstSeen: [UInt32] = []
        var seen = Set<UInt32>()
        for pixel in pixels where seen.insert(pixel).inserted { firstSeen.append(pixel) }
        #expect(counted.colors == firstSeen)
    }

    @Test func largeNoiseRoundTripsThroughTableResets() async throws {
        let colors = (0..<256).map { [UInt8($0), UInt8(255 - $0), UInt8($0 / 2), 255] }
        let image = randomImage(300, 200, colors: colors, seed: 9)
        let source = ArrayFrameSource(images: [image], delaysMs: [0], plays: 1)
        let written = try await writeGIF(source)
        #expect(try decode(written).frames == [image])
        #expect(String(decoding: written.prefix(6), as: UTF8.self) == "GIF87a")
    }

    @Test(arguments: [1, 257])
    func colourCountsOutsideTheRangeAreRefused(colors: Int) async throws {
        let source = ArrayFrameSource(images: [APNGBuilder.solid(1, 1, [0, 0, 0, 255])], delaysMs: [0])
        let error = await #expect(throws: ImgToolError.self) {
            try await writeGIF(source, ImageWriteOptions(colors: colors))
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test(arguments: [(0, 1), (70000, 1)] as [(Int, Int)])
    func canvasesAGIFCannotHoldAreRefused(width: Int, height: Int) async throws {
        let source = ArrayFrameSource(images: [PixelBuffer(width: width, height: height)], delaysMs: [0])
        let error = await #expect(throws: ImgToolError.self) { try await writeGIF(source) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("\(width)x\(height)") == true)
    }

    @Test func theRegistryWritesGIFByExtension() throws {
        let codec = try CodecRegistry.standard.writer(forOutput: "out.gif")
        #expect(codec.format == .gif)
        #expect(codec.capabilities.isSuperset(of: [.write, .writeAnimation, .writeAlpha]))
    }
}

/// The layout of a GIF the writer made: the screen's background index, the global table's
/// entries, and each image's rectangle, LZW minimum code size and transparent index.
private struct Layout {
    struct Image: Equatable {
        var x: Int, y: Int, width: Int, height: Int
        var codeSize: Int
        var transparent: UInt8?
        var hasLocalTable: Bool
    }
    var background: UInt8
    var globalEntries: Int
    var images: [Image] = []

    init(_ gif: [UInt8]) {
        background = gif[11]
        globalEntries = gif[10] & 0x80 != 0 ? 2 << Int(gif[10] & 7) : 0
        var position = 13 + globalEntries * 3
        var transparent: UInt8?
        func skipSubBlocks() {
            while position < gif.count, gif[position] != 0 { position += Int(gif[position]) + 1 }
            position += 1
        }
        func word(_ at: Int) -> Int { Int(gif[at]) | Int(gif[at + 1]) << 8 }
        while position < gif.count {
            switch gif[position] {
            case 0x21:
                if gif[position + 1] == 0xF9 { transparent = gif[position + 3] & 1 != 0 ? gif[position + 6] : nil }
                position += 2
                skipSubBlocks()
            case 0x2C:
                let packed = gif[position + 9]
                var image = Image(
                    x: word(position + 1), y: word(position + 3), width: word(position + 5),
                    height: word(position + 7), codeSize: 0, transparent: transparent,
                    hasLocalTable: packed & 0x80 != 0)
                position += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0)
                image.codeSize = Int(gif[position])
                position += 1
                skipSubBlocks()
                images.append(image)
                transparent = nil
            default:
                return
            }
        }
    }
}

@Suite("GIF writer: layout choices", .timeLimit(.minutes(5)))
struct GIFWriterLayoutTests {
    private static let red: [UInt8] = [255, 0, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255]
    private static let clear: [UInt8] = [0, 0, 0, 0]

    @Test("frame 0 is stored as the rectangle of its visible pixels; the background index names its transparent index")
    func firstFrameCropped() async throws {
        let (r, b, c) = (Self.red, Self.blue, Self.clear)
        let image = APNGBuilder.image([
            [c, c, c, c, c, c], [c, c, r, b, c, c], [c, c, b, r, c, c], [c, c, c, c, c, c], [c, c, c, c, c, c],
        ])
        let gif = try await writeGIF(ArrayFrameSource(images: [image], delaysMs: [0]))
        let layout = Layout(gif)
        let frame = try #require(layout.images.first)
        #expect((frame.x, frame.y, frame.width, frame.height) == (2, 1, 2, 2))
        let transparent = try #require(frame.transparent)
        #expect(!frame.hasLocalTable && layout.background == transparent)
        #expect(try decode(gif).frames == [image])
    }

    @Test("a frame drawing two colours of a large table has them at its first indices: a 2-bit code size")
    func fewColoursLowIndices() async throws {
        var colors: [[UInt8]] = (0..<200).map { [UInt8($0), UInt8(255 - $0), UInt8($0 / 3), 255] }
        colors.swapAt(0, 150)
        let first = randomImage(20, 20, colors: colors, seed: 7)
        guard case .rgba8(var samples) = first.samples else { return }
        var noise = Noise(state: 9)
        for y in 5..<15 {
            for x in 5..<15 {
                let color = noise.next() % 2 == 0 ? colors[120] : colors[199]
                samples.replaceSubrange((y * 20 + x) * 4..<(y * 20 + x) * 4 + 4, with: color)
            }
        }
        let second = PixelBuffer(width: 20, height: 20, rgba8: samples)
        let gif = try await writeGIF(ArrayFrameSource(images: [first, second], delaysMs: [100, 100]))
        let layout = Layout(gif)
        #expect(layout.images.count == 2)
        #expect(layout.images.last?.codeSize == 2)
        #expect(layout.images.last?.hasLocalTable == false)
        #expect(try decode(gif).frames == [first, second])
    }

    /// Seeded random animations that reach the writer's choices: frame 0 with transparent
    /// borders (cropped), few colours and many (code sizes, local tables, a transparent index
    /// borrowed from a colour a frame does not draw), pixels turned transparent (clearing), runs
    /// and noise (flexible parsing), and one canvas large enough to choose its way on a sample.
    @Test("random animations: every frame back exactly", arguments: 0..<24)
    func randomAnimationsRoundTrip(seed: Int) async throws {
        var noise = Noise(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        func below(_ n: Int) -> Int { Int(noise.next() % UInt64(max(n, 1))) }
        let large = seed == 0
        let width = large ? 320 : 1 + below(40)
        let height = large ? 240 : 1 + below(30)
        let paletteSize = [2, 3, 4, 7, 16, 40, 200][below(7)]
        var palette: [[UInt8]] = (0..<paletteSize).map { _ in
            [UInt8(below(256)), UInt8(below(256)), UInt8(below(256)), 255]
        }
        palette.append(Self.clear)
        var pixels = [[UInt8]](repeating: Self.clear, count: width * height)
        // Frame 0: a block of colour runs, transparent around it.
        let (x0, y0) = (below(width), below(height))
        let (x1, y1) = (x0 + below(width - x0 + 1), y0 + below(height - y0 + 1))
        for y in y0..<y1 {
            var color = palette[below(paletteSize)]
            for x in x0..<x1 {
                if below(4) == 0 { color = palette[below(paletteSize)] }
                pixels[y * width + x] = color
            }
        }
        var images: [PixelBuffer] = []
        for frame in 0..<(2 + below(4)) {
            if frame > 0 {
                // A rectangle changed: runs, noise, or some pixels turned transparent.
                let (rx, ry) = (below(width), below(height))
                let (rw, rh) = (1 + below(width - rx), 1 + below(height - ry))
                let local = Array(palette.shuffledWith(&noise).prefix(1 + below(4)))
                for y in ry..<ry + rh {
                    for x in rx..<rx + rw where below(3) != 0 {
                        pixels[y * width + x] = below(8) == 0 ? Self.clear : local[below(local.count)]
                    }
                }
            }
            images.append(PixelBuffer(width: width, height: height, rgba8: pixels.flatMap { $0 }))
        }
        // Read as a GIF, so that frames which happen to repeat are kept one for one.
        let gif = try await writeGIF(ArrayFrameSource(format: .gif, images: images, delaysMs: images.map { _ in 50 }))
        let back = try decode(gif).frames
        #expect(back == images.map(normalized), "seed \(seed), \(width)x\(height)")
    }

    @Test("two colours, and later frames that each change pixels to one of them: a two-entry global table")
    func noSpareEntryWhenAColourCanServe() async throws {
        let (r, b) = (Self.red, Self.blue)
        let images = [
            APNGBuilder.image([[r, r, b, b], [r, r, b, b]]),
            APNGBuilder.image([[b, r, b, b], [r, r, b, b]]),
            APNGBuilder.image([[b, b, b, b], [r, b, b, b]]),
        ]
        let gif = try await writeGIF(ArrayFrameSource(images: images, delaysMs: [100, 100, 100]))
        #expect(Layout(gif).globalEntries == 2)
        #expect(try decode(gif).frames == images)
    }
}

extension Array {
    /// The elements in an order drawn from `noise`.
    fileprivate func shuffledWith(_ noise: inout Noise) -> [Element] {
        var result = self
        for index in result.indices.dropLast() {
            let other = index + Int(noise.next() % UInt64(result.count - index))
            result.swapAt(index, other)
        }
        return result
    }
}
