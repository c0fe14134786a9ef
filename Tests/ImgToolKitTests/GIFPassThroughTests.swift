import TestSupport
import Testing

@testable import ImgToolKit

/// A GIF written from a GIF with nothing changed is never larger than the input's drawing
/// records, which are kept only when every decoder draws them alike.
@Suite("GIF pass-through", .timeLimit(.minutes(5)))
struct GIFPassThroughTests {
    static let colors: [GIFBuilder.RGB] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (9, 9, 9)]

    /// A two-frame animation, with `extra` records (comments, XMP) wherever `extras` says.
    static func animation(extras: Bool, firstX: Int = 0, disposal: Int = 1) -> [UInt8] {
        var gif = GIFBuilder(width: 8, height: 6, globalColors: colors)
        gif.loop(0)
        if extras {
            gif.comment([Array("made by hand".utf8)])
            gif.raw([0x21, 0xFF, 0x0B] + Array("XMP DataXMP".utf8) + [4] + Array("<x/>".utf8) + [0])
        }
        gif.control(delay: 10, disposal: disposal)
        gif.image(
            x: firstX, width: 8 - firstX, height: 6, indices: (0..<(8 - firstX) * 6).map { UInt8($0 % 7 == 0 ? 1 : 0) })
        if extras { gif.comment([Array("between".utf8), Array("frames".utf8)]) }
        gif.control(delay: 20, transparent: 3)
        gif.image(x: 2, y: 1, width: 3, height: 2, indices: [2, 3, 2, 3, 2, 2])
        return gif.build()
    }

    @Test("The drawing records: comments and other application extensions left out, the rest byte for byte")
    func drawingRecords() {
        #expect(GIFPassThrough.drawingRecords(of: Self.animation(extras: true)) == Self.animation(extras: false))
    }

    @Test("Files not every decoder draws alike are not kept")
    func refused() {
        var plainText = GIFBuilder(width: 2, height: 2, globalColors: Self.colors)
        plainText.raw([0x21, 0x01, 12] + [UInt8](repeating: 0, count: 12) + [1, 65, 0])
        plainText.image(width: 2, height: 2, indices: [0, 1, 1, 0])
        var outsidePalette = GIFBuilder(width: 2, height: 2, globalColors: Array(Self.colors.prefix(2)))
        outsidePalette.image(width: 2, height: 2, indices: [0, 1, 3, 0], minimumCodeSize: 2)
        var twoControls = GIFBuilder(width: 2, height: 2, globalColors: Self.colors)
        twoControls.control(delay: 1)
        twoControls.control(delay: 2)
        twoControls.image(width: 2, height: 2, indices: [0, 1, 1, 0])
        var noTable = GIFBuilder(width: 2, height: 2)
        noTable.image(width: 2, height: 2, indices: [0, 1, 1, 0])
        let cases: [(String, [UInt8])] = [
            ("disposal previous", Self.animation(extras: false, disposal: 3)),
            ("frame 0 short of the screen", Self.animation(extras: false, firstX: 1)),
            ("a plain text extension", plainText.build()),
            ("an index past the colour table", outsidePalette.build()),
            ("two Graphic Control Extensions before a frame", twoControls.build()),
            ("no colour table", noTable.build()),
            ("no trailer", Array(Self.animation(extras: false).dropLast())),
        ]
        for (what, data) in cases {
            #expect(GIFPassThrough.drawingRecords(of: data) == nil, "\(what)")
        }
    }

    /// A still of two colours whose global table lists them in the other order than the writer
    /// does (it numbers colours by first use): what the writer makes is just as large, but not
    /// these bytes.
    static func reversedPalette() -> [UInt8] {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: [(255, 255, 255), (0, 0, 0)], version: "GIF87a")
        gif.image(width: 2, height: 1, indices: [1, 0])
        return gif.build()
    }

    /// Frame 0 draws all 256 colours of the global table; frame 1, two of them as noise, with a
    /// local table of just those two (3-bit codes where the global table's entries 5 and 9 need
    /// 5-bit ones). The writer once drew it with the global table, larger than the input; it now
    /// numbers the colours that later frames draw first, and codes such a frame with 3-bit codes.
    static func twoColoursLocally() -> [UInt8] {
        let colors: [GIFBuilder.RGB] = (0..<256).map { (value: Int) -> GIFBuilder.RGB in
            (r: UInt8(value), g: UInt8(255 - value), b: UInt8(value / 2))
        }
        var gif = GIFBuilder(width: 16, height: 16, globalColors: colors)
        gif.control(delay: 10)
        gif.image(width: 16, height: 16, indices: (0..<256).map { UInt8($0) })
        gif.control(delay: 10)
        var random = SeededRandom(seed: 3)
        gif.image(
            width: 16, height: 16, indices: (0..<256).map { _ in UInt8(random.next() % 2) },
            localColors: [colors[5], colors[9]])
        return gif.build()
    }

    @Test("convert: never larger than the input's drawing records, and the same frames")
    func neverLarger() async throws {
        for input in [
            Self.animation(extras: false), Self.animation(extras: true), Self.reversedPalette(),
            Self.twoColoursLocally(),
        ] {
            let source = try ImageSource(data: input, name: "in.gif")
            var sink = ByteSink()
            try await GIFCodec().write(source, into: &sink, options: ImageWriteOptions(), progress: nil)
            let records = try #require(GIFPassThrough.drawingRecords(of: input))
            #expect(sink.bytes.count <= records.count)
            #expect(try Self.shown(sink.bytes) == Self.shown(input))
        }
        // The input's records win where they are no larger (byte for byte the same file); an
        // option that changes the file (here the plays) makes it anew.
        let input = Self.reversedPalette()
        var kept = ByteSink()
        try await GIFCodec().write(
            try ImageSource(data: input, name: "in.gif"), into: &kept, options: ImageWriteOptions(), progress: nil)
        #expect(kept.bytes == input)
        var options = ImageWriteOptions()
        options.plays = 3
        var made = ByteSink()
        try await GIFCodec().write(
            try ImageSource(data: input, name: "in.gif"), into: &made, options: options, progress: nil)
        #expect(made.bytes != input)
        #expect(try Self.shown(made.bytes) == Self.shown(input))
        #expect(try ImageSource(data: made.bytes, name: "out.gif").info.plays == 3)
        // A frame of two colours that lie high in a large global table: made smaller than the
        // input's local table.
        let local = Self.twoColoursLocally()
        var smaller = ByteSink()
        try await GIFCodec().write(
            try ImageSource(data: local, name: "in.gif"), into: &smaller, options: ImageWriteOptions(), progress: nil)
        #expect(smaller.bytes.count < local.count)
    }

    /// Each composited frame and its delay.
    static func shown(_ data: [UInt8]) throws -> [[UInt8]] {
        let source = try ImageSource(data: data, name: "x.gif")
        let reader = try source.makeFrameReader(depth: .eight)
        var frames: [[UInt8]] = []
        while let frame = try reader.nextFrame() {
            guard case .rgba8(let samples) = frame.image.samples else { return [] }
            frames.append(samples + [UInt8(truncatingIfNeeded: Int(frame.info.delayMilliseconds))])
        }
        return frames
    }
}
