import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `FrameSource.encodedPNG`: GIF and APNG rewritten as APNG with the smallest shared storage,
/// frames, delays and plays kept exactly; still images as PNG.
@Suite("Converting to PNG and APNG", .timeLimit(.minutes(5)))
struct PNGConversionTests {
    /// Decodes every frame of `bytes` at the file's depth.
    static func frames(_ bytes: [UInt8]) throws -> (ImageInfo, [PixelBuffer]) {
        let source = try ImageSource(data: bytes, name: "converted.png")
        let (frames, failure) = readAllFrames(try source.makeFrameReader(depth: nil))
        if let failure { throw failure }
        return (source.info, frames.map(\.image))
    }

    @Test("A GIF becomes a palette APNG with the same frames, delays and plays")
    func gifToPaletteAPNG() async throws {
        let gif = MergeAnimationTests.movingSquare(count: 7, delay: 7, loop: 2)
        let source = try ImageSource(data: gif, name: "anim.gif")
        let converted = try await source.encodedPNG()
        let (info, frames) = try Self.frames(converted)
        #expect(info.format == .apng && info.colorType == .palette && info.bitDepth == 2)
        #expect(info.plays == 3 && info.frames.map(\.delay) == source.info.frames.map(\.delay))
        let original = readAllFrames(try source.makeFrameReader(depth: nil)).frames.map(\.image)
        #expect(frames == original)
        // And --loops overrides the plays.
        #expect(try Self.frames(try await source.encodedPNG(plays: 0)).0.plays == 0)
    }

    @Test("Storage is the smallest that fits every frame: grey, RGB, RGBA, 16-bit")
    func smallestStorage() async throws {
        func animation(_ frames: [PixelBuffer]) throws -> ImageSource {
            let writer = try APNGWriter(
                width: frames[0].width, height: frames[0].height, frameCount: frames.count, plays: 0,
                depth: frames[0].depth)
            for frame in frames { try writer.append(frame, delay: .milliseconds(30)) }
            try writer.finish()
            return try ImageSource(data: writer.data, name: "in.png")
        }
        let grey = (0..<3).map { k in
            TestImages.make8(width: 9, height: 5) { x, _ in
                [UInt8(x * 17 + k), UInt8(x * 17 + k), UInt8(x * 17 + k), 255]
            }
        }
        let opaque = (0..<3).map { k in TestImages.noise8(width: 30, height: 20, seed: UInt64(k)) }.map { image in
            TestImages.make8(width: 30, height: 20) { x, y in Array(image.pixel8(x: x, y: y).prefix(3)) + [255] }
        }
        let translucent = (0..<3).map { k in TestImages.noise8(width: 30, height: 20, seed: UInt64(10 + k)) }
        let deep = (0..<3).map { k in TestImages.noise16(width: 8, height: 8, seed: UInt64(20 + k)) }
        let cases: [([PixelBuffer], ColorType, Int)] = [
            (grey, .gray, 8), (opaque, .rgb, 8), (translucent, .rgba, 8), (deep, .rgba, 16),
        ]
        for (input, colorType, bitDepth) in cases {
            let converted = try await animation(input).encodedPNG()
            let (info, frames) = try Self.frames(converted)
            #expect(info.colorType == colorType && info.bitDepth == bitDepth, "\(colorType)")
            #expect(frames == input, "\(colorType)")
        }
        // 16-bit frames whose samples all fit 8 bits are stored at 8 bits.
        let widened = translucent.map { $0.converted(to: .sixteen) }
        let (info, frames) = try Self.frames(try await animation(widened).encodedPNG())
        #expect(info.bitDepth == 8 && frames == translucent)
    }

    @Test("A still image becomes a plain PNG (no acTL); a depth of 8 reduces 16-bit samples")
    func still() async throws {
        let image = TestImages.noise16(width: 5, height: 4, seed: 3)
        let source = try ImageSource(data: try PNGEncoder().encode(image), name: "deep.png")
        let converted = try await source.encodedPNG()
        #expect(!PNGBytes.chunks(of: converted).contains { $0.type == "acTL" })
        #expect(try PNGDecoder().decode(converted, depth: .sixteen) == image)
        let reduced = try await source.encodedPNG(depth: .eight)
        #expect(try ImageSource(data: reduced, name: "r.png").info.bitDepth == 8)
    }
}
