import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// The APNG writer chooses the storage while the frames stream, so a source is read once
/// unless the choice is still open when its look-ahead is full; and the GIF and APNG sources
/// say when they are opaque, which settles the choice early.
@Suite("PNG storage choice in one pass", .timeLimit(.minutes(5)))
struct PNGStorageChoiceTests {
    /// In-memory frames that count the readers made.
    struct CountingSource: FrameSource {
        let images: [PixelBuffer]
        let isOpaque: Bool
        let readers = Locked(0)

        var info: ImageInfo {
            let frames = images.indices.map { index in
                FrameInfo(
                    index: index, delay: .milliseconds(40),
                    region: FrameRegion(x: 0, y: 0, width: images[0].width, height: images[0].height),
                    disposal: .none, blend: .source)
            }
            return ImageInfo(
                format: .apng, width: images[0].width, height: images[0].height, bitDepth: 8, colorType: .rgba,
                frames: frames, loopValue: 0, plays: 0)
        }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            readers.withLock { $0 += 1 }
            return Reader(source: self)
        }

        final class Reader: FrameReader {
            let source: CountingSource
            var next = 0
            init(source: CountingSource) { self.source = source }

            func nextFrame() throws(ImgToolError) -> Frame? {
                guard next < source.images.count else { return nil }
                defer { next += 1 }
                return Frame(info: source.info.frames[next], image: source.images[next])
            }
        }
    }

    /// Opaque noise frames (more than 256 colours).
    static func opaqueNoise(_ count: Int, width: Int = 40, height: Int = 30) -> [PixelBuffer] {
        (0..<count).map { k in
            let noise = TestImages.noise8(width: width, height: height, seed: UInt64(k))
            return TestImages.make8(width: width, height: height) { x, y in
                Array(noise.pixel8(x: x, y: y).prefix(3)) + [255]
            }
        }
    }

    static func decoded(_ bytes: [UInt8]) throws -> (ImageInfo, [PixelBuffer]) {
        let source = try ImageSource(data: bytes, name: "out.png")
        let (frames, failure) = readAllFrames(try source.makeFrameReader(depth: nil))
        if let failure { throw failure }
        return (source.info, frames.map(\.image))
    }

    @Test("Many colours from a source known to be opaque: RGB, read once")
    func opaqueReadOnce() async throws {
        let images = Self.opaqueNoise(6)
        let source = CountingSource(images: images, isOpaque: true)
        let (info, frames) = try Self.decoded(try await source.encodedPNG())
        #expect(info.colorType == .rgb && info.bitDepth == 8)
        #expect(frames == images)
        #expect(source.readers.withLock { $0 } == 1)
    }

    @Test("Opacity unknown, every frame within the look-ahead: RGB, read once")
    func smallAnimationReadOnce() async throws {
        let images = Self.opaqueNoise(5)
        let source = CountingSource(images: images, isOpaque: false)
        let (info, frames) = try Self.decoded(try await source.encodedPNG())
        #expect(info.colorType == .rgb && frames == images)
        #expect(source.readers.withLock { $0 } == 1)
    }

    /// 512x512 frames of 4 colours: 1 MiB each, past the 16 MiB look-ahead at frame 17.
    static let fewColours = (0..<20).map { k in
        TestImages.make8(width: 512, height: 512) { x, y in
            (x / 16 + y / 16 + k) % 4 == 0 ? [255, 0, 0, 255] : [UInt8(k % 2) * 255, 0, 255, 255]
        }
    }

    @Test("Few colours past the look-ahead: the rest held compressed, read once, the exact palette")
    func undecidedHeldCompressed() async throws {
        let images = Self.fewColours
        #expect(images.count * 512 * 512 * 4 > PNGLayout.lookAheadBytes(canvasPixels: 512 * 512))
        let source = CountingSource(images: images, isOpaque: false)
        let (info, frames) = try Self.decoded(try await source.encodedPNG())
        #expect(info.colorType == .palette && info.bitDepth <= 2)
        #expect(frames == images)
        #expect(source.readers.withLock { $0 } == 1)
    }

    @Test("Few colours past the compressed look-ahead too: read twice, still the exact palette")
    func undecidedReadsTwice() async throws {
        let images = Self.fewColours
        let source = CountingSource(images: images, isOpaque: false)
        // Two frames as they are, then a few KB compressed: a handful more.
        var sink = ByteSink()
        try await source.writePNG(
            into: &sink, plays: nil, depth: nil, encoder: PNGEncoder(), progress: nil,
            lookAhead: (decoded: 2 << 20, packed: 20_000))
        let (info, frames) = try Self.decoded(sink.bytes)
        #expect(info.colorType == .palette && info.bitDepth <= 2)
        #expect(frames == images)
        #expect(source.readers.withLock { $0 } == 2)
    }

    @Test("Frames held compressed come back exactly, 8- and 16-bit")
    func packedFrames() throws {
        for image in [
            TestImages.noise8(width: 33, height: 17, seed: 1), TestImages.noise16(width: 5, height: 40, seed: 2),
        ] {
            let frame = Frame(
                info: FrameInfo(
                    index: 3, delay: .milliseconds(70),
                    region: FrameRegion(x: 0, y: 0, width: image.width, height: image.height),
                    disposal: .none, blend: .source),
                image: image)
            #expect(try PackedFrame(frame).unpacked() == frame)
        }
    }

    @Test("A resized GIF whose frames cover an opaque first frame is written as RGB in one pass")
    func resizedGIFOnePass() async throws {
        let colors: [GIFBuilder.RGB] = (0..<16).map { (k: Int) -> GIFBuilder.RGB in
            let level = UInt8(k * 16)
            return (level, 255 - level, UInt8(k * 7))
        }
        var gif = GIFBuilder(width: 96, height: 64, globalColors: colors)
        gif.loop(0)
        gif.control(delay: 4)
        // Scattered indices: the resized frames have far more than 256 colours.
        let first = (0..<96 * 64).map { (position: Int) -> UInt8 in UInt8(position * 7919 % 65 % 15) }
        gif.image(width: 96, height: 64, indices: first)
        for k in 0..<3 {
            gif.control(delay: 4, disposal: 1, transparent: 15)
            let later = (0..<96 * 64).map { (position: Int) -> UInt8 in position % 3 == k ? UInt8(k) : 15 }
            gif.image(width: 96, height: 64, indices: later)
        }
        let source = try ImageSource(data: gif.build(), name: "in.gif")
        #expect(source.isOpaque)
        let resized = try ResizedFrameSource(source, spec: ResizeSpec(width: "70"))
        let (info, frames) = try Self.decoded(try await resized.encodedPNG())
        #expect(info.colorType == .rgb && info.frameCount == 4)
        let expected = readAllFrames(try resized.makeFrameReader(depth: nil)).frames.map(\.image)
        #expect(frames == expected)
    }

    @Test("GIF opacity from the records: a transparent first frame or a cleared region is not opaque")
    func gifOpacity() throws {
        func gif(firstTransparent: UInt8?, laterDisposal: Int, firstWidth: Int = 4) throws -> ImageSource {
            var gif = GIFBuilder(width: 4, height: 2, globalColors: [(0, 0, 0), (255, 255, 255)])
            gif.control(delay: 2, transparent: firstTransparent)
            gif.image(width: firstWidth, height: 2, indices: [UInt8](repeating: 1, count: firstWidth * 2))
            gif.control(delay: 2, disposal: laterDisposal, transparent: 0)
            gif.image(width: 2, height: 1, indices: [0, 1])
            gif.control(delay: 2)
            gif.image(width: 1, height: 1, indices: [0])
            return try ImageSource(data: gif.build(), name: "a.gif")
        }
        #expect(try gif(firstTransparent: nil, laterDisposal: 1).isOpaque)
        #expect(try gif(firstTransparent: nil, laterDisposal: 3).isOpaque)
        #expect(try !gif(firstTransparent: 0, laterDisposal: 1).isOpaque)
        #expect(try !gif(firstTransparent: nil, laterDisposal: 2).isOpaque)
        #expect(try !gif(firstTransparent: nil, laterDisposal: 1, firstWidth: 3).isOpaque)
        // Whatever the records say, an opaque source's frames are opaque.
        for source in [
            try gif(firstTransparent: nil, laterDisposal: 1), try gif(firstTransparent: nil, laterDisposal: 3),
        ] {
            let frames = readAllFrames(try source.makeFrameReader(depth: nil)).frames
            #expect(frames.count == 3 && frames.allSatisfy { $0.image.firstTranslucentRow() == nil })
        }
    }

    @Test("APNG opacity: RGB without tRNS is opaque, RGBA is not")
    func apngOpacity() throws {
        let images = Self.opaqueNoise(3, width: 6, height: 4)
        for alpha in [false, true] {
            let writer = try APNGWriter(width: 6, height: 4, frameCount: 3, plays: 0, hasAlpha: alpha)
            for image in images { try writer.append(image, delay: .milliseconds(30)) }
            try writer.finish()
            #expect(try ImageSource(data: writer.data, name: "a.png").isOpaque == !alpha)
        }
    }
}
