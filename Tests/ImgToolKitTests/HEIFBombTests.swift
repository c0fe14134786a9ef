import Testing

@testable import ImgToolKit

/// Hand-built HEIF bombs are refused by the item graph before libheif reads them (a 480-byte
/// overlay of 23200x23200 whose `ispe` said 64x64 made libheif 1.15 take 3.6 GB and crash).
@Suite("HEIF bombs refused before decoding", .timeLimit(.minutes(5)))
struct HEIFBombTests {
    typealias Builder = HEIFBombBuilder

    /// A coded tile of `side` x `side`.
    static func tile(_ id: UInt16, side: UInt32 = 64) -> Builder.Item {
        Builder.Item(id: id, type: "hvc1", size: (side, side))
    }

    static func refusal(_ data: [UInt8], limits: DecodingLimits = .default) -> ImgToolError? {
        do {
            try HEIFItemGraph(data).checkDerivedImages(against: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("an overlay whose canvas is 23200x23200 while its ispe says 64x64")
    func lyingOverlay() {
        var file = Builder()
        file.items = [
            Builder.Item(
                id: 1, type: "iovl", size: (64, 64),
                descriptor: Builder.overlay(width: 23200, height: 23200, layers: 1),
                inputs: [2]),
            Self.tile(2),
        ]
        let error = Self.refusal(file.build(), limits: DecodingLimits(maxPixels: 10_000))
        #expect(error?.code == .tooLarge && error?.limit == .pixels, "\(String(describing: error))")
        #expect(Self.refusal(file.build())?.limit == .pixels)
        // Within the pixel limit, the lie itself is refused.
        file.items[0].descriptor = Builder.overlay(width: 8000, height: 8000, layers: 1)
        let lie = Self.refusal(file.build())
        #expect(lie?.code == .corrupt, "\(String(describing: lie))")
        #expect(lie?.message.contains("assembles 8000x8000 where its ispe says 64x64") == true)
    }

    @Test("a grid whose descriptor passes the pixel limit, and one whose cells and tiles disagree")
    func grids() {
        var huge = Builder()
        huge.items = [
            Builder.Item(
                id: 1, type: "grid", size: nil,
                descriptor: Builder.grid(rows: 1, columns: 2, width: 200_000, height: 200_000),
                inputs: [2, 3]),
            Self.tile(2), Self.tile(3),
        ]
        #expect(Self.refusal(huge.build())?.limit == .pixels)
        var lying = huge
        lying.items[0].size = (64, 64)
        lying.items[0].descriptor = Builder.grid(rows: 1, columns: 2, width: 11264, height: 11264)
        lying.items[1].size = (5632, 11264)
        lying.items[2].size = (5632, 11264)
        #expect(
            Self.refusal(lying.build())?.message.contains("assembles 11264x11264 where its ispe says 64x64") == true)
        var mismatched = Builder()
        mismatched.items = [
            Builder.Item(
                id: 1, type: "grid", size: (128, 64),
                descriptor: Builder.grid(rows: 2, columns: 2, width: 128, height: 64),
                inputs: [2, 3]),
            Self.tile(2), Self.tile(3),
        ]
        #expect(Self.refusal(mismatched.build())?.message.contains("has 4 cells but 2 tiles") == true)
        var fine = Builder()
        fine.items = [
            Builder.Item(
                id: 1, type: "grid", size: (128, 64),
                descriptor: Builder.grid(rows: 1, columns: 2, width: 128, height: 64),
                inputs: [2, 3]),
            Self.tile(2), Self.tile(3),
        ]
        #expect(Self.refusal(fine.build()) == nil)
        #expect(HEIFItemGraph(fine.build()).derivedCanvases[1]?.size == PixelSize(width: 128, height: 64))
    }

    @Test("ten thousand layers, and layers that decode more pixels in all than the limit")
    func manyLayers() {
        var layers = Builder()
        layers.items =
            [
                Builder.Item(
                    id: 1, type: "iovl", size: (64, 64),
                    descriptor: Builder.overlay(width: 64, height: 64, layers: 10_000),
                    inputs: Array(repeating: 2, count: 10_000))
            ] + [Self.tile(2)]
        let error = Self.refusal(layers.build())
        #expect(error?.code == .tooLarge && error?.message.contains("takes 10000 images") == true)
        var big = Builder()
        big.items =
            [
                Builder.Item(
                    id: 1, type: "iovl", size: (64, 64),
                    descriptor: Builder.overlay(width: 64, height: 64, layers: 100),
                    inputs: Array(repeating: 2, count: 100))
            ] + [Self.tile(2, side: 8192)]
        #expect(Self.refusal(big.build(), limits: DecodingLimits(maxTotalPixels: 1 << 30))?.limit == .totalPixels)
    }

    @Test("a zero canvas and a descriptor past the end of the file are refused; cut files never trap")
    func damagedDescriptors() {
        var zero = Builder()
        zero.items = [
            Builder.Item(
                id: 1, type: "iovl", size: (0, 0), descriptor: Builder.overlay(width: 0, height: 0, layers: 1),
                inputs: [2]),
            Self.tile(2),
        ]
        let data = zero.build()
        let error = Self.refusal(data)
        #expect(error?.code == .corrupt && error?.message.contains("assembles a 0x0 canvas") == true)
        for length in stride(from: 0, to: data.count, by: 3) { _ = Self.refusal(Array(data.prefix(length))) }
    }

    @Test("a grid whose tiles do not cover its canvas")
    func uncoveredCanvas() {
        var short = Builder()
        short.items = [
            Builder.Item(
                id: 1, type: "grid", size: (200, 64),
                descriptor: Builder.grid(rows: 1, columns: 2, width: 200, height: 64),
                inputs: [2, 3]),
            Self.tile(2), Self.tile(3),
        ]
        let error = Self.refusal(short.build())
        #expect(
            error?.message == "corrupt HEIF: item 1 (grid) is 200x64 but its 2x1 tiles of 64x64 cover 128x64",
            "\(String(describing: error))")
    }
}

/// The same bombs with the `avif` brand and AV1 tiles are refused by ``AVIFCodec`` before libavif
/// parses them: libavif 0.11 allocates a grid's canvas from its descriptor (4.1 GB for an
/// 11264x11264 grid whose `ispe` said 64x64) before it finds that the canvas is not the `ispe`.
@Suite("AVIF bombs refused before libavif")
struct AVIFBombTests {
    typealias Builder = HEIFBombBuilder

    static func grid(rows: Int, columns: Int, canvas: UInt32, ispe: UInt32?, tile: UInt32) -> [UInt8] {
        var file = Builder()
        file.brand = "avif"
        let tiles = (0..<rows * columns).map { UInt16(2 + $0) }
        file.items =
            [
                Builder.Item(
                    id: 1, type: "grid", size: ispe.map { ($0, $0) },
                    descriptor: Builder.grid(rows: rows, columns: columns, width: canvas, height: canvas),
                    inputs: tiles)
            ] + tiles.map { Builder.Item(id: $0, type: "av01", size: (tile, tile)) }
        return file.build()
    }

    static func refusal(_ data: [UInt8], limits: DecodingLimits = .default) -> ImgToolError? {
        #expect(AVIFCodec().sniff(Array(data.prefix(64))))
        do {
            _ = try AVIFCodec().makeSource(data: data, limits: limits, options: DecodingOptions())
            return nil
        } catch {
            return error
        }
    }

    @Test("a grid of 11264x11264 whose ispe says 64x64")
    func lyingGrid() {
        let error = Self.refusal(Self.grid(rows: 2, columns: 2, canvas: 11264, ispe: 64, tile: 5632))
        #expect(
            error?.message == "corrupt AVIF: item 1 (grid) assembles 11264x11264 where its ispe says 64x64",
            "\(String(describing: error))")
    }

    @Test("a grid canvas over --max-pixels, a zero canvas, tiles that do not cover the canvas")
    func otherGrids() {
        let huge = Self.refusal(
            Self.grid(rows: 2, columns: 2, canvas: 11264, ispe: 11264, tile: 5632),
            limits: DecodingLimits(maxPixels: 1 << 20))
        #expect(huge?.code == .tooLarge && huge?.message.hasPrefix("AVIF grid (item 1) is 11264x11264") == true)
        let zero = Self.refusal(Self.grid(rows: 1, columns: 1, canvas: 0, ispe: 0, tile: 64))
        #expect(zero?.message == "corrupt AVIF: item 1 (grid) assembles a 0x0 canvas")
        let short = Self.refusal(Self.grid(rows: 2, columns: 2, canvas: 256, ispe: 256, tile: 64))
        #expect(short?.message == "corrupt AVIF: item 1 (grid) is 256x256 but its 2x2 tiles of 64x64 cover 128x128")
    }

    @Test("a gain map (tmap) may take a grid as its input, as libavif's test files do; a grid may not")
    func gainMapOfGrid() {
        var file = Builder()
        file.brand = "avif"
        file.items = [
            Builder.Item(
                id: 1, type: "grid", size: (128, 64),
                descriptor: Builder.grid(rows: 1, columns: 2, width: 128, height: 64), inputs: [2, 3]),
            Builder.Item(id: 2, type: "av01", size: (64, 64)), Builder.Item(id: 3, type: "av01", size: (64, 64)),
            Builder.Item(id: 4, type: "tmap", size: (128, 64), inputs: [1, 5]),
            Builder.Item(id: 5, type: "av01", size: (64, 32)),
        ]
        #expect(HEIFItemGraph(file.build()).problem == nil)
        file.items[3].type = "grid"
        #expect(HEIFItemGraph(file.build()).problem == "item 4 (grid) takes item 1, a grid, as an input")
    }
}
