import ImgToolKit
import Testing

@testable import imgtool

@Suite("Terminal drawing: area scaling, half-block diffing, kitty and sixel encoding")
struct TerminalRendererTests {
    @Test("area averaging covers fractional source pixels and composites over black")
    func areaAverage() {
        // 3x1: red, green, blue at full alpha; 2x1 output takes 1.5 source pixels each.
        let image = PixelBuffer(width: 3, height: 1, rgba8: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255])
        let scaled = AreaScaler.scale(image, toWidth: 2, height: 1)
        // Left: 2/3 red + 1/3 green; right: 1/3 green + 2/3 blue.
        #expect(scaled.pixels == [0xAA_5500, 0x0055AA])
        // Half-transparent white over black is mid grey.
        let translucent = PixelBuffer(width: 1, height: 1, rgba8: [255, 255, 255, 128])
        #expect(AreaScaler.scale(translucent, toWidth: 1, height: 1).pixels == [0x80_8080])
    }

    @Test("fitting keeps the aspect ratio")
    func fit() {
        #expect(AreaScaler.fit(width: 480, height: 270, boxWidth: 100, boxHeight: 78) == (100, 56))
        #expect(AreaScaler.fit(width: 40, height: 20, boxWidth: 60, boxHeight: 38) == (60, 30))
    }

    @Test("half-block cells: a whole first frame, then only the cells that changed")
    func diffing() {
        var renderer = TerminalRenderer()
        let first = ScaledImage(width: 2, height: 2, pixels: [0xFF0000, 0x00FF00, 0xFF0000, 0x0000FF])
        var out: [UInt8] = []
        #expect(renderer.render(first, into: &out) == 2)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text == "\u{1B}[1;1H\u{1B}[48;2;255;0;0m \u{1B}[38;2;0;255;0m\u{1B}[48;2;0;0;255m\u{2580}")
        out = []
        #expect(renderer.render(first, into: &out) == 0)
        #expect(out.isEmpty)
        var second = first
        second.pixels[1] = 0x0000FF
        #expect(renderer.render(second, into: &out) == 1)
        // The colour state carries over: the background is already blue, so a space is enough.
        #expect(String(decoding: out, as: UTF8.self) == "\u{1B}[1;2H ")
    }

    @Test("base64, kitty chunks and sixel bands")
    func encoders() {
        #expect(String(decoding: GraphicsEncoder.base64(Array("Man".utf8)), as: UTF8.self) == "TWFu")
        #expect(String(decoding: GraphicsEncoder.base64(Array("Ma".utf8)), as: UTF8.self) == "TWE=")
        #expect(String(decoding: GraphicsEncoder.base64(Array("M".utf8)), as: UTF8.self) == "TQ==")
        var kitty: [UInt8] = []
        GraphicsEncoder.kitty(ScaledImage(width: 1, height: 1, pixels: [0x4D616E]), columns: 1, rows: 1, into: &kitty)
        #expect(
            String(decoding: kitty, as: UTF8.self)
                == "\u{1B}_Ga=T,f=24,s=1,v=1,c=1,r=1,i=1,p=1,q=2,C=1,m=0;TWFu\u{1B}\\")
        var sixel: [UInt8] = []
        GraphicsEncoder.sixel(ScaledImage(width: 2, height: 1, pixels: [0xFF0000, 0xFF0000]), into: &sixel)
        #expect(String(decoding: sixel, as: UTF8.self) == "\u{1B}P0;1;0q\"1;1;2;1#180;2;100;0;0#180@@-\u{1B}\\")
    }
}
