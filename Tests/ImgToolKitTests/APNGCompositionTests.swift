import Testing

@testable import ImgToolKit

/// Disposal, blending and decoding of APNG frames, on files built by ``APNGBuilder`` with the
/// expected pixels worked out by hand from the APNG specification.
@Suite("APNG composition", .timeLimit(.minutes(5)))
struct APNGCompositionTests {
    // Colours used below.
    static let red: [UInt8] = [255, 0, 0, 255]
    static let halfRed: [UInt8] = [255, 0, 0, 128]
    static let clear: [UInt8] = [0, 0, 0, 0]
    static let green: [UInt8] = [0, 255, 0, 255]
    static let halfBlue: [UInt8] = [0, 0, 255, 128]
    static let white: [UInt8] = [255, 255, 255, 255]
    /// halfBlue over halfRed: Ao = 128 + 128 * 127 / 255 = 191.75 -> 192;
    /// R = 255 * 128 * 127 / (128 * 255 + 128 * 127) = 84.78 -> 85; B = 255 * 128 * 255 / 48896 = 170.2 -> 170.
    static let halfBlueOverHalfRed: [UInt8] = [85, 0, 170, 192]

    struct Case: CustomTestStringConvertible, Sendable {
        var dispose: UInt8
        var blend: UInt8
        var frame1Row0: [[UInt8]]
        var frame2Row0: [[UInt8]]
        var testDescription: String { "dispose_op \(dispose), blend_op \(blend)" }
    }

    /// Frame 0 (the default image, 3x2): `red halfRed clear / green green green`.
    /// Frame 1: `halfBlue halfBlue` at 1,0 with the case's blend and dispose ops.
    /// Frame 2: one white pixel at 0,1, which shows what frame 1's disposal left behind.
    static let cases: [Case] = [
        Case(dispose: 0, blend: 0, frame1Row0: [red, halfBlue, halfBlue], frame2Row0: [red, halfBlue, halfBlue]),
        Case(
            dispose: 0, blend: 1, frame1Row0: [red, halfBlueOverHalfRed, halfBlue],
            frame2Row0: [red, halfBlueOverHalfRed, halfBlue]),
        Case(dispose: 1, blend: 0, frame1Row0: [red, halfBlue, halfBlue], frame2Row0: [red, clear, clear]),
        Case(dispose: 1, blend: 1, frame1Row0: [red, halfBlueOverHalfRed, halfBlue], frame2Row0: [red, clear, clear]),
        Case(dispose: 2, blend: 0, frame1Row0: [red, halfBlue, halfBlue], frame2Row0: [red, halfRed, clear]),
        Case(
            dispose: 2, blend: 1, frame1Row0: [red, halfBlueOverHalfRed, halfBlue], frame2Row0: [red, halfRed, clear]),
    ]

    static func threeFrames(dispose: UInt8, blend: UInt8, layout: APNGBuilder.Layout = .rgba8) -> APNGBuilder {
        var builder = APNGBuilder(width: 3, height: 2, layout: layout)
        builder.frames = [
            .init(image: APNGBuilder.image([[red, halfRed, clear], [green, green, green]])),
            .init(image: APNGBuilder.image([[halfBlue, halfBlue]]), x: 1, y: 0, dispose: dispose, blend: blend),
            .init(image: APNGBuilder.image([[white]]), x: 0, y: 1),
        ]
        return builder
    }

    @Test("every dispose_op x blend_op combination", arguments: cases)
    func disposeAndBlend(_ testCase: Case) throws {
        // Given three frames, the second with the case's ops
        let bytes = Self.threeFrames(dispose: testCase.dispose, blend: testCase.blend).build()
        // When every frame is decoded
        let (info, frames) = try APNGBuilder.decodeAll(bytes)
        // Then each canvas is what the specification's rules give
        #expect(info.frameCount == 3 && frames.count == 3)
        #expect(info.frames[1].disposal == [.none, .background, .previous][Int(testCase.dispose)])
        #expect(info.frames[1].blend == [.source, .over][Int(testCase.blend)])
        #expect(
            APNGPixels.difference(
                frames[0], [[Self.red, Self.halfRed, Self.clear], [Self.green, Self.green, Self.green]]) == nil)
        #expect(APNGPixels.difference(frames[1], [testCase.frame1Row0, [Self.green, Self.green, Self.green]]) == nil)
        #expect(APNGPixels.difference(frames[2], [testCase.frame2Row0, [Self.white, Self.green, Self.green]]) == nil)
    }

    @Test("the same combinations in a palette image with tRNS (PLTE and tRNS copied into each frame)", arguments: cases)
    func paletteFrames(_ testCase: Case) throws {
        let bytes = Self.threeFrames(dispose: testCase.dispose, blend: testCase.blend, layout: .palette8).build()
        let (info, frames) = try APNGBuilder.decodeAll(bytes)
        #expect(info.colorType == .palette)
        #expect(APNGPixels.difference(frames[1], [testCase.frame1Row0, [Self.green, Self.green, Self.green]]) == nil)
        #expect(APNGPixels.difference(frames[2], [testCase.frame2Row0, [Self.white, Self.green, Self.green]]) == nil)
    }

    @Test("the same combinations in Adam7-interlaced frames", arguments: cases)
    func interlacedFrames(_ testCase: Case) throws {
        var builder = Self.threeFrames(dispose: testCase.dispose, blend: testCase.blend)
        builder.interlaced = true
        let (info, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(info.isInterlaced)
        #expect(APNGPixels.difference(frames[1], [testCase.frame1Row0, [Self.green, Self.green, Self.green]]) == nil)
        #expect(APNGPixels.difference(frames[2], [testCase.frame2Row0, [Self.white, Self.green, Self.green]]) == nil)
    }

    @Test("dispose_op previous on the first frame acts as background")
    func previousOnFirstFrame() throws {
        // Given a first frame (the default image) disposed with previous, and a 1x1 second frame
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [
            .init(image: APNGBuilder.image([[Self.red, Self.green]]), dispose: 2),
            .init(image: APNGBuilder.image([[Self.white]]), x: 1, y: 0),
        ]
        let (_, frames) = try APNGBuilder.decodeAll(builder.build())
        // Then the first frame's region is cleared to transparent black before the second is drawn
        #expect(APNGPixels.difference(frames[0], [[Self.red, Self.green]]) == nil)
        #expect(APNGPixels.difference(frames[1], [[Self.clear, Self.white]]) == nil)
    }

    @Test("dispose_op previous restores what was there before the frame, twice in a row")
    func previousTwice() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [
            .init(image: APNGBuilder.image([[Self.red, Self.red]])),
            .init(image: APNGBuilder.image([[Self.green]]), x: 0, y: 0, dispose: 2),
            .init(image: APNGBuilder.image([[Self.white, Self.white]]), dispose: 2),
            .init(image: APNGBuilder.image([[Self.halfBlue]]), x: 1, y: 0, blend: 1),
        ]
        let (_, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(APNGPixels.difference(frames[1], [[Self.green, Self.red]]) == nil)
        #expect(APNGPixels.difference(frames[2], [[Self.white, Self.white]]) == nil)
        // halfBlue over opaque red: R = 255 * 127 / 255 = 127, B = 128, A = 255.
        #expect(APNGPixels.difference(frames[3], [[Self.red, [127, 0, 128, 255]]]) == nil)
    }

    @Test("16-bit frames blend over with 16-bit precision")
    func sixteenBitOver() throws {
        // Given a 16-bit file: an opaque frame, then a translucent one blended over it, half of it
        // over a frame-1 pixel that is itself translucent.
        let opaque: [UInt16] = [0x1234, 0x5678, 0x9abc, 0xffff]
        let translucentGreen: [UInt16] = [0, 0xffff, 0, 0x4000]
        let halfRed16: [UInt16] = [0xffff, 0, 0, 0x8000]
        var builder = APNGBuilder(width: 2, height: 1, layout: .rgba16)
        builder.frames = [
            .init(image: PixelBuffer(width: 2, height: 1, rgba16: opaque + translucentGreen), blend: 0),
            .init(image: PixelBuffer(width: 2, height: 1, rgba16: halfRed16 + halfRed16), blend: 1),
        ]
        // When decoded at the file's depth
        let (info, frames) = try APNGBuilder.decodeAll(builder.build(), depth: nil)
        #expect(info.bitDepth == 16)
        // Then, by Ao = As + Ad (1 - As) and Co = (Cs As + Cd Ad (1 - As)) / Ao, rounded:
        // over the opaque pixel: R = 65535 / 2 + 0x1234 * 32767 / 65535 = 35097.96 -> 35098,
        // G = 0x5678 * 32767 / 65535 = 11067.8 -> 11068, B = 0x9abc * 32767 / 65535 = 19805.7 -> 19806;
        // over the translucent pixel: A = 32768 + 16384 * 32767 / 65535 = 40959.9 -> 40960,
        // R = 65535 * 32768 / 40959.9 = 52428.2 -> 52428, G = 65535 * 16384 * 32767 / 65535 / 40959.9 = 13106.8 -> 13107.
        #expect(frames[1].rgba16 == [35098, 11068, 19806, 65535, 52428, 13107, 0, 40960])
        #expect(frames[0].rgba16 == opaque + translucentGreen)
        // And at 8 bits the same file is blended after reduction
        let (_, frames8) = try APNGBuilder.decodeAll(builder.build(), depth: .eight)
        #expect(frames8[0].depth == .eight && frames8.count == 2)
    }

    @Test("frames encoded by PNGEncoder (real zlib data), cut into fdAT pieces with empty ones between")
    func encodedAndSplit() throws {
        // Given two 24x12 RGBA frames with more than 256 colours (so PNGEncoder stores RGBA8 for both)
        func gradient(_ shift: Int) -> PixelBuffer {
            var samples: [UInt8] = []
            for y in 0..<12 {
                for x in 0..<24 {
                    samples += [UInt8(x * 10 + shift), UInt8(y * 20), UInt8((x * y + shift) % 256), UInt8(100 + x)]
                }
            }
            return PixelBuffer(width: 24, height: 12, rgba8: samples)
        }
        var builder = APNGBuilder(width: 24, height: 12, encoding: .pngEncoder)
        builder.frames = [.init(image: gradient(0)), .init(image: gradient(7))]
        let whole = try APNGBuilder.decodeAll(builder.build())
        builder.fdatPieceSize = 5
        let chunks = builder.chunks()
        #expect(chunks.filter { $0.type == "fdAT" && $0.data.count == 4 }.count > 10)
        let split = try APNGBuilder.decodeAll(APNGBuilder.serialize(chunks))
        // Then both files give the frames themselves (blend source replaces the canvas)
        #expect(whole.frames == [gradient(0), gradient(7)])
        #expect(split.frames == whole.frames)
    }

    @Test("each reader is a new play: the canvas starts transparent black again")
    func newReaderNewPlay() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.separateDefaultImage = APNGBuilder.solid(2, 1, Self.white)
        builder.frames = [
            .init(image: APNGBuilder.image([[Self.red]]), blend: 1),
            .init(image: APNGBuilder.image([[Self.green]]), x: 1, y: 0, blend: 1),
        ]
        let source = try ImageSource(data: builder.build(), name: "anim.png")
        for _ in 0..<2 {
            let reader = try source.makeFrameReader(depth: .eight)
            let first = try #require(try reader.nextFrame())
            #expect(APNGPixels.difference(first.image, [[Self.red, Self.clear]]) == nil)
            let second = try #require(try reader.nextFrame())
            #expect(APNGPixels.difference(second.image, [[Self.red, Self.green]]) == nil)
            #expect(try reader.nextFrame() == nil)
        }
        #expect(try source.frame(at: 1).image == source.frame(at: 1).image)
    }
}
