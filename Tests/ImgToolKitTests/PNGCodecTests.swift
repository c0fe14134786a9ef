import TestSupport
import Testing

@testable import ImgToolKit

@Suite("PNG codec", .timeLimit(.minutes(5)))
struct PNGCodecTests {
    /// Pictures that need each stored layout, with the layout the encoder must choose.
    static let layouts: [(name: String, image: PixelBuffer, colorType: ColorType, bitDepth: Int)] = [
        (
            "gray 1-bit",
            TestImages.make8(width: 13, height: 5) { x, y in
                let v: UInt8 = (x + y) % 2 == 0 ? 0 : 255; return [v, v, v, 255]
            }, .gray, 1
        ),
        (
            "gray 2-bit",
            TestImages.make8(width: 7, height: 3) { x, _ in
                let v = UInt8(x % 4 * 85); return [v, v, v, 255]
            }, .gray, 2
        ),
        (
            "gray 4-bit",
            TestImages.make8(width: 17, height: 2) { x, _ in
                let v = UInt8(x % 16 * 17); return [v, v, v, 255]
            }, .gray, 4
        ),
        (
            "gray 8-bit",
            TestImages.make8(width: 16, height: 16) { x, y in
                let v = UInt8(x * 16 + y); return [v, v, v, 255]
            }, .gray, 8
        ),
        (
            "palette 1-bit",
            TestImages.make8(width: 9, height: 4) { x, _ in x % 2 == 0 ? [200, 10, 10, 255] : [0, 0, 255, 128] },
            .palette, 1
        ),
        (
            "palette 4-bit", TestImages.make8(width: 15, height: 3) { x, _ in [UInt8(x * 10), 50, 100, 255] }, .palette,
            4
        ),
        (
            "palette 8-bit",
            TestImages.make8(width: 16, height: 16) { x, y in [UInt8(x * 16), UInt8(y * 16), 7, UInt8(255 - x)] },
            .palette, 8
        ),
        (
            "gray+alpha",
            TestImages.make8(width: 20, height: 20) { x, y in
                let v = UInt8(x * 12 + y); return [v, v, v, UInt8(y * 12 + x)]
            }, .grayAlpha, 8
        ),
        (
            "rgb",
            TestImages.make8(width: 20, height: 20) { x, y in [UInt8(x * 12), UInt8(y * 12), UInt8(x ^ y), 255] }, .rgb,
            8
        ),
        (
            "rgba",
            TestImages.make8(width: 20, height: 20) { x, y in
                [UInt8(x * 12), UInt8(y * 12), UInt8(x ^ y), UInt8(x * y % 256)]
            }, .rgba, 8
        ),
        (
            "gray 16",
            TestImages.make16(width: 9, height: 9) { x, y in
                let v = UInt16(x * 7000 + y); return [v, v, v, 65535]
            }, .gray, 16
        ),
        (
            "gray+alpha 16",
            TestImages.make16(width: 9, height: 9) { x, y in
                let v = UInt16(x * 7000 + y); return [v, v, v, UInt16(y * 7000 + 1)]
            }, .grayAlpha, 16
        ),
        (
            "rgb 16",
            TestImages.make16(width: 9, height: 9) { x, y in [UInt16(x * 7000 + 1), UInt16(y * 7000), 3, 65535] }, .rgb,
            16
        ),
        (
            "rgba 16",
            TestImages.make16(width: 9, height: 9) { x, y in [UInt16(x * 7000 + 1), UInt16(y * 7000), 3, UInt16(x + 1)]
            }, .rgba, 16
        ),
        (
            "16-bit that fits 8",
            TestImages.make16(width: 5, height: 5) { x, y in [UInt16(x * 257), UInt16(y * 257 * 40), 0, 65535] },
            .palette, 8
        ),
    ]

    @Test("round trip keeps every pixel and picks the smallest exact layout", arguments: layouts.indices)
    func roundTrip(case index: Int) throws {
        let (name, image, colorType, bitDepth) = Self.layouts[index]
        for level in [0, 1, 6, 9] {
            let encoded = try PNGEncoder(compressionLevel: level).encode(image)
            let header = try PNGDecoder().header(of: encoded)
            #expect(header.colorType == colorType, "\(name): stored as \(header.colorType)")
            #expect(header.bitDepth == bitDepth, "\(name): stored at \(header.bitDepth) bits")
            let decoded = try PNGDecoder().decode(encoded, depth: image.depth)
            #expect(
                firstDifference(image, decoded) == nil,
                "\(name) at level \(level): \(firstDifference(image, decoded) ?? "")")
            // Known opaque from the header (no alpha channel, no tRNS) exactly when it is.
            let source = try ImageSource(data: encoded, name: "\(name).png")
            #expect(source.isOpaque == (image.firstTranslucentRow() == nil), "\(name)")
        }
    }

    @Test("16-bit samples reduce to 8 bits with rounding, as png_set_scale_16")
    func reduction() throws {
        let image = TestImages.make16(width: 256, height: 256) { x, y in
            let v = UInt16(y * 256 + x)
            return [v, 65535 - v, v / 2, 65535]
        }
        let encoded = try PNGEncoder().encode(image)
        let byLibpng = try PNGDecoder().decode(encoded, depth: .eight)
        #expect(byLibpng == image.converted(to: .eight))
        for value in [0, 128, 32767, 32768, 65407, 65535] as [UInt32] {
            #expect(UInt32(SampleDepth.reduce(UInt16(value))) == (value * 255 + 32767) / 65535)
        }
    }

    @Test("every truncation point gives a typed error, never a crash")
    func truncation() throws {
        let image = TestImages.make8(width: 33, height: 17) { x, y in [UInt8(x * 7), UInt8(y * 13), 9, 255] }
        let encoded = try PNGEncoder(compressionLevel: 9).encode(image)
        for length in 0..<encoded.count - 12 {  // the last 12 bytes are IEND
            let cut = Array(encoded.prefix(length))
            do {
                _ = try ImageSource(data: cut, name: "cut.png").frame(at: 0)
                Issue.record("\(length) bytes decoded")
            } catch {
                #expect([.truncated, .unsupportedFormat, .corrupt].contains(error.code), "\(length): \(error)")
                #expect(error.input == "cut.png")
            }
        }
    }

    @Test("a damaged chunk is rejected with libpng's reason", arguments: ["IHDR", "IDAT"])
    func crcError(chunk type: String) throws {
        var encoded = try PNGEncoder().encode(TestImages.make8(width: 4, height: 4) { _, _ in [1, 2, 3, 255] })
        let chunk = try #require(PNGBytes.chunks(of: encoded).first { $0.type == type })
        encoded[chunk.offset + 8 + chunk.length] ^= 0xff  // first CRC byte
        let error = try #require(throws: ImgToolError.self) {
            _ = try ImageSource(data: encoded, name: "crc.png").frame(at: 0)
        }
        #expect(error.code == .corrupt)
        #expect(error.description.contains("crc.png"))
        #expect(error.description.contains("\(type): CRC error"))
    }

    @Test("sizes past the pixel limit are refused before allocating")
    func pixelLimit() throws {
        // A 65535x65535 header with a few bytes of image data: 16 GiB of RGBA if it were believed.
        let idat = PNGBytes.chunk("IDAT", [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let file = PNGBytes.signature + PNGBytes.ihdr(width: 65535, height: 65535) + idat + PNGBytes.chunk("IEND", [])
        let error = try #require(throws: ImgToolError.self) { _ = try ImageSource(data: file, name: "huge.png") }
        #expect(error.code == .tooLarge && error.limit == .pixels)
        #expect(
            error.description
                == "huge.png: image is 65535x65535 (4294836225 pixels), over the limit of 134217728 pixels"
        )

        let small = try PNGEncoder().encode(PixelBuffer(width: 100, height: 100))
        let limited = DecodingLimits(maxPixels: 9999)
        #expect(throws: ImgToolError.self) { _ = try ImageSource(data: small, name: "s.png", limits: limited) }
        #expect(throws: ImgToolError.self) { _ = try PNGDecoder(limits: limited).decode(small) }
        #expect(try ImageSource(data: small, name: "s.png", limits: DecodingLimits(maxPixels: 10000)).info.width == 100)

        // Wider than the limit on its own: libpng's own user limit refuses it in IHDR.
        let wide = PNGBytes.signature + PNGBytes.ihdr(width: 200_000, height: 1) + idat + PNGBytes.chunk("IEND", [])
        let wideError = try #require(throws: ImgToolError.self) {
            _ = try ImageSource(data: wide, name: "wide.png", limits: DecodingLimits(maxPixels: 100_000))
        }
        #expect(wideError.code == .tooLarge)
    }

    @Test("colour chunks are reported, not applied")
    func colorMetadata() throws {
        let plain = try PNGEncoder().encode(
            TestImages.make8(width: 2, height: 2) { x, _ in [UInt8(x * 100), 7, 9, 255] })
        // Insert gAMA (1/2.2) and sRGB after IHDR.
        let ihdrEnd = 8 + 25
        let withChunks =
            Array(plain[..<ihdrEnd]) + PNGBytes.chunk("gAMA", PNGBytes.bigEndian(45455))
            + PNGBytes.chunk("sRGB", [0]) + Array(plain[ihdrEnd...])
        let source = try ImageSource(data: withChunks, name: "g.png")
        // The sRGB chunk wins over gAMA, whose value is not kept.
        #expect(source.info.color == ColorMetadata(hasGamma: true, hasSRGB: true, hasICCProfile: false, srgbIntent: 0))
        #expect(try source.frame(at: 0).image == PNGDecoder().decode(plain))
    }

    @Test("an empty image cannot be encoded")
    func emptyImage() {
        #expect(throws: ImgToolError.self) { _ = try PNGEncoder().encode(PixelBuffer(width: 0, height: 3)) }
    }
}
