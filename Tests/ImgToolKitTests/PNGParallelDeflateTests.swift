import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// The PNG writer's image data is deflated in blocks on several threads (``PNGDeflater``): the
/// stream must decode to the same pixels as ever, be the same bytes on any number of threads, and
/// cost almost nothing in size against one unbroken stream.
@Suite("PNG parallel deflate", .timeLimit(.minutes(5)))
struct PNGParallelDeflateTests {
    /// Images whose chosen storage covers every colour type and the depths 1 to 16.
    static let images: [(name: String, image: PixelBuffer)] = {
        let noise = TestImages.noise8(width: 300, height: 200, seed: 7)
        let grey = TestImages.make8(width: 257, height: 190) { x, y in
            let v = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13 &+ (x * y) % 5)
            return [v, v, v, 255]
        }
        let twoColours = TestImages.make8(width: 333, height: 101) { x, y in
            (x / 3 + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }
        let fourGreys = TestImages.make8(width: 95, height: 77) { x, y in
            let v = UInt8((x + y) % 4 * 85); return [v, v, v, 255]
        }
        let palette = TestImages.make8(width: 210, height: 150) { x, y in
            [UInt8(x / 20 * 23), UInt8(y / 20 * 31), 40, (x + y) % 7 == 0 ? 128 : 255]
        }
        let greyAlpha16 = TestImages.make16(width: 120, height: 90) { x, y in
            let v = UInt16(truncatingIfNeeded: x &* 997 &+ y &* 131)
            return [v, v, v, UInt16(truncatingIfNeeded: y &* 701)]
        }
        return [
            ("RGBA noise", noise),
            (
                "RGB noise",
                TestImages.make8(width: 300, height: 200) { x, y in Array(noise.pixel8(x: x, y: y).prefix(3)) + [255] }
            ),
            ("grey 8-bit", grey),
            ("grey 1-bit", twoColours),
            ("grey 2-bit", fourGreys),
            ("palette with tRNS", palette),
            ("RGBA 16-bit", TestImages.noise16(width: 130, height: 70, seed: 3)),
            ("grey and alpha 16-bit", greyAlpha16),
            ("gradient", TestImages.gradient(width: 320, height: 240)),
            ("1x1", TestImages.make8(width: 1, height: 1) { _, _ in [9, 8, 7, 6] }),
            ("one row", TestImages.noise8(width: 5000, height: 1, seed: 11)),
            ("one column", TestImages.noise8(width: 1, height: 400, seed: 12)),
        ]
    }()

    /// A PNG holding `stream` as its image data, for `layout`.
    static func png(_ stream: [UInt8], layout: PNGLayout, width: Int, height: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        let header = IHDRChunk(
            width: width, height: height, bitDepth: layout.bitDepth, colorType: layout.colorType, isInterlaced: false)
        PNGChunk.append(.ihdr, data: header.serialized, to: &bytes)
        if layout.colorType == .palette {
            PNGChunk.append(
                .plte,
                data: layout.palette.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8 & 0xff), UInt8($0 >> 16 & 0xff)] },
                to: &bytes)
            PNGChunk.append(.trns, data: layout.palette.map { UInt8($0 >> 24) }, to: &bytes)
        }
        PNGChunk.append(.idat, data: stream, to: &bytes)
        PNGChunk.append(.iend, data: [], to: &bytes)
        return bytes
    }

    static func decode(_ png: [UInt8], depth: SampleDepth) throws -> PixelBuffer {
        try ImageSource(data: png, name: "parallel.png").frame(at: 0, depth: depth).image
    }

    @Test("every storage decodes (libpng) to the same pixels, at levels 0-9, in blocks of one row to all rows")
    func samePixels() throws {
        var layouts = Set<String>()
        for (name, image) in Self.images {
            let layout = PNGLayout.choose(for: image)
            layouts.insert("\(layout.colorType) \(layout.bitDepth)")
            // Each level with blocks of one row or of a few; the usual and one-block sizes at two.
            let runs =
                (0...9).map { ($0, $0.isMultiple(of: 2) ? 1 : 4096) }
                + [(1, PNGDeflater.stillBlockBytes), (6, PNGDeflater.frameBlockBytes), (6, Int.max / 2)]
            for (level, blockBytes) in runs {
                let stream = try PNGEncoder(compressionLevel: level).zlibStream(
                    of: image, layout: layout, threads: 2, blockBytes: blockBytes)
                let png = Self.png(stream, layout: layout, width: image.width, height: image.height)
                let decoded = try Self.decode(png, depth: image.depth)
                #expect(firstDifference(image, decoded) == nil, "\(name), level \(level), blocks of \(blockBytes)")
            }
        }
        for expected in ["palette 8", "gray 1", "gray 2", "gray 8", "rgb 8", "rgba 8", "rgba 16", "grayAlpha 16"] {
            #expect(layouts.contains(expected), "no image is stored as \(expected): \(layouts)")
        }
    }

    @Test("one thread and three write the same bytes")
    func sameBytesOnAnyThreadCount() throws {
        for (name, image) in Self.images {
            let layout = PNGLayout.choose(for: image)
            for level in [1, 6, 9] {
                let encoder = PNGEncoder(compressionLevel: level)
                let one = try encoder.zlibStream(of: image, layout: layout, threads: 1, blockBytes: 4096)
                let three = try encoder.zlibStream(of: image, layout: layout, threads: 3, blockBytes: 4096)
                #expect(one == three, "\(name), level \(level)")
            }
        }
        // And a whole file, through the public API, on the machine's cores and on one.
        let image = TestImages.noise8(width: 700, height: 700, seed: 5)
        let layout = PNGLayout.choose(for: image)
        let whole = try PNGEncoder().encode(image)
        var data: [UInt8] = []
        var offset = 8
        while offset < whole.count {
            let chunk = try PNGChunk.read(in: whole, at: offset)
            if chunk.type == .idat { data += whole[chunk.data] }
            offset = chunk.end
        }
        #expect(data == (try PNGEncoder().zlibStream(of: image, layout: layout, threads: 1)))
    }

    @Test("blocks cost under 0.5% against one stream, at the default and the photo settings")
    func sizeAgainstOneStream() throws {
        // A 1024x1024 photo-like picture: smooth structure and grain, opaque (RGB).
        var generator = SeededRandom(seed: 99)
        let grain = (0..<1024 * 1024 * 3).map { _ in Int.random(in: -6...6, using: &generator) }
        let image = TestImages.make8(width: 1024, height: 1024) { x, y in
            let base = [x / 5 + y / 9, 128 + (x - y) / 11, 200 - y / 6]
            return (0..<3).map { UInt8(clamping: base[$0] + grain[(y * 1024 + x) * 3 + $0]) } + [255]
        }
        // And a drawing that compresses some 50:1 (flat colours, a palette), where the ~100 bytes
        // each block adds weigh most: 2000x3000 at 4 bits a pixel, two blocks.
        let drawing = TestImages.make8(width: 2000, height: 3000) { x, y in
            let cell = (x / 37 + y / 23 * 7) % 11
            return x % 97 < 2 || y % 61 < 2 ? [20, 20, 20, 255] : [UInt8(cell * 20), 200, UInt8(255 - cell * 9), 255]
        }
        for image in [image, drawing] {
            let layout = PNGLayout.choose(for: image)
            for encoder in [PNGEncoder(), PNGEncoder(compressionLevel: 6)] {
                let blocks = try encoder.zlibStream(of: image, layout: layout)
                let one = try encoder.zlibStream(of: image, layout: layout, blockBytes: Int.max / 2)
                let split = blocks != one
                #expect(split, "more than one block")
                #expect(Double(blocks.count) <= Double(one.count) * 1.005, "\(blocks.count) against \(one.count)")
            }
        }
    }
}
