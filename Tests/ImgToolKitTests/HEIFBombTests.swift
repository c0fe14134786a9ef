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
        #expect(Self.refusal(data) == nil || Self.refusal(data)?.code == .corrupt)
        for length in stride(from: 0, to: data.count, by: 3) { _ = Self.refusal(Array(data.prefix(length))) }
    }
}
