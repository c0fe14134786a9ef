import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// The operations on stills and on GIF, APNG and WebP animations, 8- and 16-bit, each against a
/// reference written here (index mapping for crop, turns, mirrors and padding; the composited
/// frames themselves for timing).
@Suite("Operations", .timeLimit(.minutes(5)))
struct OperationsTests {
    /// An animation held in memory: its frames as given, each the whole canvas.
    struct ListSource: FrameSource {
        let images: [PixelBuffer]
        let info: ImageInfo

        init(_ images: [PixelBuffer], delaysMs: [Int]? = nil, plays: Int = 0) {
            self.images = images
            let width = images[0].width
            let height = images[0].height
            let delays = delaysMs ?? images.indices.map { 40 + 10 * $0 }
            info = ImageInfo(
                format: .png, width: width, height: height, bitDepth: images[0].depth == .sixteen ? 16 : 8,
                colorType: .rgba,
                frames: images.indices.map { index in
                    FrameInfo(
                        index: index, delay: .milliseconds(delays[index]),
                        region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none, blend: .source)
                }, plays: plays)
        }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            var next = 0
            let images = self.images
            let frames = info.frames
            return OneByOne {
                guard next < images.count else { return nil }
                defer { next += 1 }
                let image = depth.map { images[next].depth == $0 ? images[next] : images[next].converted(to: $0) }
                return Frame(info: frames[next], image: image ?? images[next])
            }
        }
    }

    final class OneByOne: FrameReader {
        let body: () -> Frame?
        init(_ body: @escaping () -> Frame?) { self.body = body }
        func nextFrame() throws(ImgToolError) -> Frame? { body() }
    }

    static func frames(_ source: any FrameSource, depth: SampleDepth? = nil) throws -> [Frame] {
        let reader = try source.makeFrameReader(depth: depth)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    static func sample(_ name: String) throws -> ImageSource {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/" + name).path
        return try ImageSource(contentsOf: path)
    }

    /// Noise frames: 8- or 16-bit, with alpha.
    static func animation(depth: SampleDepth, width: Int = 13, height: Int = 7, count: Int = 4) -> ListSource {
        ListSource(
            (0..<count).map { index in
                depth == .eight
                    ? TestImages.noise8(width: width, height: height, seed: UInt64(index + 1))
                    : TestImages.noise16(width: width, height: height, seed: UInt64(index + 1))
            })
    }

    /// The reference: a new image whose pixel (x, y) is `image`'s pixel `from(x, y)`, or `fill`
    /// where that is `nil`.
    static func remap(
        _ image: PixelBuffer, width: Int, height: Int, fill: [Int] = [0, 0, 0, 0], _ from: (Int, Int) -> (Int, Int)?
    ) -> PixelBuffer {
        func pixel(_ x: Int, _ y: Int) -> [Int] { from(x, y).map { pixelSamples(image, $0.0, $0.1) } ?? fill }
        switch image.depth {
        case .eight: return TestImages.make8(width: width, height: height) { x, y in pixel(x, y).map(UInt8.init) }
        case .sixteen: return TestImages.make16(width: width, height: height) { x, y in pixel(x, y).map(UInt16.init) }
        }
    }

    static func check(
        _ operations: [ImageOperation], on source: any FrameSource,
        _ reference: (PixelBuffer) -> PixelBuffer
    ) async throws {
        let done = try await source.applying(operations)
        let expected = try Self.frames(source).map { reference($0.image) }
        let actual = try Self.frames(done)
        #expect(actual.count == expected.count)
        for (want, got) in zip(expected, actual) {
            #expect(firstDifference(want, got.image) == nil, "\(operations) frame \(got.index)")
        }
        #expect(done.info.width == expected[0].width && done.info.height == expected[0].height)
        #expect(done.info.frames.map(\.delay) == source.info.frames.map(\.delay))
    }

    @Test("crop: an exact box and an aspect ratio, 8- and 16-bit, and on a GIF", arguments: SampleDepth.allCases)
    func crop(depth: SampleDepth) async throws {
        let source = Self.animation(depth: depth)
        try await Self.check([.crop(CropOperation(.exact(FrameRegion(x: 2, y: 1, width: 5, height: 4))))], on: source) {
            image in Self.remap(image, width: 5, height: 4) { ($0 + 2, $1 + 1) }
        }
        // 16:9 in 13x7: full width would need 7.3 rows, so 12x7 (7 * 16 / 9 = 12.4, rounded), centred.
        try await Self.check([.crop(CropOperation(.aspect(width: 16, height: 9)))], on: source) { image in
            Self.remap(image, width: 12, height: 7) { ($0, $1) }
        }
        let gif = try Self.sample("spinner.gif")
        try await Self.check([.crop(try CropOperation(parsing: "40x30+50+60"))], on: gif) { image in
            Self.remap(image, width: 40, height: 30) { ($0 + 50, $1 + 60) }
        }
        await #expect(throws: ImgToolError.self) {
            _ = try await source.applying([.crop(try CropOperation(parsing: "10x10+5+0"))])
        }
    }

    @Test("rotate by right angles, flip and flop: exact, on an APNG and on 16-bit frames")
    func turnsAndMirrors() async throws {
        for source in [try Self.sample("bounce.png") as any FrameSource, Self.animation(depth: .sixteen)] {
            let (w, h) = (source.info.width, source.info.height)
            try await Self.check([.rotate(RotateOperation(degrees: 90))], on: source) { image in
                Self.remap(image, width: h, height: w) { x, y in (y, h - 1 - x) }
            }
            try await Self.check([.rotate(RotateOperation(degrees: 180))], on: source) { image in
                Self.remap(image, width: w, height: h) { x, y in (w - 1 - x, h - 1 - y) }
            }
            try await Self.check([.rotate(RotateOperation(degrees: -90))], on: source) { image in
                Self.remap(image, width: h, height: w) { x, y in (w - 1 - y, x) }
            }
            try await Self.check([.mirror(MirrorOperation(.flip))], on: source) { image in
                Self.remap(image, width: w, height: h) { x, y in (x, h - 1 - y) }
            }
            try await Self.check([.mirror(MirrorOperation(.flop))], on: source) { image in
                Self.remap(image, width: w, height: h) { x, y in (w - 1 - x, y) }
            }
        }
    }

    @Test("Any angle: the canvas grows to the turned box, corners filled, the frame as the kernel makes it")
    func anyAngle() async throws {
        let source = Self.animation(depth: .eight, width: 20, height: 10, count: 2)
        let turned = try await source.applying([.rotate(RotateOperation(degrees: 30, background: .white))])
        let frames = try Self.frames(turned)
        #expect(frames[0].image.width == turned.info.width && frames[0].image.height == turned.info.height)
        #expect(turned.info.width == 23 && turned.info.height == 19)  // 20 cos 30 + 10 sin 30 = 22.3; 10 + 8.7
        #expect(pixelSamples(frames[1].image, 0, 0) == [255, 255, 255, 255])
        #expect(firstDifference(frames[1].image, source.images[1].rotated(degrees: 30, background: .white)) == nil)
    }

    @Test("Order matters: crop then rotate 90 is not rotate 90 then crop, and each is right")
    func order() async throws {
        let source = Self.animation(depth: .eight)
        let crop = ImageOperation.crop(CropOperation(.exact(FrameRegion(x: 1, y: 2, width: 6, height: 3))))
        let rotate = ImageOperation.rotate(RotateOperation(degrees: 90))
        try await Self.check([crop, rotate], on: source) { image in
            // Cropped 6x3, then turned: 3x6.
            Self.remap(image, width: 3, height: 6) { x, y in (1 + y, 2 + (3 - 1 - x)) }
        }
        try await Self.check([rotate, crop], on: source) { image in
            // Turned 7x13 (w = 7): (x, y) of the turned image is (y, 7 - 1 - x) of the original.
            Self.remap(image, width: 6, height: 3) { x, y in (2 + y, 7 - 1 - (1 + x)) }
        }
    }

    @Test("pad with a colour and transparent; trim finds one box for the whole animation")
    func padAndTrim() async throws {
        let source = Self.animation(depth: .eight, width: 5, height: 4, count: 2)
        try await Self.check([.pad(PadOperation(top: 1, right: 2, bottom: 3, left: 4, color: .white))], on: source) {
            image in
            Self.remap(image, width: 11, height: 8, fill: [255, 255, 255, 255]) { x, y in
                (4..<9).contains(x) && (1..<5).contains(y) ? (x - 4, y - 1) : nil
            }
        }
        // Two frames on a white 20x10 canvas: a dot at (3, 2) and a dot at (15, 7).
        func frame(dotAt x: Int, _ y: Int) -> PixelBuffer {
            TestImages.make8(width: 20, height: 10) { px, py in
                px == x && py == y ? [10, 20, 30, 255] : [255, 255, 255, 255]
            }
        }
        let dots = ListSource([frame(dotAt: 3, 2), frame(dotAt: 15, 7)])
        let trimmed = try await dots.applying([.trim(TrimOperation())])
        #expect(trimmed.info.width == 13 && trimmed.info.height == 6)
        let frames = try Self.frames(trimmed)
        #expect(pixelSamples(frames[0].image, 0, 0) == [10, 20, 30, 255])
        #expect(pixelSamples(frames[1].image, 12, 5) == [10, 20, 30, 255])
        let blank = ListSource([TestImages.make8(width: 4, height: 4) { _, _ in [9, 9, 9, 255] }])
        #expect(try await blank.applying([.trim(TrimOperation())]).info.width == 4)
    }

    @Test("speed, frames, reverse and loops: the composited frames, retimed")
    func timing() async throws {
        let source = Self.animation(depth: .eight, count: 6)
        let originals = try Self.frames(source)
        let fast = try await source.applying([.timing(.speed(2))])
        #expect(fast.info.frames.map(\.delay) == source.info.frames.map { $0.delay / 2 })
        #expect(try Self.frames(fast).map(\.image) == originals.map(\.image))
        let some = try await source.applying([.timing(.frames(first: 2, last: 4))])
        #expect(try Self.frames(some).map(\.image) == originals[2...4].map(\.image))
        #expect(some.info.frames.map(\.delay) == source.info.frames[2...4].map(\.delay))
        #expect(some.info.frames.map(\.index) == [0, 1, 2])
        let backwards = try await source.applying([.timing(.reverse)])
        #expect(try Self.frames(backwards).map(\.image) == originals.reversed().map(\.image))
        #expect(backwards.info.frames.map(\.delay) == source.info.frames.reversed().map(\.delay))
        // With room for two frames at a time, the frames are read in three segments: the same result.
        guard var small = backwards as? RetimedFrameSource else { throw ImgToolError(.corrupt, "not retimed") }
        small.reverseBudget = 2 * 13 * 7 * 4
        #expect(try Self.frames(small).map(\.image) == originals.reversed().map(\.image))
        #expect(try await source.applying([.timing(.loops(3))]).info.plays == 3)
        await #expect(throws: ImgToolError.self) {
            _ = try await source.applying([.timing(.frames(first: 2, last: 6))])
        }
        #expect(throws: ImgToolError.self) { _ = try TimingOperation.frames(parsing: "9..2") }
        // Open ranges: to the last frame, from the first.
        #expect(try TimingOperation.frames(parsing: "3..") == .frames(first: 3, last: nil))
        #expect(try TimingOperation.frames(parsing: "..2") == .frames(first: 0, last: 2))
        #expect(try TimingOperation.frames(parsing: "4") == .frames(first: 4, last: 4))
        for bad in ["-1..2", "a..", "1...3", "2..1", ""] {
            #expect(throws: ImgToolError.self, "\(bad)") { _ = try TimingOperation.frames(parsing: bad) }
        }
        let tail = try await source.selectingFrames(3...)
        #expect(try Self.frames(tail).map(\.image) == originals[3...].map(\.image))
        #expect(tail.info.frames.map(\.delay) == source.info.frames[3...].map(\.delay))
        let head = try await source.applying([.timing(try TimingOperation.frames(parsing: "..1"))])
        #expect(try Self.frames(head).map(\.image) == originals[...1].map(\.image))
        await #expect(throws: ImgToolError.self) { _ = try await source.selectingFrames(6...) }
    }

    @Test("A WebP animation turned and mirrored is exact; GIF crop and flip keep every frame")
    func webPAnimation() async throws {
        let bounce = try Self.sample("bounce.png")
        let webp = try await WebPCodec().encode(bounce, options: ImageWriteOptions(lossless: true))
        let source = try ImageSource(data: webp, name: "bounce.webp")
        let (w, h) = (source.info.width, source.info.height)
        try await Self.check([.rotate(RotateOperation(degrees: 270)), .mirror(MirrorOperation(.flop))], on: source) {
            image in
            // Turned 270 (x, y) <- (w - 1 - y, x); then mirrored left-right in the turned h-wide image.
            Self.remap(image, width: h, height: w) { x, y in (w - 1 - y, h - 1 - x) }
        }
    }

    @Test("blur, sharpen and grayscale apply the kernels to every frame")
    func filters() async throws {
        let source = Self.animation(depth: .sixteen)
        try await Self.check([.filter(.blur(sigma: 1.5))], on: source) { $0.blurred(sigma: 1.5) }
        try await Self.check([.filter(.sharpen(sigma: 1))], on: source) { $0.sharpened(sigma: 1) }
        try await Self.check([.filter(.grayscale)], on: source) { $0.grayscaled() }
    }

    @Test("overlay: a still on every frame of a GIF, as merge draws it; tiles cover the image")
    func overlay() async throws {
        let folder = try makeTemporaryFolder("operations")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let logo = TestImages.make8(width: 6, height: 4) { x, y in [200, UInt8(x * 40), UInt8(y * 60), 180] }
        try PNGEncoder().encode(logo).write(to: folder + "/logo.png")
        let gif = try Self.sample("spinner.gif")
        let placement = try OverlayPlacement(gravity: .southEast, offsetX: -2, offsetY: -3, opacity: 0.5)
        try await Self.check(
            [
                .overlay(
                    OverlayOperation(
                        input: folder + "/logo.png", gravity: .southEast, offsetX: -2, offsetY: -3, opacity: 0.5))
            ],
            on: gif
        ) { frame in OverlayCompositor.composite([logo], onto: frame, placement: placement) }
        let tiled = try await gif.applying([.overlay(OverlayOperation(input: folder + "/logo.png", tiles: true))])
        let first = try Self.frames(tiled)[0].image
        let original = try gif.frame(at: 0).image
        for (x, y) in [(0, 0), (6, 4), (90, 92), (95, 95)] {
            let expected = OverlayCompositor.composite(
                [logo], onto: original,
                placement: try OverlayPlacement(gravity: .northWest, offsetX: x - x % 6, offsetY: y - y % 4))
            #expect(pixelSamples(first, x, y) == pixelSamples(expected, x, y), "tile at \(x),\(y)")
        }
    }

    @Test("merge is one step: on a still and on a GIF it writes what the merger composites, every frame and delay")
    func mergeStep() async throws {
        let folder = try makeTemporaryFolder("operations")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let logo = TestImages.make8(width: 6, height: 4) { x, y in [200, UInt8(x * 40), UInt8(y * 60), 180] }
        let mark = TestImages.make16(width: 5, height: 5) { x, y in
            [UInt16(x * 9000), 40_000, UInt16(y * 7000), 30_000]
        }
        try PNGEncoder().encode(logo).write(to: folder + "/logo.png")
        try PNGEncoder().encode(mark).write(to: folder + "/mark.png")
        let still = TestImages.make8(width: 30, height: 20) { x, y in [UInt8(x * 8), UInt8(y * 12), 90, 255] }
        try PNGEncoder().encode(still).write(to: folder + "/still.png")
        let placement = try OverlayPlacement(
            gravity: .southEast, offsetX: -2, offsetY: -1, opacity: 0.75, overlayWidth: .percent(25))
        let overlays = [folder + "/logo.png", folder + "/mark.png"]
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/spinner.gif").path
        for background in [folder + "/still.png", sample] {
            let step = MergeOperation(overlays: overlays, placement: placement)
            let piped = try await ImageSource(contentsOf: background).applying([.merge(step)])
            let merger = ImageMerger(placement: placement)
            let result = try await merger.merge(
                background: try ImageInput(background), overlays: try overlays.map { try ImageInput($0) })
            let made = try Self.frames(piped)
            let expected = try Self.frames(result.source)
            #expect(made.count == expected.count, "\(background)")
            #expect(piped.info.frames.map(\.delay) == result.source.info.frames.map(\.delay), "\(background)")
            #expect(piped.info.plays == result.source.info.plays)
            for (got, want) in zip(made, expected) {
                #expect(got.image.depth == .sixteen, "a 16-bit overlay makes the merge 16-bit")
                #expect(firstDifference(want.image, got.image) == nil, "\(background) frame \(got.index)")
            }
        }
        // The still: exactly the compositor's drawing of both overlays, in order.
        let merged = try await ImageSource(contentsOf: folder + "/still.png").merged(
            with: overlays, placement: placement)
        let drawn = OverlayCompositor.composite([logo, mark], onto: still, placement: placement)
        #expect(firstDifference(drawn, try merged.frame(at: 0).image) == nil)
        // A missing overlay names itself.
        await #expect(throws: ImgToolError.self) {
            _ = try await ImageSource(contentsOf: folder + "/still.png").merged(with: [folder + "/gone.png"])
        }
    }

    @Test("An operation list is Codable: it survives JSON unchanged")
    func codable() throws {
        let list: [ImageOperation] = [
            .crop(CropOperation(.aspect(width: 16, height: 9))), .resize(try ResizeOperation(size: "1200")),
            .rotate(RotateOperation(degrees: 12.5, background: .white)), .mirror(MirrorOperation(.flip)),
            .trim(TrimOperation()), .pad(PadOperation(top: 1, right: 2, bottom: 3, left: 4)),
            .filter(.blur(sigma: 2)),
            .overlay(OverlayOperation(input: "logo.png", gravity: .southEast, widthPercent: 10)),
            .merge(
                MergeOperation(
                    overlays: ["a.png", "https://example.com/b.gif"],
                    placement: try OverlayPlacement(
                        gravity: .north, offsetX: -3, opacity: 0.5, overlayWidth: .percent(25),
                        overlayHeight: .pixels(40), overlayFilter: .mitchell))),
            .timing(.speed(2)), .timing(.reverse), .timing(.frames(first: 1, last: 5)), .timing(.loops(0)),
        ]
        let data = try JSONEncoder().encode(list)
        #expect(try JSONDecoder().decode([ImageOperation].self, from: data) == list)
        #expect(list.flatMap(\.inputs) == ["logo.png", "a.png", "https://example.com/b.gif"])
        // A placement read from JSON is checked as one made in code.
        let opaque = Data(#"{"gravity":"center","offsetX":0,"offsetY":0,"opacity":2,"overlayFilter":"lanczos3"}"#.utf8)
        #expect(throws: ImgToolError.self) { _ = try JSONDecoder().decode(OverlayPlacement.self, from: opaque) }
    }

    @Test("--speed on a GIF carries the centisecond rounding: 50 ms frames twice as fast last 25 ms on average")
    func speedCarriesRounding() async throws {
        let frames = (0..<8).map { index in
            TestImages.make8(width: 4, height: 4) { _, _ in [UInt8(index * 30), 0, 0, 255] }
        }
        var source = ListSource(frames, delaysMs: Array(repeating: 50, count: 8))
        let gif = try await GIFCodec().encode(source, options: ImageWriteOptions())
        let read = try ImageSource(data: gif, name: "in.gif")
        let fast = try await read.applying([.timing(.speed(2))])
        let written = try ImageSource(data: try await GIFCodec().encode(fast), name: "out.gif")
        let delays = written.info.frames.map { Int($0.delayMilliseconds.rounded()) }
        #expect(delays.reduce(0, +) == 200, "\(delays)")  // 8 x 25 ms, no drift
        #expect(Set(delays) == [20, 30], "\(delays)")
        // Repeated frames made by an operation are merged, their delays summed.
        source = ListSource([frames[0], frames[0], frames[1]], delaysMs: [40, 40, 40])
        let cropped = try await ImageSource(data: try await GIFCodec().encode(source), name: "r.gif")
            .applying([.crop(CropOperation(.exact(FrameRegion(x: 0, y: 0, width: 2, height: 2))))])
        let merged = try ImageSource(data: try await GIFCodec().encode(cropped), name: "m.gif")
        #expect(merged.info.frames.map(\.delayMilliseconds) == [80, 40])
    }

    @Test(
        "--background flattens PNG and APNG output: opaque, each colour blended by its alpha",
        arguments: SampleDepth.allCases)
    func pngBackground(depth: SampleDepth) async throws {
        let source = Self.animation(depth: depth, count: 2)
        let bytes = try await PNGCodec().encode(
            source, options: ImageWriteOptions(background: RGBAColor(red: 10, green: 200, blue: 30)))
        let written = try ImageSource(data: bytes, name: "flat.png")
        #expect(written.info.colorType != .rgba && written.info.colorType != .grayAlpha)
        let maximum = depth == .eight ? 255 : 65535
        let background = [10, 200, 30].map { $0 * (maximum / 255) }
        for (original, flat) in zip(try Self.frames(source), try Self.frames(written, depth: depth)) {
            for (x, y) in [(0, 0), (5, 3), (12, 6)] {
                let p = pixelSamples(original.image, x, y)
                let expected = (0..<3).map {
                    (p[$0] * p[3] + background[$0] * (maximum - p[3]) + maximum / 2) / maximum
                }
                #expect(pixelSamples(flat.image, x, y) == expected + [maximum])
            }
        }
    }
}

extension [UInt8] {
    func write(to path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}
