import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `--text`: HarfBuzz's advances, the ink box placed by gravity and offset, the stroke, wrapping
/// and alignment, timed captions, Arabic against HarfBuzz's own rendering, colour emoji, and the
/// refusals. The fonts are those scripts/bootstrap installs (fonts-dejavu-core, fonts-noto-core,
/// fonts-noto-color-emoji, fonts-droid-fallback).
@Suite("Text", .timeLimit(.minutes(5)))
struct TextTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let arabic = "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf"
    static let devanagari = "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/text").standardized

    static func face(_ path: String, size: Double) throws -> FontFace {
        let face = try FontFace(bytes: try FileBytes.read(path), index: 0, name: path)
        try face.setSize(size)
        return face
    }

    /// `hb-shape FONT TEXT` (HarfBuzz 6.0.0, sizes in font units) for three fonts, run once and
    /// written here: at a size of upem/64 px the 1/64 px advances are the font units.
    @Test(arguments: [
        (
            dejaVu, 2048.0, "AVATAR office",
            "36=0+1270|57=1+1270|36=2+1242|55=3+1092|36=4+1401|53=5+1423|3=6+651|82=7+1253|5044=8+1980|70=11+1126|72=12+1260"
        ),
        (arabic, 1000.0, "مرحبا", "47=4+291|104=3+343|417=2+549|979=1+396|771=0+525"),
        (devanagari, 1000.0, "नमस्ते", "44=0+555|50=1+598|215=2+389|40=4+570|75=4+0"),
    ])
    func advancesMatchHBShape(path: String, upem: Double, text: String, expected: String) throws {
        let face = try Self.face(path, size: upem / 64)
        let codes = text.unicodeScalars.map(\.value)
        let rtl = path == Self.arabic
        let glyphs = try face.shape(codes, range: 0..<codes.count, rightToLeft: rtl, script: 0)
        let got = glyphs.map { "\($0.glyph)=\($0.cluster)+\($0.xAdvance)" }.joined(separator: "|")
        #expect(got == expected)

        // The layout puts each glyph at the sum of the advances before it.
        let fonts = try FontSet(font: path, size: upem / 64)
        let layout = try TextLayout(text, fonts: fonts, maxWidth: nil, alignment: .left)
        var pen = 0
        for (placed, glyph) in zip(layout.glyphs, glyphs) {
            #expect(placed.glyph == glyph.glyph)
            #expect(placed.x == pen + glyph.xOffset)
            pen += glyph.xAdvance
        }
        #expect(layout.width == pen)
    }

    /// The bounding box of the pixels of `image` that differ from `background`.
    static func changedBox(_ image: PixelBuffer, from background: PixelBuffer) -> FrameRegion? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel8(x: x, y: y) != background.pixel8(x: x, y: y) {
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return box.map { FrameRegion(x: $0.0, y: $0.1, width: $0.2 - $0.0 + 1, height: $0.3 - $0.1 + 1) }
    }

    static func solid(width: Int, height: Int, _ pixel: [UInt8] = [40, 80, 120, 255]) -> PixelBuffer {
        PixelBuffer(
            width: width, height: height, rgba8: Array([[UInt8]](repeating: pixel, count: width * height).joined()))
    }

    @Test(arguments: Gravity.allCases)
    func inkBoxWhereGravityAndOffsetPutIt(gravity: Gravity) async throws {
        // Offsets toward the middle, so that the ink stays on the canvas.
        let name = gravity.rawValue
        let offsetX = name.hasSuffix("east") ? -3 : 3
        let offsetY = name.hasPrefix("south") ? -5 : 5
        let text = TextOperation(text: "Hig", fontSize: 24, gravity: gravity, offsetX: offsetX, offsetY: offsetY)
        let caption = try text.rasterized()
        let background = Self.solid(width: 120, height: 70)
        let source = OperationsTests.ListSource([background])
        let frame = try await source.applying([.text(text)]).frame(at: 0)
        let origin = gravity.origin(overlay: (caption.width, caption.height), canvas: (120, 70))
        let box = try #require(Self.changedBox(frame.image, from: background))
        #expect(
            box
                == FrameRegion(
                    x: origin.x + offsetX, y: origin.y + offsetY, width: caption.width, height: caption.height))
    }

    @Test func inkBoxIsTheInk() throws {
        // The caption image has ink on each of its four edges.
        let caption = try TextOperation(text: "Ink", fontSize: 30).rasterized()
        let alpha = { (x: Int, y: Int) in caption.pixel8(x: x, y: y)[3] }
        #expect((0..<caption.width).contains { alpha($0, 0) > 0 })
        #expect((0..<caption.width).contains { alpha($0, caption.height - 1) > 0 })
        #expect((0..<caption.height).contains { alpha(0, $0) > 0 })
        #expect((0..<caption.height).contains { alpha(caption.width - 1, $0) > 0 })
    }

    @Test func strokeSurroundsTheFill() throws {
        let plain = try TextOperation(text: "O", fontSize: 60, color: .white).rasterized()
        let stroked = try TextOperation(text: "O", fontSize: 60, color: .white, strokeWidth: 4).rasterized()
        // The stroke reaches 4 px beyond the fill on every side (antialiasing aside).
        #expect(abs(stroked.width - plain.width - 8) <= 2)
        #expect(abs(stroked.height - plain.height - 8) <= 2)
        // Along the middle row: black stroke, white fill, black stroke, in that order, both sides.
        let row = stroked.height / 2
        let pixels = (0..<stroked.width).map { stroked.pixel8(x: $0, y: row) }
        let kinds = pixels.compactMap { pixel -> Character? in
            guard pixel[3] == 255 else { return nil }
            if pixel[0] == 0, pixel[1] == 0, pixel[2] == 0 { return "k" }
            if pixel[0] == 255, pixel[1] == 255, pixel[2] == 255 { return "w" }
            return nil
        }
        let runs = kinds.reduce(into: "") { result, kind in if result.last != kind { result.append(kind) } }
        #expect(runs == "kwkkwk".reduce(into: "") { r, c in if r.last != c { r.append(c) } })
    }

    @Test func wrapsAtTheWidthAndAligns() throws {
        let fonts = try FontSet(font: Self.dejaVu, size: 20)
        let words = "one two three four five six seven"
        let single = try TextLayout(words, fonts: fonts, maxWidth: nil, alignment: .left)
        for alignment in TextAlignment.allCases {
            let wrapped = try TextLayout(words, fonts: fonts, maxWidth: 100, alignment: alignment)
            #expect(wrapped.height > 2 * single.height)
            #expect(wrapped.width <= 100 * 64)
            // Lines are the glyphs sharing a baseline; where each starts follows the alignment.
            let lines = Dictionary(grouping: wrapped.glyphs, by: \.y).values.map { line in
                (start: line.map(\.x).min() ?? 0, glyphs: line.count)
            }
            #expect(lines.count >= 3)
            for line in lines {
                switch alignment {
                case .left: #expect(line.start == 0)
                case .center, .right: #expect(line.start >= 0)
                }
            }
        }
        // Right alignment: every line ends at the block's right edge.
        let right = try TextLayout("a\nlonger line", fonts: fonts, maxWidth: nil, alignment: .right)
        let left = try TextLayout("a\nlonger line", fonts: fonts, maxWidth: nil, alignment: .left)
        let firstRight = try #require(right.glyphs.first)
        let firstLeft = try #require(left.glyphs.first)
        #expect(firstLeft.x == 0)
        let aAdvance = try Self.face(Self.dejaVu, size: 20).shape([0x61], range: 0..<1, rightToLeft: false, script: 0)
        #expect(firstRight.x == right.width - aAdvance[0].xAdvance)
    }

    @Test func timedCaptionInExactlyItsFrames() async throws {
        // Five frames of 100 ms: shown at 0, 100, 200, 300, 400 ms; the caption from 100 to 300.
        let frames = (0..<5).map { _ in Self.solid(width: 80, height: 40) }
        let source = OperationsTests.ListSource(frames, delaysMs: [100, 100, 100, 100, 100])
        let text = TextOperation(text: "Hi", fontSize: 20, from: .milliseconds(100), to: .milliseconds(300))
        #expect(text.captionedFrames(of: source.info) == [1, 2])
        let result = try await source.applying([.text(text)])
        let reader = try result.makeFrameReader(depth: nil)
        var captioned: [Int] = []
        while let frame = try reader.nextFrame() {
            if Self.changedBox(frame.image, from: frames[frame.index]) != nil { captioned.append(frame.index) }
        }
        #expect(captioned == [1, 2])
        #expect(result.info.frames.map(\.delay) == source.info.frames.map(\.delay))
    }

    /// Where `image` is darker than mid-grey (dark ink on white) or its alpha is above half (a
    /// caption), cut to those pixels' box.
    static func mask(_ image: PixelBuffer, darkInk: Bool) -> (width: Int, height: Int, bits: [Bool]) {
        let inked = { (x: Int, y: Int) -> Bool in
            let pixel = image.pixel8(x: x, y: y)
            return darkInk ? pixel[0] < 128 : pixel[3] >= 128
        }
        var box = (image.width, image.height, -1, -1)
        for y in 0..<image.height {
            for x in 0..<image.width where inked(x, y) {
                box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y))
            }
        }
        let width = box.2 - box.0 + 1
        let height = box.3 - box.1 + 1
        var bits: [Bool] = []
        for y in 0..<height { for x in 0..<width { bits.append(inked(box.0 + x, box.1 + y)) } }
        return (width, height, bits)
    }

    /// The share of the two masks' inked pixels where one has ink and the other does not, with
    /// their top-left corners together give or take 2 px (the best of those 25 placements: a
    /// faint column of antialiasing moves a box by one pixel).
    static func maskDistance(
        _ a: (width: Int, height: Int, bits: [Bool]), _ b: (width: Int, height: Int, bits: [Bool])
    ) -> Double {
        func inked(_ mask: (width: Int, height: Int, bits: [Bool]), _ x: Int, _ y: Int) -> Bool {
            x >= 0 && y >= 0 && x < mask.width && y < mask.height && mask.bits[y * mask.width + x]
        }
        var best = 1.0
        for dy in -2...2 {
            for dx in -2...2 {
                var differing = 0
                var union = 0
                for y in -2..<(max(a.height, b.height) + 2) {
                    for x in -2..<(max(a.width, b.width) + 2) {
                        let left = inked(a, x - dx, y - dy)
                        let right = inked(b, x, y)
                        if left != right { differing += 1 }
                        if left || right { union += 1 }
                    }
                }
                best = min(best, Double(differing) / Double(max(union, 1)))
            }
        }
        return best
    }

    @Test func arabicIsShapedAsHBViewDrawsIt() throws {
        // Tests/Fixtures/text/arabic-hb-view.png: hb-view's own rendering, cut to its ink.
        let png = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("arabic-hb-view.png")))
        let reference = try ImageSource(data: png, name: "arabic-hb-view.png").frame(at: 0, depth: .eight).image
        let expected = Self.mask(reference, darkInk: true)
        let text = "مرحبا بالعالم"
        let shaped = try TextOperation(text: text, font: Self.arabic, fontSize: 48, color: .black).rasterized()
        let distance = Self.maskDistance(Self.mask(shaped, darkInk: false), expected)
        #expect(distance < 0.1, "shaped: \(distance)")
        // Unshaped: every letter in its isolated form (a zero-width non-joiner between letters).
        let isolated = text.unicodeScalars.map { String($0) }.joined(separator: "\u{200C}")
        let unshaped = try TextOperation(text: isolated, font: Self.arabic, fontSize: 48, color: .black).rasterized()
        let far = Self.maskDistance(Self.mask(unshaped, darkInk: false), expected)
        #expect(far > 0.4, "unshaped: \(far)")
        // And the first letter in logical order (meem) is drawn at the right end.
        let fonts = try FontSet(font: Self.arabic, size: 48)
        let layout = try TextLayout(text, fonts: fonts, maxWidth: nil, alignment: .left)
        let meem = fonts.faces[0].hasGlyph("\u{0645}")
        #expect(meem)
        #expect((layout.glyphs.last?.x ?? 0) > layout.width / 2)
    }

    @Test func mixedDirectionsKeepTheirOrder() throws {
        // "abc" then Arabic then "xyz": the Latin runs stay at the ends, left to right (DejaVu Sans
        // has Arabic letters too).
        let fonts = try FontSet(font: Self.dejaVu, size: 20)
        let layout = try TextLayout("abc مرحبا xyz", fonts: fonts, maxWidth: nil, alignment: .left)
        let latin = try Self.face(Self.dejaVu, size: 20)
        let a = try latin.shape([0x61], range: 0..<1, rightToLeft: false, script: 0)[0].glyph
        let z = try latin.shape([0x7A], range: 0..<1, rightToLeft: false, script: 0)[0].glyph
        let first = try #require(layout.glyphs.min { $0.x < $1.x })
        let last = try #require(layout.glyphs.max { $0.x < $1.x })
        #expect(first.glyph == a && first.face == 0)
        #expect(last.glyph == z && last.face == 0)
    }

    @Test func emojiInColour() throws {
        let caption = try TextOperation(text: "😀", fontSize: 40, color: .black).rasterized()
        #expect(caption.width > 20 && caption.height > 20)
        // Noto Color Emoji's grinning face is mostly yellow: far from the black fill colour.
        var yellow = 0
        for y in 0..<caption.height {
            for x in 0..<caption.width {
                let p = caption.pixel8(x: x, y: y)
                if p[3] > 200, p[0] > 200, p[1] > 150, p[2] < 100 { yellow += 1 }
            }
        }
        #expect(yellow > caption.width * caption.height / 4)
    }

    @Test func fallsBackPerCharacter() throws {
        let fonts = try FontSet(font: Self.dejaVu, size: 20)
        let layout = try TextLayout("a न 字 😀", fonts: fonts, maxWidth: nil, alignment: .left)
        #expect(Set(layout.glyphs.map(\.face)).count == 4)
        #expect(fonts.faces.contains { $0.isColor })
    }

    @Test func refusals() throws {
        func refusal(_ text: TextOperation) -> ImgToolError? {
            do {
                _ = try text.rasterized(limits: DecodingLimits(maxPixels: 1 << 22))
                return nil
            } catch {
                return error
            }
        }
        let missing = refusal(TextOperation(text: "x", font: "/nonexistent/font.ttf"))
        #expect(missing?.code == .invalidArgument)
        #expect(missing?.message.contains("/nonexistent/font.ttf") == true)
        let family = refusal(TextOperation(text: "x", font: "No Such Family Anywhere"))
        #expect(family?.code == .invalidArgument)
        #expect(family?.message.contains("No Such Family Anywhere") == true)
        let undrawable = refusal(TextOperation(text: "a\u{0378}"))
        #expect(undrawable?.code == .invalidArgument)
        #expect(undrawable?.message.contains("U+0378") == true)
        let long = refusal(TextOperation(text: String(repeating: "a", count: 200_000)))
        #expect(long?.code == .invalidArgument)
        #expect(long?.message.contains("200000") == true)
        let huge = refusal(TextOperation(text: "x", fontSize: 100_000))
        #expect(huge?.message.contains("--font-size") == true)
        let wide = refusal(TextOperation(text: String(repeating: "wide ", count: 2000), fontSize: 200))
        #expect(wide?.code == .invalidArgument)
        #expect(wide?.message.contains("pixels") == true)
    }

    @Test func damagedFontIsCorrupt() throws {
        let path = try makeTemporaryFile(Array(try FileBytes.read(Self.dejaVu).prefix(3000)), name: "broken.ttf")
        do throws(ImgToolError) {
            _ = try TextOperation(text: "x", font: path).rasterized()
            Issue.record("a truncated font was read")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.description.contains(path))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func parsesItsWords() throws {
        let words = [
            "--text", "Hello", "--font", Self.dejaVu, "--font-size", "20", "--color", "#ff0000", "--stroke-color",
            "white", "--stroke-width=2", "--gravity", "south", "--offset", "4,-6", "--width", "300", "--align", "left",
            "--opacity", "0.5", "--from", "100", "--to", "250.5", "--flip",
        ]
        let operations = try ImageOperation.parse(words: words)
        #expect(operations.count == 2)
        let expected = TextOperation(
            text: "Hello", font: Self.dejaVu, fontSize: 20, color: RGBAColor(red: 255, green: 0, blue: 0),
            strokeColor: .white, strokeWidth: 2, gravity: .south, offsetX: 4, offsetY: -6, width: 300,
            alignment: .left, opacity: 0.5, from: .milliseconds(100), to: .microseconds(250_500))
        #expect(operations.first == .text(expected))
        let encoded = try JSONEncoder().encode(operations)
        #expect(try JSONDecoder().decode([ImageOperation].self, from: encoded) == operations)
        #expect(throws: ImgToolError.self) { try ImageOperation.parse(words: ["--font-size", "20"]) }
        #expect(throws: ImgToolError.self) { try ImageOperation.parse(words: ["--text", "a", "--font-size", "2001"]) }
        #expect(throws: ImgToolError.self) { try ImageOperation.parse(words: ["--text", "a", "--align", "up"]) }
        // --gravity after --overlay still places the overlay.
        let overlay = try ImageOperation.parse(words: ["--overlay", "o.png", "--gravity", "north"])
        #expect(overlay == [.overlay(OverlayOperation(input: "o.png", gravity: .north))])
    }
}
