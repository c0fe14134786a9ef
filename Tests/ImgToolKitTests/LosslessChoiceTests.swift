import Testing

@testable import ImgToolKit

/// The one rule for lossless or lossy output in the formats that have both (WebP, AVIF, JPEG XL):
/// `lossless` when set; else lossy when a quality is given; else lossless when the source is
/// stored exactly. Each writer reads it the same way.
@Suite("Lossless or lossy output")
struct LosslessChoiceTests {
    static func info(_ format: ImageFormat, _ compression: ImageCompression? = nil) -> ImageInfo {
        ImageInfo(
            format: format, width: 8, height: 8, bitDepth: 8, colorType: .rgba,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: 8, height: 8), disposal: .none,
                    blend: .source)
            ], compression: compression)
    }

    /// (lossless, quality, source stored exactly) and the expected choice.
    static let cases: [(Bool?, Int?, Bool, Bool)] = [
        (nil, nil, true, true),  // a PNG converted as it is: lossless
        (nil, nil, false, false),  // a JPEG or lossy WebP converted as it is: lossy
        (nil, 50, true, false),  // a quality asks for lossy output
        (nil, 100, true, false),
        (nil, 50, false, false),
        (true, nil, false, true),  // --lossless forces it
        (true, 50, true, true),  // and wins over a quality
        (true, 50, false, true),
        (false, nil, true, false),  // --no-lossless forces lossy
        (false, 90, true, false),
    ]

    @Test("lossless when set, else lossy when a quality is given, else as the source", arguments: cases)
    func rule(lossless: Bool?, quality: Int?, exact: Bool, expected: Bool) {
        let source = exact ? Self.info(.png) : Self.info(.webp, .lossy)
        let options = ImageWriteOptions(quality: quality, lossless: lossless)
        #expect(options.writesLossless(source: source) == expected)
        // The writers of the three formats decide alike.
        #expect(WebPWriter(options: options, source: source).lossless == expected)
        #expect(AVIFWriter(options: options, source: source).lossless == expected)
        // JPEG XL's quality 100 is distance 0, its lossless mode (as cjxl -q 100).
        let jxlExpected = expected || (lossless == nil && quality == 100)
        #expect(JXLWriter(options: options, source: source).isLossless == jxlExpected)
    }

    @Test("the sources stored exactly: PNG, APNG, GIF and lossless WebP; not JPEG or lossy WebP")
    func sources() {
        let options = ImageWriteOptions()
        for format in [ImageFormat.png, .apng, .gif] { #expect(options.writesLossless(source: Self.info(format))) }
        #expect(options.writesLossless(source: Self.info(.webp, .lossless)))
        #expect(!options.writesLossless(source: Self.info(.webp, .lossy)))
        #expect(!options.writesLossless(source: Self.info(.webp, .mixed)))
        #expect(!options.writesLossless(source: Self.info(.jpeg)))
    }
}
