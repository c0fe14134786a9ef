import TestSupport
import Testing

@testable import ImgToolKit

/// How GIF frames are composited: disposal, transparency, palettes, interlacing, clipping.
@Suite("GIF compositing", .timeLimit(.minutes(5)))
struct GIFCompositingTests {
    /// A 4x2 screen: frame 0 fills it with red, frame 1 (disposal under test) puts 2x1 of blue
    /// at (1,0), frame 2 puts 1x1 of green at (3,1) without touching the rest.
    static func disposalFile(_ disposal: Int) -> [UInt8] {
        var gif = GIFBuilder(width: 4, height: 2, globalColors: gifTestPalette)
        gif.image(width: 4, height: 2, indices: gifIndices(["0000", "0000"]))
        gif.control(disposal: disposal)
        gif.image(x: 1, y: 0, width: 2, height: 1, indices: gifIndices(["22"]))
        gif.image(x: 3, y: 1, width: 1, height: 1, indices: gifIndices(["1"]))
        return gif.build()
    }

    @Test("disposal 0, 1 and the reserved 4-7 keep the frame", arguments: [0, 1, 4, 5, 6, 7])
    func keepingDisposals(_ disposal: Int) throws {
        let (info, frames) = try decodeGIFFrames(Self.disposalFile(disposal))
        #expect(info.frames[1].disposal == .none)
        expectGIFPicture(frames[1].image, ["RBBR", "RRRR"])
        expectGIFPicture(frames[2].image, ["RBBR", "RRRG"])
    }

    @Test("disposal 2 clears only the frame's rectangle to transparent")
    func backgroundDisposal() throws {
        // Given a background colour index pointing at white, which browsers ignore
        var gif = GIFBuilder(width: 4, height: 2, globalColors: gifTestPalette, backgroundIndex: 3)
        gif.image(width: 4, height: 2, indices: gifIndices(["0000", "0000"]))
        gif.control(disposal: 2)
        gif.image(x: 1, y: 0, width: 2, height: 1, indices: gifIndices(["22"]))
        gif.image(x: 3, y: 1, width: 1, height: 1, indices: gifIndices(["1"]))
        // When
        let (info, frames) = try decodeGIFFrames(gif.build())
        // Then
        #expect(info.frames[1].disposal == .background)
        expectGIFPicture(frames[1].image, ["RBBR", "RRRR"])
        expectGIFPicture(frames[2].image, ["R..R", "RRRG"])
    }

    @Test("disposal 3 restores the rectangle as it was before the frame")
    func previousDisposal() throws {
        let (info, frames) = try decodeGIFFrames(Self.disposalFile(3))
        #expect(info.frames[1].disposal == .previous)
        expectGIFPicture(frames[1].image, ["RBBR", "RRRR"])
        expectGIFPicture(frames[2].image, ["RRRR", "RRRG"])
    }

    @Test("disposal 3 on the first frame restores to transparent")
    func previousOnFirstFrame() throws {
        var gif = GIFBuilder(width: 3, height: 1, globalColors: gifTestPalette)
        gif.control(disposal: 3)
        gif.image(width: 2, height: 1, indices: gifIndices(["01"]))
        gif.image(x: 2, y: 0, width: 1, height: 1, indices: gifIndices(["2"]))
        let (_, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[0].image, ["RG."])
        expectGIFPicture(frames[1].image, ["..B"])
    }

    @Test("consecutive restore-previous frames each restore their own rectangle")
    func chainedPrevious() throws {
        var gif = GIFBuilder(width: 3, height: 1, globalColors: gifTestPalette)
        gif.image(width: 3, height: 1, indices: gifIndices(["000"]))
        gif.control(disposal: 3)
        gif.image(width: 2, height: 1, indices: gifIndices(["11"]))
        gif.control(disposal: 3)
        gif.image(x: 1, y: 0, width: 2, height: 1, indices: gifIndices(["22"]))
        gif.image(width: 1, height: 1, indices: gifIndices(["3"]))
        let (_, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[1].image, ["GGR"])
        expectGIFPicture(frames[2].image, ["RBB"])
        expectGIFPicture(frames[3].image, ["WRR"])
    }

    @Test("the transparent index leaves the canvas untouched")
    func transparentIndex() throws {
        var gif = GIFBuilder(width: 3, height: 2, globalColors: gifTestPalette)
        gif.control(transparent: 3)
        gif.image(width: 3, height: 2, indices: gifIndices(["013", "333"]))
        gif.control(transparent: 0)
        gif.image(width: 3, height: 2, indices: gifIndices(["020", "002"]))
        let (_, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[0].image, ["RG.", "..."])
        expectGIFPicture(frames[1].image, ["RB.", "..B"])
    }

    @Test("a transparent index applies to its own frame only")
    func transparencyDoesNotCarryOver() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        gif.control(transparent: 0)
        gif.image(width: 2, height: 1, indices: gifIndices(["01"]))
        gif.image(width: 2, height: 1, indices: gifIndices(["00"]))
        let (_, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[0].image, [".G"])
        expectGIFPicture(frames[1].image, ["RR"])
    }

    @Test("interlaced rows land where a progressive image puts them", arguments: [1, 2, 3, 4, 5, 8, 9, 11, 17])
    func interlacing(_ height: Int) throws {
        let width = 3
        var generator = GIFTestRandom(seed: UInt64(height))
        let pixels = (0..<width * height).map { _ in UInt8(generator.next() & 3) }
        var progressive = GIFBuilder(width: width, height: height, globalColors: gifTestPalette)
        progressive.image(width: width, height: height, indices: pixels)
        var interlaced = GIFBuilder(width: width, height: height, globalColors: gifTestPalette)
        interlaced.image(width: width, height: height, indices: pixels, interlaced: true)

        let (plainInfo, plain) = try decodeGIFFrames(progressive.build())
        let (info, frames) = try decodeGIFFrames(interlaced.build())
        #expect(!plainInfo.isInterlaced)
        #expect(info.isInterlaced)
        expectGIFSamples(frames[0].image, plain[0].image.rgba8 ?? [], "interlaced \(width)x\(height)")
        let expected = pixels.flatMap { GIFTestColor.letters[Array("RGBW")[Int($0)]] ?? [] }
        expectGIFSamples(plain[0].image, expected, "progressive \(width)x\(height)")
    }

    @Test("a local colour table replaces the global one for its frame only")
    func localPalette() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        gif.image(
            width: 2, height: 1, indices: gifIndices(["01"]), localColors: [GIFTestColor.yellow, GIFTestColor.white])
        gif.image(x: 1, y: 0, width: 1, height: 1, indices: gifIndices(["2"]))
        let (_, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[0].image, ["YW"])
        expectGIFPicture(frames[1].image, ["YB"])
    }

    @Test("a frame without any colour table is drawn in opaque black, with a warning")
    func missingPalette() throws {
        var gif = GIFBuilder(width: 2, height: 1)
        gif.control(transparent: 1)
        gif.image(width: 2, height: 1, indices: gifIndices(["01"]))
        let (info, frames) = try decodeGIFFrames(gif.build())
        expectGIFPicture(frames[0].image, ["K."])
        #expect(info.warnings.contains { $0.contains("no colour table") })
    }

    @Test("an index past the end of a short colour table is opaque black")
    func indexPastPalette() throws {
        // Given a 2-entry table and an 8-bit code size carrying indices up to 200
        var gif = GIFBuilder(width: 4, height: 1, globalColors: [GIFTestColor.red, GIFTestColor.green])
        gif.control(transparent: 200)
        gif.image(width: 4, height: 1, indices: [0, 1, 7, 200], minimumCodeSize: 8)
        // When
        let (_, frames) = try decodeGIFFrames(gif.build())
        // Then the transparent index still wins over the missing entry
        expectGIFPicture(frames[0].image, ["RGK."])
    }

    @Test("frames partly or wholly outside the logical screen are clipped")
    func clipping() throws {
        var gif = GIFBuilder(width: 3, height: 2, globalColors: gifTestPalette)
        gif.image(x: 1, y: 1, width: 3, height: 2, indices: gifIndices(["012", "321"]))
        gif.image(x: 200, y: 0, width: 2, height: 2, indices: gifIndices(["33", "33"]))
        gif.control(disposal: 2)
        gif.image(x: 2, y: 0, width: 4, height: 4, indices: [UInt8](repeating: 2, count: 16))
        gif.image(x: 65535, y: 65535, width: 1, height: 1, indices: [1])
        let (info, frames) = try decodeGIFFrames(gif.build())
        #expect(info.width == 3 && info.height == 2)
        #expect(info.frames[1].region == FrameRegion(x: 200, y: 0, width: 2, height: 2))
        #expect(info.warnings.contains { $0.contains("reaches past the 3x2 logical screen") })
        expectGIFPicture(frames[0].image, ["...", ".RG"])
        expectGIFPicture(frames[1].image, ["...", ".RG"])
        expectGIFPicture(frames[2].image, ["..B", ".RB"])
        expectGIFPicture(frames[3].image, ["...", ".R."])
    }

    @Test("a zero-size frame without pixel data is a valid frame that draws nothing")
    func zeroSizeFrame() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: gifTestPalette)
        gif.image(width: 2, height: 1, indices: gifIndices(["01"]))
        gif.control(delay: 5, disposal: 2)
        gif.image(x: 1, y: 0, width: 0, height: 1, indices: [])
        gif.image(width: 3, height: 0, indices: [])
        let (info, frames) = try decodeGIFFrames(gif.build())
        #expect(frames.count == 3)
        #expect(info.frames[1].region == FrameRegion(x: 1, y: 0, width: 0, height: 1))
        #expect(info.frames[1].delay == .milliseconds(50))
        for frame in frames { expectGIFPicture(frame.image, ["RG"], "frame \(frame.index)") }
    }

    @Test("16-bit output widens the 8-bit samples")
    func sixteenBit() throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: [(10, 20, 30), (255, 0, 128)])
        gif.control(transparent: 1)
        gif.image(width: 2, height: 1, indices: [0, 1])
        let (_, frames) = try decodeGIFFrames(gif.build(), depth: .sixteen)
        #expect(frames[0].image.rgba16 == [2570, 5140, 7710, 65535, 0, 0, 0, 0])
    }

    @Test("a large noisy frame survives LZW table resets and clipping", arguments: [false, true])
    func largeFrame(interlaced: Bool) throws {
        // Given 256 colours and 300x200 pseudo-random indices (many 4096-entry table resets)
        var generator = GIFTestRandom(seed: 42)
        let palette: [GIFBuilder.RGB] = (0..<256).map { (i: Int) -> GIFBuilder.RGB in
            (UInt8(i), UInt8(255 - i), UInt8(truncatingIfNeeded: i * 7))
        }
        var pixels: [UInt8] = []
        for _ in 0..<300 * 200 {
            let mixed: UInt64 = generator.next() >> 60 == 0 ? generator.next() : generator.next() & 3
            pixels.append(UInt8(truncatingIfNeeded: mixed))
        }
        var gif = GIFBuilder(width: 250, height: 200, globalColors: palette)
        gif.image(x: 10, y: 0, width: 300, height: 200, indices: pixels, interlaced: interlaced)
        // When
        let (_, frames) = try decodeGIFFrames(gif.build())
        // Then the visible 240 columns are the palette colours of the indices
        var expected = [UInt8](repeating: 0, count: 250 * 200 * 4)
        for y in 0..<200 {
            for x in 10..<250 {
                let color = palette[Int(pixels[y * 300 + x - 10])]
                expected.replaceSubrange(
                    (y * 250 + x) * 4..<(y * 250 + x) * 4 + 4, with: [color.r, color.g, color.b, 255])
            }
        }
        expectGIFSamples(frames[0].image, expected)
    }
}

/// The generator the GIF tests draw their data from.
typealias GIFTestRandom = SeededRandom
