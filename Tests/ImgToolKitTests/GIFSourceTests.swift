import Testing

@testable import ImgToolKit

/// What a GIF source reads before decoding any pixel: frame table, delays, loop count, limits,
/// truncation and errors.
@Suite("GIF structure", .timeLimit(.minutes(5)))
struct GIFSourceTests {
    /// A 2x1 animation of `count` frames, with `extra` records before the first image.
    static func animation(frames count: Int, before extra: (inout GIFBuilder) -> Void = { _ in }) -> [UInt8] {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        extra(&gif)
        for index in 0..<count {
            gif.control(delay: index + 1)
            gif.image(width: 2, height: 1, indices: [UInt8(index % 4), 1])
        }
        return gif.build()
    }

    @Test("no loop extension: no loop value, one play")
    func noLoop() throws {
        let info = try ImageSource(data: Self.animation(frames: 2), name: "a.gif").info
        #expect(info.loopValue == nil)
        #expect(info.plays == 1)
    }

    @Test("a loop value N means N + 1 plays, 0 forever", arguments: [(0, 0), (1, 2), (5, 6), (65535, 65536)])
    func loopValues(_ value: Int, _ plays: Int) throws {
        let info = try ImageSource(data: Self.animation(frames: 2) { $0.loop(value) }, name: "a.gif").info
        #expect(info.loopValue == value)
        #expect(info.plays == plays)
    }

    @Test("ANIMEXTS1.0 is read like NETSCAPE2.0")
    func animexts() throws {
        let info = try ImageSource(
            data: Self.animation(frames: 2) { $0.loop(3, identifier: "ANIMEXTS1.0") }, name: "a.gif"
        ).info
        #expect(info.loopValue == 3)
    }

    @Test("the first loop block wins, even one after the first frame")
    func firstLoopWins() throws {
        var gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        gif.image(width: 1, height: 1, indices: [0])
        gif.loop(7)
        gif.image(width: 1, height: 1, indices: [1])
        gif.loop(2)
        gif.image(width: 1, height: 1, indices: [2])
        let info = try ImageSource(data: gif.build(), name: "a.gif").info
        #expect(info.loopValue == 7)
        #expect(info.plays == 8)
    }

    @Test("other application extensions and comments are skipped")
    func otherExtensions() throws {
        let bytes = Self.animation(frames: 2) { gif in
            gif.raw([0x21, 0xFF, 0x0B] + Array("XMP DataXMP".utf8) + [0x03, 0x01, 0x09, 0x00, 0x00])
            gif.comment([Array("hello".utf8), Array("world".utf8)])
        }
        let info = try ImageSource(data: bytes, name: "a.gif").info
        #expect(info.loopValue == nil)
        #expect(info.frameCount == 2)
    }

    @Test("a comment with no data sub-block at all is valid (21 FE 00)")
    func emptyComment() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        gif.comment([])
        gif.image(width: 2, height: 1, indices: [0, 1])
        gif.comment([])
        let (info, frames) = try decodeGIFFrames(gif.build())
        #expect(info.frameCount == 1 && info.isComplete)
        expectGIFPicture(frames[0].image, ["RG"])
    }

    @Test("delays are the stored centiseconds x 10 ms, unclamped; the last control block wins")
    func delays() throws {
        var gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        gif.control(delay: 20)
        gif.control(delay: 30, disposal: 2)
        gif.image(width: 1, height: 1, indices: [0])
        gif.image(width: 1, height: 1, indices: [1])
        gif.control(delay: 0)
        gif.image(width: 1, height: 1, indices: [2])
        gif.control(delay: 65535)
        gif.image(width: 1, height: 1, indices: [3])
        let info = try ImageSource(data: gif.build(), name: "a.gif").info
        #expect(info.frames.map(\.delay) == [.milliseconds(300), .zero, .zero, .milliseconds(655_350)])
        #expect(info.frames.map(\.disposal) == [.background, .none, .none, .none])
        #expect(info.frames.allSatisfy { $0.blend == .over })
    }

    @Test(
        "disposal methods map to the frame table",
        arguments: [(0, FrameDisposal.none), (1, .none), (2, .background), (3, .previous), (4, .none), (7, .none)])
    func disposals(_ method: Int, _ disposal: FrameDisposal) throws {
        var gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        gif.control(disposal: method)
        gif.image(width: 1, height: 1, indices: [0])
        #expect(try ImageSource(data: gif.build(), name: "a.gif").info.frames[0].disposal == disposal)
    }

    @Test("the frame table lists regions as declared, and the screen as the canvas")
    func frameTable() throws {
        var gif = GIFBuilder(width: 5, height: 4, globalColors: gifTestPalette)
        gif.image(x: 1, y: 2, width: 3, height: 1, indices: [0, 1, 2])
        let info = try ImageSource(data: gif.build(), name: "a.gif").info
        #expect(info.format == .gif && info.width == 5 && info.height == 4)
        #expect(
            info.frames == [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 1, y: 2, width: 3, height: 1), disposal: .none,
                    blend: .over)
            ])
        #expect(info.isComplete && info.warnings.isEmpty)
    }

    // MARK: - Truncation

    @Test("a file cut inside a frame keeps the complete frames before the cut")
    func truncatedInsideFrame() throws {
        let whole = Self.animation(frames: 3)
        // Given the file cut in the middle of the last frame's image data
        let cut = Array(whole.prefix(whole.count - 4))
        // When
        let (info, frames) = try decodeGIFFrames(cut, name: "cut.gif")
        // Then
        #expect(info.frameCount == 2 && frames.count == 2)
        #expect(!info.isComplete)
        #expect(info.warnings.contains { $0.contains("truncated GIF") && $0.contains("frame 2") })
        let (_, complete) = try decodeGIFFrames(whole)
        #expect(frames.map(\.image) == complete.prefix(2).map(\.image))
    }

    @Test("a file without its trailer has every frame but is incomplete")
    func missingTrailer() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        gif.image(width: 2, height: 1, indices: [0, 1])
        let (info, frames) = try decodeGIFFrames(gif.build(trailer: false))
        #expect(frames.count == 1)
        #expect(!info.isComplete)
    }

    @Test(
        "a file cut before any frame is complete is a truncated error naming the input",
        arguments: [6, 10, 13, 20, 30, 42])
    func truncatedFirstFrame(_ length: Int) throws {
        let bytes = Array(Self.animation(frames: 1) { $0.loop(0) }.prefix(length))
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: bytes, name: "short.gif") }
        #expect(error.code == .truncated)
        #expect(error.input == "short.gif")
        #expect(error.description.hasPrefix("short.gif: truncated GIF"))
    }

    // MARK: - Errors

    @Test("a GIF with no image is corrupt")
    func noFrames() throws {
        let gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: gif.build(), name: "empty.gif") }
        #expect(error.code == .corrupt)
        #expect(error.description == "empty.gif: corrupt GIF: no image before its trailer at byte 25")
    }

    @Test("an unknown record after a frame is corrupt, with the byte and its offset")
    func garbageRecord() throws {
        var gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        gif.image(width: 1, height: 1, indices: [0])
        gif.raw([0x99])
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: gif.build(), name: "junk.gif") }
        #expect(error.code == .corrupt)
        #expect(error.input == "junk.gif")
        #expect(error.message.contains("byte 0x99") && error.message.contains("after frame 0"))
        #expect(error.cause == "Wrong record type detected")
    }

    @Test("a zero-size frame whose data holds pixels is corrupt")
    func zeroSizeWithPixels() throws {
        var gif = GIFBuilder(width: 2, height: 2, globalColors: gifTestPalette)
        gif.rawImage(width: 0, height: 0, minimumCodeSize: 2, data: [0x28])  // codes: 0 (a pixel), then end
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: gif.build(), name: "zero.gif") }
        #expect(error.code == .corrupt)
        #expect(error.description == "zero.gif: corrupt GIF: frame 0 is 0x0 at 0,0 but its image data holds pixels")
    }

    @Test("an LZW minimum code size over 8 is corrupt")
    func badCodeSize() throws {
        var gif = GIFBuilder(width: 1, height: 1, globalColors: gifTestPalette)
        gif.rawImage(width: 1, height: 1, minimumCodeSize: 12, data: [0x00])
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: gif.build(), name: "lzw.gif") }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("LZW minimum code size 12"))
    }

    @Test("image data that ends before the frame is full fails while reading, naming the input")
    func notEnoughPixels() throws {
        var gif = GIFBuilder(width: 2, height: 2, globalColors: gifTestPalette)
        gif.rawImage(width: 2, height: 2, minimumCodeSize: 2, data: [0x28])
        let source = try ImageSource(data: gif.build(), name: "short-lzw.gif")
        #expect(source.info.frameCount == 1)
        let reader = try source.makeFrameReader()
        let error = try #require(throws: ImgToolError.self) { try reader.nextFrame() }
        #expect(error.code == .corrupt)
        #expect(error.input == "short-lzw.gif")
        #expect(error.cause == "Image EOF detected before image complete")
        // The reader stays failed.
        #expect(throws: ImgToolError.self) { try reader.nextFrame() }
    }

    // MARK: - Limits

    @Test("a 65535x65535 screen is refused before anything is allocated")
    func hugeScreen() throws {
        var gif = GIFBuilder(width: 65535, height: 65535, globalColors: gifTestPalette)
        gif.image(width: 1, height: 1, indices: [0])
        let bytes = gif.build()
        #expect(bytes.count < 64)
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: bytes, name: "huge.gif") }
        #expect(error.code == .tooLarge)
        #expect(error.input == "huge.gif")
        #expect(error.message.contains("65535x65535"))
    }

    @Test("a frame over the pixel limit is refused, even outside the screen")
    func hugeFrame() throws {
        var gif = GIFBuilder(width: 10, height: 10, globalColors: gifTestPalette)
        gif.rawImage(x: 100, y: 100, width: 60000, height: 60000, minimumCodeSize: 2, data: [0x2C])
        let error = try #require(throws: ImgToolError.self) { try ImageSource(data: gif.build(), name: "big.gif") }
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("frame 0"))
    }

    @Test("frame count and total pixels are limited")
    func animationLimits() throws {
        let bytes = Self.animation(frames: 5)
        let frames = try #require(throws: ImgToolError.self) {
            try ImageSource(data: bytes, name: "many.gif", limits: DecodingLimits(maxFrames: 4))
        }
        #expect(frames.code == .tooLarge && frames.message.contains("5 frames"))
        let total = try #require(throws: ImgToolError.self) {
            try ImageSource(data: bytes, name: "many.gif", limits: DecodingLimits(maxTotalPixels: 9))
        }
        #expect(total.code == .tooLarge)
        #expect(
            try ImageSource(data: bytes, name: "many.gif", limits: DecodingLimits(maxFrames: 5, maxTotalPixels: 10))
                .info.frameCount == 5)
    }

    // MARK: - Reading

    @Test("a reader in a cancelled task stops with a cancelled error")
    func cancellation() async throws {
        let bytes = Self.animation(frames: 3)
        let task = Task { () -> ImgToolError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(ImgToolError) {
                let reader = try ImageSource(data: bytes, name: "a.gif").makeFrameReader()
                _ = try reader.nextFrame()
                return nil
            } catch {
                return error.code
            }
        }
        #expect(await task.value == .cancelled)
    }

    @Test("frames carry their table entry and GIF metadata")
    func frameMetadata() throws {
        let (info, frames) = try decodeGIFFrames(Self.animation(frames: 3))
        #expect(frames.map(\.info) == info.frames)
        #expect(frames.allSatisfy { $0.image.metadata?.format == .gif && $0.image.metadata?.colorType == .palette })
        let probe = GIFFirstCodeProbe(minimumCodeSize: 2)
        #expect(probe.foundPixel == nil)
    }

    @Test("the first-code probe skips clear codes and tells pixels from the end code")
    func firstCodeProbe() {
        // 3-bit codes, least significant bit first: clear (4), clear (4), end (5)
        var empty = GIFFirstCodeProbe(minimumCodeSize: 2)
        for byte: UInt8 in [0b0110_0100, 0b0000_0001] { empty.feed(byte) }
        #expect(empty.foundPixel == false)
        var pixel = GIFFirstCodeProbe(minimumCodeSize: 2)
        pixel.feed(0b0001_0100)  // clear (4), then 2
        #expect(pixel.foundPixel == true)
        var undecided = GIFFirstCodeProbe(minimumCodeSize: 8)
        undecided.feed(0x00)
        #expect(undecided.foundPixel == nil)
    }
}
