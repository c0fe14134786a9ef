import TestSupport
import Testing

@testable import ImgToolKit

/// Cutting a frame's LZW data at a clear code and decoding both halves at once must give the
/// same indices as one decode, and refuse to cut data it does not understand.
@Suite("GIF LZW split", .timeLimit(.minutes(5)))
struct GIFLZWSplitTests {
    /// A one-frame GIF of `width` x `height` random indices below `colors`; the encoder writes a
    /// clear code each time its table fills, so large frames have places to cut.
    static func randomGIF(width: Int, height: Int, colors: Int, seed: UInt64) -> [UInt8] {
        var random = GIFTestRandom(seed: seed)
        let palette = (0..<colors).map { (i: Int) -> GIFBuilder.RGB in
            let value = UInt8(i)
            return (value, 255 - value, value &* 7)
        }
        var gif = GIFBuilder(width: width, height: height, globalColors: palette)
        // Runs of one index, so strings in the table have many lengths.
        var indices: [UInt8] = []
        while indices.count < width * height {
            let index = UInt8(random.next() % UInt64(colors))
            indices += [UInt8](repeating: index, count: 1 + Int(random.next() % 5))
        }
        gif.image(width: width, height: height, indices: Array(indices.prefix(width * height)))
        return gif.build()
    }

    static func decode(_ bytes: [UInt8], splitting: Bool) throws(ImgToolError) -> [UInt8] {
        let source = try GIFSource(data: bytes, limits: .default)
        let reader = GIFFrameReader(source: source, depth: .eight, helpers: 0, minimumSplit: splitting ? 2 : .max)
        return try reader.nextFrame()?.image.rgba8 ?? []
    }

    @Test("split decodes equal whole decodes", arguments: [2, 4, 16, 256])
    func sameIndices(colors: Int) throws {
        for seed in UInt64(1)...6 {
            let bytes = Self.randomGIF(width: 211, height: 97, colors: colors, seed: seed)
            let whole = try Self.decode(bytes, splitting: false)
            #expect(try Self.decode(bytes, splitting: true) == whole, "\(colors) colours, seed \(seed)")
        }
    }

    @Test("a cut is found in the second half for data with clear codes, and never for a short frame")
    func findsCut() throws {
        let bytes = Self.randomGIF(width: 211, height: 97, colors: 256, seed: 9)
        let source = try GIFSource(data: bytes, limits: .default)
        let start = source.frames[0].offset + 10 + 1  // descriptor, no local table, code size
        let split = try #require(
            GIFLZWSplit.find(in: bytes, at: start, minimumCodeSize: 8, pixelCount: 211 * 97))
        #expect(split.pixelOffset >= 211 * 97 / 2 && split.pixelOffset < 211 * 97)
        let tiny = Self.randomGIF(width: 8, height: 8, colors: 4, seed: 1)
        #expect(GIFLZWSplit.find(in: tiny, at: 13 + 12 + 10 + 1, minimumCodeSize: 2, pixelCount: 64) == nil)
    }

    @Test("broken codes after the cut are a corrupt frame, as in a whole decode")
    func brokenTail() throws {
        var bytes = Self.randomGIF(width: 211, height: 97, colors: 256, seed: 4)
        // Cut the data short near its end: the last sub-block ends early.
        let end = bytes.count - 2  // before the block terminator and the trailer
        bytes.removeSubrange(end - 600..<end)
        bytes.insert(contentsOf: [0], at: end - 600)
        let whole = #expect(throws: ImgToolError.self) { try Self.decode(bytes, splitting: false) }
        let split = #expect(throws: ImgToolError.self) { try Self.decode(bytes, splitting: true) }
        #expect(whole?.code == split?.code)
    }
}
