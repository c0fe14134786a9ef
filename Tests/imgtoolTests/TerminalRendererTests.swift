import ImgToolKit
import Testing

@testable import imgtool

@Suite("Terminal drawing: area scaling, half-block diffing, kitty and sixel encoding", .timeLimit(.minutes(5)))
struct TerminalRendererTests {
    @Test("the status line drops counters, then the key hint, before it cuts the text")
    func statusLineFits() {
        let essentials = ["frame 1/1", "loop 2400/∞"]
        let counters = ["10.0 fps", "late 301", "dropped 0"]
        let fit = { StatusLine.fitted(essentials, counters: counters, hint: "q quits", width: $0) }
        #expect(fit(80) == "frame 1/1  loop 2400/∞  10.0 fps  late 301  dropped 0  q quits")
        // 60 columns: the full line is 62 wide; the last counter goes, the hint stays
        #expect(fit(60) == "frame 1/1  loop 2400/∞  10.0 fps  late 301  q quits")
        #expect(fit(32) == "frame 1/1  loop 2400/∞  q quits")
        #expect(fit(30) == "frame 1/1  loop 2400/∞")
        #expect(fit(12) == "frame 1/1  l")
        #expect(fit(0) == "")
    }

    @Test("area averaging covers fractional source pixels and composites over black")
    func areaAverage() {
        // 3x1: red, green, blue at full alpha; 2x1 output takes 1.5 source pixels each.
        let image = PixelBuffer(width: 3, height: 1, rgba8: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255])
        let scaled = ScaledImage(scaling: image, toWidth: 2, height: 1)
        // Left: 2/3 red + 1/3 green; right: 1/3 green + 2/3 blue.
        #expect(scaled.pixels == [0xAA_5500, 0x0055AA])
        // Half-transparent white over black is mid grey.
        let translucent = PixelBuffer(width: 1, height: 1, rgba8: [255, 255, 255, 128])
        #expect(ScaledImage(scaling: translucent, toWidth: 1, height: 1).pixels == [0x80_8080])
    }

    @Test(
        "area averaging matches a direct double-precision box filter within rounding",
        arguments: [
            (37, 23, 10, 7), (480, 270, 100, 56), (64, 64, 64, 64), (5, 300, 3, 40), (1920, 1080, 100, 56),
        ])
    func areaAverageReference(_ size: (Int, Int, Int, Int)) {
        let (sourceWidth, sourceHeight, width, height) = size
        var state: UInt64 = 0x1234_5678
        let samples = (0..<sourceWidth * sourceHeight * 4).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let scaled = ScaledImage(
            scaling:
                PixelBuffer(width: sourceWidth, height: sourceHeight, rgba8: samples), toWidth: width, height: height)
        // Reference: each output pixel is the coverage-weighted mean of premultiplied colour.
        let xRatio = Double(sourceWidth) / Double(width)
        let yRatio = Double(sourceHeight) / Double(height)
        var worst = 0
        for y in 0..<height {
            for x in 0..<width {
                var sum = [0.0, 0.0, 0.0]
                let (left, right) = (Double(x) * xRatio, Double(x + 1) * xRatio)
                let (top, bottom) = (Double(y) * yRatio, Double(y + 1) * yRatio)
                for sy in Int(top)..<min(Int(bottom.rounded(.up)), sourceHeight) {
                    let cover = min(Double(sy + 1), bottom) - max(Double(sy), top)
                    for sx in Int(left)..<min(Int(right.rounded(.up)), sourceWidth) {
                        let weight = cover * (min(Double(sx + 1), right) - max(Double(sx), left)) / (xRatio * yRatio)
                        let offset = (sy * sourceWidth + sx) * 4
                        let alpha = Double(samples[offset + 3]) / 255
                        for channel in 0..<3 { sum[channel] += Double(samples[offset + channel]) * alpha * weight }
                    }
                }
                let pixel = scaled.pixels[y * width + x]
                let got = [Int(pixel >> 16 & 0xFF), Int(pixel >> 8 & 0xFF), Int(pixel & 0xFF)]
                for channel in 0..<3 { worst = max(worst, abs(got[channel] - Int(sum[channel].rounded()))) }
            }
        }
        #expect(worst <= 1, "largest difference \(worst)")
    }

    @Test("fitting keeps the aspect ratio")
    func fit() {
        #expect(ScaledImage.fit(width: 480, height: 270, boxWidth: 100, boxHeight: 78) == (100, 56))
        #expect(ScaledImage.fit(width: 40, height: 20, boxWidth: 60, boxHeight: 38) == (60, 30))
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
