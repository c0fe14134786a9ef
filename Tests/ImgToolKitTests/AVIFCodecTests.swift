import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// AVIF reading and writing: round trips through libavif (lossless stills and sequences, 16-bit
/// sources, lossy quality), the clean aperture arithmetic, turns and mirrors, plays from the edit
/// list, and bad input. The files in `Tests/Fixtures/avif` (made by `scripts/make-avif-fixtures`
/// with `avifenc`) carry the transforms a browser applies.
@Suite("AVIF codec", .timeLimit(.minutes(5)))
struct AVIFCodecTests {
    /// Frames with delays, as a source.
    struct Frames: FrameSource {
        let info: ImageInfo
        let images: [PixelBuffer]

        init(_ images: [PixelBuffer], delays: [Duration], format: ImageFormat = .png) {
            self.images = images
            let width = images[0].width
            let height = images[0].height
            info = ImageInfo(
                format: format, width: width, height: height, bitDepth: images[0].depth == .sixteen ? 16 : 8,
                colorType: .rgba,
                frames: delays.enumerated().map { index, delay in
                    FrameInfo(
                        index: index, delay: delay, region: FrameRegion(x: 0, y: 0, width: width, height: height),
                        disposal: .none, blend: .source)
                }, plays: 0)
        }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            Reader(images: images.map { depth.map($0.converted(to:)) ?? $0 }, frames: info.frames)
        }

        final class Reader: FrameReader {
            var images: [PixelBuffer]
            let frames: [FrameInfo]
            var next = 0
            init(images: [PixelBuffer], frames: [FrameInfo]) {
                self.images = images
                self.frames = frames
            }
            func nextFrame() throws(ImgToolError) -> Frame? {
                guard next < images.count else { return nil }
                defer { next += 1 }
                return Frame(info: frames[next], image: images[next])
            }
        }
    }

    static func write(_ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions()) async throws
        -> [UInt8]
    {
        var sink = ByteSink()
        try await AVIFCodec().write(source, into: &sink, options: options, progress: nil)
        return sink.bytes
    }

    static func decode(_ bytes: [UInt8], depth: SampleDepth? = .eight, limits: DecodingLimits = .default)
        throws(ImgToolError) -> (ImageInfo, [PixelBuffer])
    {
        let source = try ImageSource(data: bytes, name: "test.avif", limits: limits)
        let reader = try source.makeFrameReader(depth: depth)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return (source.info, frames)
    }

    /// An RGBA picture with every alpha level and colours under transparent pixels.
    static func picture(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        return TestImages.make8(width: width, height: height) { x, y in
            [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8(random.next() % 256), UInt8((x * 7 + y * 3) % 256)]
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/avif").standardized.path

    // MARK: - Writing and reading back

    @Test("AVIF is sniffed from its ftyp brands and written for .avif and .avifs outputs")
    func registry() async throws {
        let file = try await Self.write(Frames([Self.picture(width: 8, height: 8, seed: 1)], delays: [.zero]))
        #expect(ImageFormat.sniff(file) == .avif)
        #expect(CodecRegistry.standard.codec(forOutput: "clip.AVIFS")?.format == .avif)
        let writer = try CodecRegistry.standard.writer(forOutput: "photo.avif")
        #expect(writer.capabilities == [.read, .readAnimation, .write, .writeAnimation, .writeAlpha])
        // A HEIC (major brand heic, no avif brand) is not AVIF.
        var heic = Array(file.prefix(32))
        heic.replaceSubrange(8..<12, with: Array("heic".utf8))
        for at in stride(from: 16, to: 28, by: 4) { heic.replaceSubrange(at..<at + 4, with: Array("mif1".utf8)) }
        #expect(!AVIFCodec().sniff(heic))
    }

    @Test("a lossless still with alpha comes back sample for sample, colour under transparency too")
    func losslessStill() async throws {
        let image = Self.picture(width: 37, height: 21, seed: 2)
        let file = try await Self.write(Frames([image], delays: [.zero]))
        let (info, frames) = try Self.decode(file)
        #expect(info.format == .avif && info.width == 37 && info.height == 21 && info.frameCount == 1)
        #expect(info.colorType == .rgba && info.bitDepth == 8 && info.plays == 1 && info.loopValue == nil)
        #expect(frames.count == 1)
        #expect(firstDifference(image, frames[0]) == nil)
    }

    @Test("an opaque source is written without an alpha plane")
    func opaqueStill() async throws {
        let image = TestImages.make8(width: 16, height: 9) { x, y in [UInt8(x * 15), UInt8(y * 28), 90, 255] }
        let file = try await Self.write(
            StillImageSource(
                image,
                describedBy: ImageInfo(
                    format: .png, width: 16, height: 9, bitDepth: 8, colorType: .rgb,
                    frames: [
                        FrameInfo(
                            index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 16, height: 9),
                            disposal: .none, blend: .source)
                    ])))
        let (info, frames) = try Self.decode(file)
        #expect(info.colorType == .rgb)
        #expect(firstDifference(image, frames[0]) == nil)
    }

    @Test("a lossless sequence keeps every frame; delays are whole milliseconds from the running sum")
    func losslessSequence() async throws {
        let images = (0..<3).map { Self.picture(width: 12, height: 10, seed: UInt64(10 + $0)) }
        let delays: [Duration] = [.milliseconds(40), .milliseconds(100), .microseconds(33_333)]
        let file = try await Self.write(Frames(images, delays: delays))
        let (info, frames) = try Self.decode(file)
        #expect(info.frameCount == 3 && frames.count == 3)
        #expect(info.frames.map(\.delayMilliseconds) == [40, 100, 33])
        #expect(info.plays == 0 && info.loopValue == 0)  // no edit list: played forever
        for index in 0..<3 { #expect(firstDifference(images[index], frames[index]) == nil) }
    }

    @Test("a 16-bit source is written at 12 bits when lossless and read back at 16")
    func deepSource() async throws {
        let image = TestImages.noise16(width: 10, height: 6, seed: 3)
        let file = try await Self.write(Frames([image], delays: [.zero]))
        let (info, frames) = try Self.decode(file, depth: nil)
        #expect(info.bitDepth == 12)
        #expect(frames[0].depth == .sixteen)
        let original = try #require(image.rgba16)
        let decoded = try #require(frames[0].rgba16)
        // 16 bits to 12 and back: within half a 12-bit step.
        let worst = zip(original, decoded).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 65535 / 4095 / 2 + 1)
    }

    @Test("quality maps to libavif 1.x's quantizer; lower quality writes fewer bytes")
    func quality() async throws {
        #expect(AVIFWriter.quantizer(forQuality: 100) == 0)
        #expect(AVIFWriter.quantizer(forQuality: 60) == 25)
        #expect(AVIFWriter.quantizer(forQuality: 0) == 63)
        let image = TestImages.noise8(width: 64, height: 48, seed: 4)
        let source = Frames([image], delays: [.zero])
        let high = try await Self.write(source, options: ImageWriteOptions(quality: 90, lossless: false))
        let low = try await Self.write(source, options: ImageWriteOptions(quality: 20, lossless: false))
        #expect(low.count < high.count)
        let (_, frames) = try Self.decode(high)
        #expect(frames[0].width == 64)
        await #expect(throws: ImgToolError.self) {
            _ = try await Self.write(source, options: ImageWriteOptions(compressionLevel: 12, lossless: false))
        }
    }

    // MARK: - Files made by avifenc

    static func fixture(_ name: String, depth: SampleDepth? = .eight) throws -> (ImageInfo, [PixelBuffer]) {
        let source = try ImageSource(contentsOf: Self.fixtures + "/" + name)
        let reader = try source.makeFrameReader(depth: depth)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return (source.info, frames)
    }

    @Test("avifenc's lossless files decode to their source PNGs exactly, alpha included")
    func avifencFiles() throws {
        for (avif, png) in [("still-lossless.avif", "gradient.png"), ("alpha-lossless.avif", "alpha.png")] {
            let (info, frames) = try Self.fixture(avif)
            let (_, expected) = try Self.fixture(png)
            #expect(info.format == .avif && frames.count == 1, "\(avif)")
            #expect(firstDifference(expected[0], frames[0]) == nil, "\(avif)")
        }
        let (tenBit, frames) = try Self.fixture("ten-bit.avif", depth: nil)
        #expect(tenBit.bitDepth == 10 && frames[0].depth == .sixteen)
    }

    @Test("avifenc's sequence: four frames of 100 ms, exact, played forever (no edit list)")
    func avifencSequence() throws {
        let (info, frames) = try Self.fixture("sequence.avifs")
        #expect(info.frameCount == 4 && frames.count == 4)
        #expect(info.frames.map(\.delayMilliseconds) == [100, 100, 100, 100])
        #expect(info.plays == 0 && info.colorType == .rgb)
        for index in 0..<4 {
            let (_, expected) = try Self.fixture("sequence-\(index).png")
            #expect(firstDifference(expected[0], frames[index]) == nil, "frame \(index)")
        }
    }

    @Test(
        "irot, imir and clap are shown as a browser shows them (MIAF order: crop, turn, mirror)",
        arguments: ["irot1", "imir0", "imir1", "irot3-imir0", "clap"])
    func avifencTransforms(name: String) throws {
        let (info, frames) = try Self.fixture(name + ".avif")
        let (_, expected) = try Self.fixture(name + ".expected.png")
        #expect(info.width == expected[0].width && info.height == expected[0].height)
        #expect(firstDifference(expected[0], frames[0]) == nil)
    }

    // MARK: - Display transforms

    @Test("the clean aperture is centred, offset by fractions, and must fall on whole pixels inside")
    func cleanAperture() {
        func clap(_ w: Int64, _ h: Int64, _ dx: (Int64, Int64), _ dy: (Int64, Int64)) -> AVIFCleanAperture {
            AVIFCleanAperture(width: (w, 1), height: (h, 1), horizontalOffset: dx, verticalOffset: dy)
        }
        // Chromium's blue-and-magenta-crop.avif: 180x100 offset by (-30, -10) in 320x280.
        #expect(
            clap(180, 100, (-30, 1), (-10, 1)).region(inWidth: 320, height: 280)
                == FrameRegion(x: 40, y: 80, width: 180, height: 100))
        // Half-pixel offsets that land on whole pixels: (7 - 4) / 2 + 1/2 = 2.
        #expect(
            clap(4, 4, (1, 2), (1, 2)).region(inWidth: 7, height: 7)
                == FrameRegion(x: 2, y: 2, width: 4, height: 4))
        #expect(clap(4, 4, (0, 1), (0, 1)).region(inWidth: 7, height: 7) == nil)  // 1.5
        #expect(clap(8, 4, (0, 1), (0, 1)).region(inWidth: 7, height: 7) == nil)  // wider
        #expect(clap(4, 4, (-4, 1), (0, 1)).region(inWidth: 8, height: 8) == nil)  // left of 0
        #expect(clap(4, 4, (0, 0), (0, 1)).region(inWidth: 8, height: 8) == nil)  // 0 denominator
    }

    @Test("turns are anticlockwise, then the mirror; the size follows")
    func display() {
        // 3x2: a b c / d e f
        let stored = TestImages.make8(width: 3, height: 2) { x, y in [UInt8(y * 3 + x), 0, 0, 255] }
        func values(_ image: PixelBuffer) -> [Int] { (0..<image.pixelCount).map { Int(image.rgba8?[$0 * 4] ?? 99) } }
        let whole = FrameRegion(x: 0, y: 0, width: 3, height: 2)
        let turned = AVIFDisplay(crop: whole, anticlockwiseTurns: 1, mirror: nil)
        #expect(turned.size == PixelSize(width: 2, height: 3))
        #expect(values(turned.apply(to: stored)) == [2, 5, 1, 4, 0, 3])  // c f / b e / a d
        let mirrored = AVIFDisplay(crop: whole, anticlockwiseTurns: 0, mirror: .topBottom)
        #expect(values(mirrored.apply(to: stored)) == [3, 4, 5, 0, 1, 2])
        let both = AVIFDisplay(
            crop: FrameRegion(x: 1, y: 0, width: 2, height: 2), anticlockwiseTurns: 3, mirror: .leftRight)
        // crop: b c / e f; clockwise turn: e b / f c; left-right: b e / c f
        #expect(values(both.apply(to: stored)) == [1, 4, 2, 5])
        #expect(
            AVIFDisplay(crop: whole, anticlockwiseTurns: 0, mirror: nil).isIdentity(storedWidth: 3, storedHeight: 2))
        // Each turn and mirror is the EXIF orientation that moves pixels the same way.
        for turns in 0..<4 {
            for mirror in [nil, AVIFDisplay.Mirror.topBottom, .leftRight] {
                let display = AVIFDisplay(crop: whole, anticlockwiseTurns: turns, mirror: mirror)
                #expect(
                    values(stored.turned(display.orientation)) == values(display.apply(to: stored)),
                    "\(turns) turns, \(String(describing: mirror))")
            }
        }
    }

    // MARK: - Plays from the edit list

    /// A box: big-endian size, type, body.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(body.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)]
            + Array(type.utf8) + body
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)]
    }

    /// A movie with one `pict` track of `duration`, and an edit list with `flags` and one
    /// segment of `segment` when `flags` is given.
    static func movie(duration: UInt32, flags: UInt8?, segment: UInt32 = 100, handler: String = "pict") -> [UInt8] {
        let tkhd = box(
            "tkhd",
            [0, 0, 0, 3] + be32(0) + be32(0) + be32(1) + be32(0) + be32(duration) + [UInt8](repeating: 0, count: 60))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
        var trak = tkhd + box("mdia", hdlr)
        if let flags {
            trak += box("edts", box("elst", [0, 0, 0, flags] + be32(1) + be32(segment) + be32(0) + be32(0x10000)))
        }
        return box("ftyp", Array("avis".utf8) + be32(0)) + box("moov", box("trak", trak))
    }

    @Test("plays follow the edit list as libavif's repetition count does")
    func plays() {
        #expect(AVIFMovie(Self.movie(duration: 300, flags: nil)).plays == 0)  // no edit list: forever
        #expect(AVIFMovie(Self.movie(duration: 300, flags: 0)).plays == 1)
        #expect(AVIFMovie(Self.movie(duration: 300, flags: 1)).plays == 3)
        #expect(AVIFMovie(Self.movie(duration: 250, flags: 1)).plays == 3)  // rounded up
        #expect(AVIFMovie(Self.movie(duration: .max, flags: 1)).plays == 0)  // indefinite
        #expect(AVIFMovie(Self.movie(duration: 300, flags: 1, segment: 0)).plays == 0)
        #expect(AVIFMovie(Self.movie(duration: 300, flags: 1, handler: "soun")).plays == 0)  // no picture track
        // Cut anywhere, the reader answers without reading past the end.
        let whole = Self.movie(duration: 300, flags: 1)
        for length in 0..<whole.count { _ = AVIFMovie(Array(whole.prefix(length))).plays }
    }

    // MARK: - Bad input

    @Test("a cut or damaged file is refused with a typed error naming the input")
    func badInput() async throws {
        let file = try await Self.write(Frames([Self.picture(width: 20, height: 20, seed: 5)], delays: [.zero]))
        for length in [20, 40, file.count / 2, file.count - 10] {
            let error = #expect(throws: ImgToolError.self) { try Self.decode(Array(file.prefix(length))) }
            #expect(error?.input == "test.avif")
            #expect([.truncated, .corrupt].contains(error?.code))
        }
        var damaged = file
        for at in stride(from: file.count - 40, to: file.count, by: 3) { damaged[at] ^= 0x5A }
        // Damage in the AV1 data: an error or a picture, never a crash.
        _ = try? Self.decode(damaged)
    }

    @Test("a size over the limits is refused before any pixel is decoded")
    func limits() async throws {
        let file = try await Self.write(Frames([Self.picture(width: 40, height: 30, seed: 6)], delays: [.zero]))
        let error = #expect(throws: ImgToolError.self) {
            try Self.decode(file, limits: DecodingLimits(maxPixels: 1000))
        }
        #expect(error?.code == .tooLarge)
    }
}
