import TestSupport
import Testing

@testable import ImgToolKit

/// WebP reading and writing: stills (lossy, lossless, alpha), animations composited exactly as
/// libwebp's `WebPAnimDecoder` composites them, truncation, corrupt chunks, limits, and the
/// writer's round trips. Every file is built here with libwebp or imgtool's own writer.
@Suite("WebP codec", .timeLimit(.minutes(5)))
struct WebPCodecTests {
    // MARK: - Helpers

    static func decode(_ bytes: [UInt8], name: String = "test.webp", limits: DecodingLimits = .default)
        throws(ImgToolError) -> (ImageInfo, [Frame])
    {
        let source = try ImageSource(data: bytes, name: name, limits: limits)
        let reader = try source.makeFrameReader(depth: .eight)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return (source.info, frames)
    }

    static func write(_ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions()) async throws
        -> [UInt8]
    {
        var sink = ByteSink()
        try await WebPCodec().write(source, into: &sink, options: options, progress: nil)
        return sink.bytes
    }

    /// `nil` when equal, else the first differing pixel and how many differ.
    static func difference(_ actual: [UInt8], _ expected: [UInt8], width: Int) -> String? {
        guard actual.count == expected.count else { return "\(actual.count) samples, expected \(expected.count)" }
        var first: Int?
        var count = 0
        for pixel in stride(from: 0, to: actual.count, by: 4)
        where actual[pixel..<pixel + 4] != expected[pixel..<pixel + 4] {
            if first == nil { first = pixel }
            count += 1
        }
        guard let first else { return nil }
        let x = first / 4 % width
        let y = first / 4 / width
        return
            "(\(x),\(y)) is \(Array(actual[first..<first + 4])), expected \(Array(expected[first..<first + 4])); \(count) pixels differ"
    }

    // MARK: - Stills

    @Test("a still is detected by its RIFF....WEBP signature and written for .webp outputs")
    func registry() throws {
        let file = WebPTestBuilder.still(
            PixelBuffer(width: 2, height: 2, rgba8: [UInt8](repeating: 200, count: 16)), lossless: true)
        #expect(ImageFormat.sniff(file) == .webp)
        #expect(CodecRegistry.standard.codec(forOutput: "out.WEBP")?.format == .webp)
        let writer = try CodecRegistry.standard.writer(forOutput: "sticker.webp")
        #expect(writer.capabilities == [.read, .readAnimation, .write, .writeAnimation, .writeAlpha])
        #expect(!WebPCodec().sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)))
    }

    @Test(
        "stills decode as libwebp decodes them",
        arguments: [(true, false), (true, true), (false, false), (false, true)])
    func stills(lossless: Bool, alpha: Bool) throws {
        var random = WebPTestRandom(state: 7)
        let picture = random.picture(width: 37, height: 21, alpha: alpha)
        let file = WebPTestBuilder.still(picture, lossless: lossless)
        let (info, frames) = try Self.decode(file)
        #expect(info.format == .webp)
        #expect(info.width == 37 && info.height == 21 && info.frameCount == 1 && frames.count == 1)
        #expect(info.compression == (lossless ? .lossless : .lossy))
        #expect(info.colorType == (alpha ? .rgba : .rgb))
        #expect(info.isComplete && info.warnings.isEmpty)
        let reference = try #require(WebPTestBuilder.referenceStill(file))
        let actual = try #require(frames[0].image.rgba8)
        #expect(Self.difference(actual, reference, width: 37) == nil)
        if lossless && !alpha {
            #expect(actual == picture.rgba8)  // lossless keeps every visible pixel
        }
    }

    @Test("16-bit output widens the 8-bit samples")
    func sixteenBit() throws {
        let picture = PixelBuffer(width: 1, height: 1, rgba8: [1, 2, 3, 255])
        let source = try ImageSource(data: WebPTestBuilder.still(picture, lossless: true), name: "a.webp")
        let frame = try source.frame(at: 0, depth: .sixteen)
        #expect(frame.image.rgba16 == [257, 514, 771, 65535])
    }

    // MARK: - Animations against WebPAnimDecoder

    /// Three frames over a 12x8 canvas: an opaque-and-translucent background, then two frames
    /// with the blend and disposal under test, partly over the same pixels.
    static func variantFile(blend: Bool, dispose: Bool, lossless: Bool) -> [UInt8] {
        var random = WebPTestRandom(state: blend ? 11 : 13)
        let frames = [
            WebPTestBuilder.Frame(
                image: random.picture(width: 10, height: 8, alpha: true), duration: 70, lossless: lossless),
            WebPTestBuilder.Frame(
                image: random.picture(width: 6, height: 4, alpha: true), x: 4, y: 2, duration: 0, blends: blend,
                disposes: dispose, lossless: lossless),
            WebPTestBuilder.Frame(
                image: random.picture(width: 8, height: 6, alpha: true), x: 2, y: 2, duration: 130, blends: blend,
                disposes: dispose, lossless: lossless),
            WebPTestBuilder.Frame(
                image: random.picture(width: 12, height: 8, alpha: true), duration: 40, blends: blend,
                lossless: lossless),
        ]
        return WebPTestBuilder.animation(width: 12, height: 8, loopCount: 3, frames: frames)
    }

    @Test(
        "animations composite as WebPAnimDecoder does", arguments: [false, true], [false, true])
    func blendAndDisposal(blend: Bool, dispose: Bool) throws {
        for lossless in [true, false] {
            let file = Self.variantFile(blend: blend, dispose: dispose, lossless: lossless)
            let reference = try #require(WebPTestBuilder.reference(file))
            let (info, frames) = try Self.decode(file)
            #expect(info.frameCount == 4 && frames.count == 4)
            #expect(info.loopValue == 3 && info.plays == 3)
            #expect(info.frames.map(\.delayMilliseconds) == [70, 0, 130, 40])
            #expect(info.frames[1].blend == (blend ? .over : .source))
            #expect(info.frames[1].disposal == (dispose ? .background : .none))
            #expect(info.frames[1].region == FrameRegion(x: 4, y: 2, width: 6, height: 4))
            #expect(info.compression == (lossless ? .lossless : .lossy))
            for (index, frame) in frames.enumerated() {
                let actual = try #require(frame.image.rgba8)
                let problem = Self.difference(actual, reference.frames[index].pixels, width: 12)
                #expect(problem == nil, "frame \(index), lossless \(lossless): \(problem ?? "")")
            }
        }
    }

    @Test("random animations composite as WebPAnimDecoder does", arguments: 1...12)
    func randomAnimations(seed: UInt64) throws {
        var random = WebPTestRandom(state: seed)
        let width = Int.random(in: 2...24, using: &random) & ~1
        let height = Int.random(in: 2...16, using: &random) & ~1
        var frames: [WebPTestBuilder.Frame] = []
        for _ in 0..<Int.random(in: 1...7, using: &random) {
            let full = Int.random(in: 0..<4, using: &random) == 0
            let x = full ? 0 : Int.random(in: 0..<width / 2, using: &random) * 2
            let y = full ? 0 : Int.random(in: 0..<height / 2, using: &random) * 2
            let w = full ? width : Int.random(in: 1...(width - x), using: &random)
            let h = full ? height : Int.random(in: 1...(height - y), using: &random)
            frames.append(
                WebPTestBuilder.Frame(
                    image: random.picture(width: w, height: h, alpha: Bool.random(using: &random)), x: x, y: y,
                    duration: Int.random(in: 0...200, using: &random), blends: Bool.random(using: &random),
                    disposes: Bool.random(using: &random), lossless: Int.random(in: 0..<3, using: &random) > 0))
        }
        let file = WebPTestBuilder.animation(width: width, height: height, frames: frames)
        let reference = try #require(WebPTestBuilder.reference(file))
        let (info, decoded) = try Self.decode(file)
        #expect(decoded.count == reference.frames.count)
        #expect(info.loopValue == 0 && info.plays == 0)
        for (index, frame) in decoded.enumerated() {
            let problem = Self.difference(try #require(frame.image.rgba8), reference.frames[index].pixels, width: width)
            #expect(problem == nil, "seed \(seed) frame \(index): \(problem ?? "")")
        }
    }

    @Test("decoding ahead on helper threads gives the same frames as decoding alone")
    func helpers() throws {
        var random = WebPTestRandom(state: 99)
        let frames = (0..<24).map { _ in
            WebPTestBuilder.Frame(image: random.picture(width: 64, height: 48, alpha: true), duration: 10)
        }
        let file = WebPTestBuilder.animation(width: 64, height: 48, frames: frames)
        let source = try WebPSource(data: file, limits: .default)
        let alone = WebPFrameReader(source: source, depth: .eight, helpers: 0)
        let ahead = WebPFrameReader(source: source, depth: .eight, helpers: 2)
        while let expected = try alone.nextFrame() {
            #expect(try ahead.nextFrame() == expected)
        }
        #expect(try ahead.nextFrame() == nil)
    }

    @Test("frames kept by the caller stay as they were while later frames reuse the decoding buffers")
    func keptFrames() throws {
        var random = WebPTestRandom(state: 7)
        // Whole-canvas opaque frames (the reader takes their buffer as the canvas) between
        // blended sub-rectangles, so canvases and decoding buffers trade places.
        let frames = (0..<30).map { index in
            index % 3 == 0
                ? WebPTestBuilder.Frame(image: random.picture(width: 64, height: 48, alpha: false), blends: false)
                : WebPTestBuilder.Frame(
                    image: random.picture(width: 24, height: 16, alpha: true), x: 2 * (index % 20), y: 2 * (index % 16),
                    disposes: index % 2 == 0)
        }
        let file = WebPTestBuilder.animation(width: 64, height: 48, frames: frames)
        let source = try WebPSource(data: file, limits: .default)
        let alone = WebPFrameReader(source: source, depth: .eight, helpers: 0)
        var expected: [[UInt8]] = []
        while let frame = try alone.nextFrame() { expected.append(Array(frame.image.rgba8 ?? [])) }
        let ahead = WebPFrameReader(source: source, depth: .eight, helpers: 2)
        var kept: [Frame] = []
        while let frame = try ahead.nextFrame() { kept.append(frame) }
        #expect(kept.map { $0.image.rgba8 ?? [] } == expected)
        #expect(WebPFrameReader.window(canvasBytes: 1920 * 1080 * 4) == 1)
    }

    // MARK: - Damaged files

    static func animation(frames count: Int) -> [UInt8] {
        var random = WebPTestRandom(state: 5)
        let frames = (0..<count).map { index in
            WebPTestBuilder.Frame(image: random.picture(width: 8, height: 8, alpha: false), duration: 10 * (index + 1))
        }
        return WebPTestBuilder.animation(width: 8, height: 8, loopCount: 2, frames: frames)
    }

    /// Offsets of the ANMF chunks of `file`.
    static func frameOffsets(_ file: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 12
        while offset + 8 <= file.count {
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16
            if file[offset..<offset + 4].elementsEqual("ANMF".utf8) { offsets.append(offset) }
            offset += 8 + size + (size & 1)
        }
        return offsets
    }

    @Test("a truncated animation keeps the frames complete before the cut")
    func truncatedAnimation() throws {
        let file = Self.animation(frames: 4)
        let offsets = Self.frameOffsets(file)
        // Given the file cut in the middle of frame 2's ANMF chunk
        let cut = Array(file[..<(offsets[2] + 20)])
        // When
        let (info, frames) = try Self.decode(cut, name: "cut.webp")
        // Then
        #expect(frames.count == 2 && info.frameCount == 2)
        #expect(!info.isComplete)
        #expect(info.warnings.first?.contains("inside the ANMF chunk at offset \(offsets[2])") == true)
        #expect(info.frames.map(\.delayMilliseconds) == [10, 20])
        let whole = try Self.decode(file).1
        #expect(frames[1].image == whole[1].image)
    }

    @Test("a file cut before its first frame is complete is a truncated error naming the input")
    func truncatedFirstFrame() throws {
        let file = Self.animation(frames: 2)
        let cut = Array(file[..<(Self.frameOffsets(file)[0] + 30)])
        let error = try #require(throws: ImgToolError.self) { try Self.decode(cut, name: "short.webp") }
        #expect(error.code == .truncated)
        #expect(error.input == "short.webp")
        #expect(error.description.hasPrefix("short.webp: truncated WebP: the data ends at byte \(cut.count)"))
        let still = WebPTestBuilder.still(
            PixelBuffer(width: 4, height: 4, rgba8: [UInt8](repeating: 9, count: 64)), lossless: true)
        #expect(throws: ImgToolError.self) { try Self.decode(Array(still[..<20]), name: "s.webp") }
    }

    @Test("corrupt chunks are refused with the chunk and its offset")
    func corruptChunks() throws {
        let file = Self.animation(frames: 2)
        let offsets = Self.frameOffsets(file)
        // An ANMF frame before the ANIM chunk: ANIM renamed to an unknown chunk.
        var noAnim = file
        noAnim.replaceSubrange(30..<34, with: Array("XXXX".utf8))
        let first = try #require(throws: ImgToolError.self) { try Self.decode(noAnim, name: "a.webp") }
        #expect(first.code == .corrupt && first.input == "a.webp")
        #expect(first.message == "corrupt WebP: the ANMF chunk at offset \(offsets[0]) comes before the ANIM chunk")
        // A frame moved past the canvas (X / 2 = 1 for an 8-pixel-wide frame on an 8-wide canvas).
        var outside = file
        outside[offsets[1] + 8] = 1
        let second = try #require(throws: ImgToolError.self) { try Self.decode(outside, name: "b.webp") }
        #expect(second.code == .corrupt)
        #expect(second.message.contains("ANMF frame 1 (offset \(offsets[1])) (8x8 at 2,0) extends past the 8x8 canvas"))
        // A chunk size past the RIFF size.
        var oversized = file
        oversized.replaceSubrange(offsets[1] + 4..<offsets[1] + 8, with: WebPTestBuilder.le32(1 << 20))
        let third = try #require(throws: ImgToolError.self) { try Self.decode(oversized, name: "c.webp") }
        #expect(third.code == .corrupt && third.message.contains("the ANMF chunk at offset \(offsets[1]) declares"))
        // Not a WebP bitstream in the first chunk.
        var header = file
        header.replaceSubrange(12..<16, with: Array("JUNK".utf8))
        let fourth = try #require(throws: ImgToolError.self) { try Self.decode(header, name: "d.webp") }
        #expect(fourth.message == "corrupt WebP: the first chunk is JUNK at offset 12, expected VP8, VP8L or VP8X")
    }

    @Test("stray bytes at the end of the RIFF data are ignored with a warning; bytes after it silently")
    func strayBytes() throws {
        var random = WebPTestRandom(state: 4)
        let file = WebPTestBuilder.still(random.picture(width: 6, height: 5, alpha: true), lossless: false)
        #expect(file[12..<16].elementsEqual("VP8X".utf8))
        var padded = file + [1, 2, 3, 4]
        padded.replaceSubrange(4..<8, with: WebPTestBuilder.le32(file.count - 8 + 4))
        let (info, frames) = try Self.decode(padded)
        #expect(frames.count == 1 && info.isComplete)
        #expect(info.warnings == ["4 stray bytes at offset \(file.count), at the end of the RIFF data, ignored"])
        let trailing = try Self.decode(file + [9, 9, 9])
        #expect(trailing.0.warnings.isEmpty && trailing.1[0].image == frames[0].image)
    }

    @Test("a bitstream that does not decode fails at its frame, after the frames before it")
    func corruptBitstream() throws {
        let file = Self.animation(frames: 3)
        let offsets = Self.frameOffsets(file)
        var damaged = file
        // Scribble over frame 1's VP8L data, after its header (ANMF 8 + 16, VP8L 8 + 5).
        for index in offsets[1] + 40..<min(offsets[2] - 2, offsets[1] + 60) { damaged[index] = 0xff }
        let source = try ImageSource(data: damaged, name: "bad.webp")
        let reader = try source.makeFrameReader(depth: .eight)
        #expect(try reader.nextFrame()?.index == 0)
        let error = try #require(throws: ImgToolError.self) { try reader.nextFrame() }
        #expect(error.code == .corrupt && error.input == "bad.webp")
        #expect(error.message.contains("ANMF frame 1 (offset \(offsets[1]))"))
        #expect(error.cause != nil)
    }

    // MARK: - Limits

    @Test("limits refuse a canvas, a frame count and frames x canvas before allocating")
    func limits() throws {
        // A VP8X header declaring a 16384 x 16384 canvas, with no frame data at all.
        let huge =
            Array("RIFF".utf8) + WebPTestBuilder.le32(4 + 18) + Array("WEBP".utf8)
            + WebPTestBuilder.chunk(
                "VP8X", [0x02, 0, 0, 0] + WebPTestBuilder.le24(16383) + WebPTestBuilder.le24(16383))
        let canvas = try #require(throws: ImgToolError.self) {
            try Self.decode(huge, name: "huge.webp", limits: DecodingLimits(maxPixels: 1 << 20))
        }
        #expect(canvas.code == .tooLarge && canvas.input == "huge.webp")
        #expect(canvas.message.contains("WebP canvas is 16384x16384"))

        let file = Self.animation(frames: 4)
        let frames = try #require(throws: ImgToolError.self) {
            try Self.decode(file, name: "many.webp", limits: DecodingLimits(maxFrames: 3))
        }
        #expect(frames.code == .tooLarge && frames.message.contains("4 frames"))
        let total = try #require(throws: ImgToolError.self) {
            try Self.decode(file, name: "bomb.webp", limits: DecodingLimits(maxTotalPixels: 8 * 8 * 3))
        }
        #expect(total.code == .tooLarge && total.message.contains("over the limit of 192 pixels in all"))
    }

    // MARK: - Writing

    /// Frames that change a rectangle at a time, sometimes not at all, with translucent and
    /// transparent (but coloured) pixels.
    static func changingFrames(count: Int, width: Int, height: Int, seed: UInt64) -> [PixelBuffer] {
        var random = WebPTestRandom(state: seed)
        var frames = [random.picture(width: width, height: height, alpha: true)]
        while frames.count < count {
            var next = frames[frames.count - 1].rgba8 ?? []
            if Int.random(in: 0..<4, using: &random) > 0 {
                let patch = random.picture(width: width, height: height, alpha: true).rgba8 ?? []
                let x0 = Int.random(in: 0..<width, using: &random)
                let y0 = Int.random(in: 0..<height, using: &random)
                for y in y0..<min(height, y0 + 5) {
                    for x in x0..<min(width, x0 + 7) {
                        next.replaceSubrange(
                            (y * width + x) * 4..<(y * width + x) * 4 + 4,
                            with: patch[(y * width + x) * 4..<(y * width + x) * 4 + 4])
                    }
                }
            }
            frames.append(PixelBuffer(width: width, height: height, rgba8: next))
        }
        return frames
    }

    @Test("lossless output of a lossless input decodes to exactly the input frames, delays and plays")
    func losslessRoundTrip() async throws {
        let images = Self.changingFrames(count: 12, width: 20, height: 14, seed: 3)
        let delays: [Duration] =
            [.milliseconds(100), .zero, .microseconds(33_333), .microseconds(33_333), .microseconds(33_334)]
            + (0..<7).map { .milliseconds(10 * $0) }
        // Read from a lossless WebP: delays under 20 ms, stored in the writer's own format, are
        // kept as they are (WrittenTiming).
        var source = WebPTestSource(images: images, delays: delays, plays: 4, format: .webp)
        source.info.compression = .lossless
        let file = try await Self.write(source)
        let (info, frames) = try Self.decode(file)
        #expect(info.compression == .lossless)
        #expect(info.loopValue == 4 && info.plays == 4)
        // Frames identical to the one before are merged into its duration by WebPAnimEncoder:
        // walk the input, moving to the next output frame whenever the picture changes (or a
        // half encoded on its own starts).
        let segmentStarts = Set(WebPWriter.segments(frameCount: images.count).map(\.lowerBound))
        var output = 0
        var start = Duration.zero
        var outputStart = 0
        for (index, image) in images.enumerated() {
            if index > 0, image != images[index - 1] || segmentStarts.contains(index) {
                outputStart += Int(frames[output].info.delayMilliseconds)
                output += 1
                #expect(outputStart == WebPWriter.timestamp(start), "frame \(index) starts at \(outputStart) ms")
            }
            let actual = try #require(frames[output].image.rgba8)
            #expect(Self.difference(actual, image.rgba8 ?? [], width: 20) == nil, "input frame \(index)")
            start += delays[index]
        }
        #expect(output == frames.count - 1)
        let total = frames.reduce(0) { $0 + Int($1.info.delayMilliseconds) }
        #expect(total == WebPWriter.timestamp(delays.reduce(.zero, +)))
    }

    @Test("halves encoded at once join into one animation, a half of identical frames included")
    func halves() async throws {
        var random = WebPTestRandom(state: 31)
        let first = random.picture(width: 16, height: 10, alpha: true)
        let second = random.picture(width: 16, height: 10, alpha: true)
        let images = [first, second, first, second, first, second, second, second, second, second]
        let delays = (0..<10).map { Duration.milliseconds(10 + $0) }
        #expect(WebPWriter.segments(frameCount: 10, processors: 2) == [0..<5, 5..<10])
        #expect(WebPWriter.segments(frameCount: 10, processors: 1) == [0..<10])
        // Delays under 20 ms, stored in a lossless WebP, are kept as they are (WrittenTiming).
        var source = WebPTestSource(images: images, delays: delays, plays: 2, format: .webp)
        source.info.compression = .lossless
        let file = try await Self.write(source)
        let (info, frames) = try Self.decode(file)
        #expect(info.plays == 2)
        // Shown at each input frame's start: the canvas of the output frame covering it.
        var starts: [Int] = []
        var time = 0
        for frame in frames {
            starts.append(time)
            time += Int(frame.info.delayMilliseconds)
        }
        #expect(time == delays.reduce(0) { $0 + Int($1.milliseconds) })
        var inputTime = 0
        for (index, image) in images.enumerated() {
            let shown = try #require(starts.lastIndex { $0 <= inputTime })
            #expect(frames[shown].image == image, "input frame \(index)")
            inputTime += Int(delays[index].milliseconds)
        }
        #expect(try WebPCodec().encoded(source) == file)
    }

    @Test("a frame counts as redrawn, so that no key frames are looked for, when nine pixels in ten change")
    func redrawnFrames() {
        let before = PixelBuffer(width: 10, height: 10, rgba8: [UInt8](repeating: 7, count: 400))
        func changing(_ pixels: Int) -> PixelBuffer {
            var samples = [UInt8](repeating: 7, count: 400)
            for pixel in 0..<pixels { samples[pixel * 4 + 3] = 8 }
            return PixelBuffer(width: 10, height: 10, rgba8: samples)
        }
        #expect(WebPWriter.isRedrawn(changing(90), from: before))
        #expect(WebPWriter.isRedrawn(changing(100), from: before))
        #expect(!WebPWriter.isRedrawn(changing(89), from: before))
        #expect(!WebPWriter.isRedrawn(before, from: before))
        #expect(!WebPWriter.isRedrawn(changing(100).converted(to: .sixteen), from: before))
        let smaller = PixelBuffer(width: 5, height: 5, rgba8: [UInt8](repeating: 1, count: 100))
        #expect(!WebPWriter.isRedrawn(smaller, from: before))
    }

    @Test(
        "stills joined and written losslessly in two halves decode to exactly the stills, each for its delay",
        arguments: ["noise", "opaque noise", "opaque patches"])
    func joinedStills(kind: String) async throws {
        // Noise redraws every pixel: no key frames are looked for, and the second half's reader
        // starts at its first still. Opaque stills are encoded with libwebp's `exact` off; where
        // patches change, libwebp makes the unchanged pixels transparent and blends.
        let pictures =
            kind == "opaque patches"
            ? Self.changingFrames(count: 9, width: 12, height: 8, seed: 7)
            : (0..<9).map { TestImages.noise8(width: 12, height: 8, seed: UInt64(40 + $0)) }
        let stills = pictures.map { picture in
            var samples = picture.rgba8 ?? []
            if kind != "noise" { for alpha in stride(from: 3, to: samples.count, by: 4) { samples[alpha] = 255 } }
            return PixelBuffer(width: 12, height: 8, rgba8: samples)
        }
        let join = try JoinedFrameSource(
            stills.map { JoinInput(source: StillImageSource($0)) }, stillDelay: .milliseconds(40))
        #expect(WebPWriter.segments(frameCount: 9, processors: 2) == [0..<4, 4..<9])
        var options = ImageWriteOptions()
        options.lossless = true
        let file = try await Self.write(join, options: options)
        let (info, frames) = try Self.decode(file)
        #expect(info.compression == .lossless)
        // Noise never repeats a still; a repeated patch still is merged into the one before.
        if kind != "opaque patches" { #expect(frames.count == 9) }
        var starts: [Int] = []
        var time = 0
        for frame in frames {
            starts.append(time)
            time += Int(frame.info.delayMilliseconds)
        }
        #expect(time == 9 * 40)
        for (index, still) in stills.enumerated() {
            let shown = try #require(starts.lastIndex { $0 <= index * 40 })
            let actual = try #require(frames[shown].image.rgba8)
            #expect(Self.difference(actual, still.rgba8 ?? [], width: 12) == nil, "still \(index)")
        }
    }

    @Test("a lossless WebP is rewritten losslessly, a lossy one lossy; options override both")
    func losslessDefault() async throws {
        var random = WebPTestRandom(state: 21)
        let picture = random.picture(width: 30, height: 20, alpha: true)
        let lossy = try ImageSource(data: WebPTestBuilder.still(picture, lossless: false), name: "lossy.webp")
        let lossless = try ImageSource(data: WebPTestBuilder.still(picture, lossless: true), name: "lossless.webp")
        #expect(try Self.decode(try await Self.write(lossy)).0.compression == .lossy)
        #expect(try Self.decode(try await Self.write(lossless)).0.compression == .lossless)
        let forced = try await Self.write(lossy, options: ImageWriteOptions(lossless: true))
        #expect(try Self.decode(forced).0.compression == .lossless)
        let gif = WebPTestSource(images: [picture], delays: [.zero])
        #expect(gif.info.isStoredExactly)
        var jpeg = gif.info
        jpeg.format = ImageFormat(rawValue: "jpeg")
        #expect(!jpeg.isStoredExactly)
    }

    @Test("the compression level is libwebp's method: 0 to 6, 7-9 as 6; lossless at any level stays exact")
    func compressionLevel() async throws {
        var random = WebPTestRandom(state: 44)
        let picture = random.picture(width: 40, height: 30, alpha: true)
        let still = WebPTestSource(images: [picture], delays: [.zero])
        func write(level: Int?, lossless: Bool) async throws -> [UInt8] {
            try await Self.write(still, options: ImageWriteOptions(compressionLevel: level, lossless: lossless))
        }
        for level in [0, 6, 9] {
            let (_, frames) = try Self.decode(try await write(level: level, lossless: true))
            #expect(frames[0].image == picture, "lossless at level \(level)")
        }
        #expect(try await write(level: 9, lossless: true) == write(level: 6, lossless: true))
        #expect(try await write(level: 9, lossless: false) == write(level: 6, lossless: false))
        #expect(try await write(level: 0, lossless: false) != write(level: nil, lossless: false))
        #expect(try await write(level: 4, lossless: false) == write(level: nil, lossless: false))
        await #expect(throws: ImgToolError.self) { _ = try await write(level: -1, lossless: false) }
    }

    @Test("a still written losslessly keeps every pixel, transparent ones' colour included")
    func losslessStill() async throws {
        var random = WebPTestRandom(state: 8)
        let picture = random.picture(width: 17, height: 9, alpha: true)
        let file = try await Self.write(WebPTestSource(images: [picture], delays: [.zero]))
        let (info, frames) = try Self.decode(file)
        #expect(info.frameCount == 1 && !info.isAnimated)
        #expect(frames[0].image == picture)
    }

    @Test("lossy output follows the quality, and plays can be overridden")
    func lossyQuality() async throws {
        let images = Self.changingFrames(count: 4, width: 64, height: 48, seed: 12)
        let source = WebPTestSource(images: images, delays: Array(repeating: .milliseconds(50), count: 4), plays: 0)
        let low = try await Self.write(source, options: ImageWriteOptions(plays: 7, quality: 10, lossless: false))
        let high = try await Self.write(source, options: ImageWriteOptions(quality: 95, lossless: false))
        #expect(low.count < high.count)
        let (info, frames) = try Self.decode(low)
        #expect(info.compression == .lossy && info.plays == 7 && frames.count >= 2)
        #expect(try Self.decode(high).0.plays == 0)
        await #expect(throws: ImgToolError.self) {
            _ = try await Self.write(source, options: ImageWriteOptions(quality: 101))
        }
        // Past ANIM's 16-bit loop count: clamped (AnimationLimits; the CLI prints a note).
        #expect(
            try Self.decode(try await Self.write(source, options: ImageWriteOptions(plays: 70_000))).0.plays == 65535)
    }

    @Test("a decoded animation rewritten losslessly decodes to the same canvases")
    func rewriteDecodedAnimation() async throws {
        let file = Self.variantFile(blend: true, dispose: true, lossless: true)
        let source = try ImageSource(data: file, name: "in.webp")
        let written = try await Self.write(source)
        let (info, frames) = try Self.decode(written)
        let (original, originalFrames) = try Self.decode(file)
        #expect(info.plays == original.plays && info.compression == .lossless)
        #expect(frames.count == originalFrames.count)
        for (a, b) in zip(frames, originalFrames) {
            var actual = a.image
            var expected = b.image
            actual.clearInvisibleColor()
            expected.clearInvisibleColor()
            #expect(actual == expected)
            #expect(a.info.delay == b.info.delay)
        }
    }

    @Test("ImageIO's delay policy leaves WebP delays unclamped")
    func imageioPolicy() {
        #expect(DelayPolicy.imageio.effectiveDelay(.milliseconds(20), format: .webp) == .milliseconds(20))
        #expect(DelayPolicy.browser.effectiveDelay(.zero, format: .webp) == .milliseconds(100))
    }
}
