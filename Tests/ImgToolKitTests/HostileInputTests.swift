import Testing

@testable import ImgToolKit

/// Inputs written to hurt: each must end in a typed error naming the input, or in frames of the
/// declared size, never in a crash, a hang or an allocation the limits forbid.
@Suite("Hostile inputs", .timeLimit(.minutes(5)))
struct HostileInputTests {
    /// Opens and decodes every frame; returns the error, if any.
    private func outcome(_ bytes: [UInt8], name: String) -> ImgToolError? {
        do {
            let source = try ImageSource(data: bytes, name: name)
            let reader = try source.makeFrameReader(depth: nil)
            while let frame = try reader.nextFrame() {
                #expect(frame.image.width == source.info.width && frame.image.height == source.info.height)
            }
            return nil
        } catch {
            #expect(error.input == name, "\(error)")
            return error
        }
    }

    @Test("an LZW stream that runs past the 4096-entry table without a clear code")
    func lzwTableOverflow() {
        // Code size 8: codes start 9 bits wide and grow to 12. After 3838 new entries the table is
        // full; a decoder must keep reading 12-bit codes (a deferred clear) or stop with an error.
        var packed: [UInt8] = []
        var accumulator = 0
        var bits = 0
        var width = 9
        var entries = 258
        var state: UInt32 = 7
        func put(_ code: Int) {
            accumulator |= code << bits
            bits += width
            while bits >= 8 {
                packed.append(UInt8(accumulator & 0xff))
                accumulator >>= 8
                bits -= 8
            }
        }
        put(256)  // clear
        for index in 0..<6000 {
            state = state &* 1_103_515_245 &+ 12345
            put(Int(state >> 16) % 256)  // literal codes only: each is valid on its own
            if index > 0 && entries < 4096 {
                entries += 1
                if entries == 1 << width && width < 12 { width += 1 }
            }
        }
        if bits > 0 { packed.append(UInt8(accumulator & 0xff)) }
        var gif = GIFBuilder(width: 100, height: 60, globalColors: (0..<256).map { (UInt8($0), 0, 0) })
        gif.rawImage(width: 100, height: 60, minimumCodeSize: 8, data: packed)
        if let error = outcome(gif.build(), name: "overflow.gif") {
            #expect(error.code == .corrupt || error.code == .truncated)
        }
    }

    @Test("screens and frames of 65535x65535 are refused before allocating")
    func hugeDeclarations() {
        var gif = GIFBuilder(width: 65535, height: 65535, globalColors: [(0, 0, 0), (255, 255, 255)])
        gif.rawImage(width: 65535, height: 65535, minimumCodeSize: 2, data: [0x04, 0x01])
        let error = outcome(gif.build(), name: "bomb.gif")
        #expect(error?.code == .tooLarge)

        // A small screen but thousands of full-screen frames: refused by the total before decoding.
        var many = GIFBuilder(width: 4000, height: 4000, globalColors: [(0, 0, 0), (255, 255, 255)])
        for _ in 0..<1200 { many.rawImage(width: 1, height: 1, minimumCodeSize: 2, data: [0x44, 0x01]) }
        let manyError = outcome(many.build(), name: "many.gif")
        #expect(manyError?.code == .tooLarge, "\(String(describing: manyError))")
    }

    @Test("a PNG chunk whose length runs past the end of the file")
    func chunkPastEnd() throws {
        let png =
            PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 4) + PNGBytes.bigEndian(0x7fff_fff0)
            + Array("IDAT".utf8) + [1, 2, 3]
        let error = try #require(outcome(png, name: "long.png"))
        #expect([.truncated, .corrupt, .tooLarge].contains(error.code))

        // The same in an APNG, where our own chunk parser reads it.
        let actl = PNGBytes.chunk("acTL", PNGBytes.bigEndian(1) + PNGBytes.bigEndian(0))
        let apng =
            PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 4) + actl + PNGBytes.bigEndian(0x7fff_fff0)
            + Array("fcTL".utf8) + [0, 0, 0]
        let apngError = try #require(outcome(apng, name: "long-apng.png"))
        #expect([.truncated, .corrupt].contains(apngError.code))
    }

    @Test("an ancillary PNG chunk declaring 1.8 GB is refused as too large, not allocated (a fuzzer's 709-byte file)")
    func hugeAncillaryChunk() throws {
        let png =
            PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 4)
            + PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array("<x/>".utf8))
            + PNGBytes.bigEndian(1_835_627_755) + Array("iTXt".utf8) + [UInt8](repeating: 0x41, count: 64)
        let error = try #require(outcome(png, name: "huge-itxt.png"))
        #expect(error.code == .tooLarge, "\(error)")
        #expect(error.message.contains("chunk data is too large"))
    }
}
