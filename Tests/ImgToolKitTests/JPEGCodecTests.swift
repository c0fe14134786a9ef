import TestSupport
import Testing

@testable import ImgToolKit

/// The JPEG codec on files made in the test: by ``JPEGEncoder`` (libjpeg's own writer), with
/// hand-built EXIF segments spliced in after SOI, cut short, or with their frame header patched.
@Suite("JPEG codec", .timeLimit(.minutes(5)))
struct JPEGCodecTests {
    // MARK: - Building inputs

    /// A picture whose four quadrants differ (red, green, blue, grey) with a gradient inside, so
    /// that every turn and mirror gives a different image. Colours are far apart, so JPEG loss at
    /// quality 95 never confuses them.
    static func picture(width: Int, height: Int) -> PixelBuffer {
        var samples = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let quadrant = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                let shade = UInt8(40 + (x * 60) / max(width, 1))
                let rgb: [UInt8] =
                    switch quadrant {
                    case 0: [220, shade, shade]
                    case 1: [shade, 220, shade]
                    case 2: [shade, shade, 220]
                    default: [128, 128, 128]
                    }
                let at = (y * width + x) * 4
                samples[at] = rgb[0]
                samples[at + 1] = rgb[1]
                samples[at + 2] = rgb[2]
            }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    static func jpeg(width: Int = 48, height: Int = 32, quality: Int = 95, progressive: Bool = false) throws -> [UInt8]
    {
        try JPEGEncoder(quality: quality, progressive: progressive).encode(picture(width: width, height: height))
    }

    /// `jpeg` with an APP1 segment holding `payload` right after SOI.
    static func inserting(app1 payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg[2...]
    }

    /// An EXIF APP1 payload: `Exif\0\0`, a TIFF header in the given byte order, IFD0 with a
    /// couple of other tags around tag 0x0112 of `type` (3 SHORT, 4 LONG, 9 SLONG) holding `value`.
    static func exif(orientation value: UInt32, bigEndian: Bool, type: UInt16 = 3) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16))
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) + u16(3)
        tiff += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]  // Make "ABC"
        let field: [UInt8] = type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value)
        tiff += u16(0x0112) + u16(type) + u32(1) + field
        tiff += u16(0x011A) + u16(5) + u32(1) + u32(100)  // XResolution, an offset past the end
        tiff += u32(0)  // no IFD1
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    static func decode(_ bytes: [UInt8], options: DecodingOptions = .default, limits: DecodingLimits = .default)
        throws(ImgToolError) -> (info: ImageInfo, image: PixelBuffer)
    {
        let source = try ImageSource(data: bytes, name: "test.jpg", limits: limits, options: options)
        return (source.info, try source.frame(at: 0).image)
    }

    /// The largest difference of any sample.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        guard let x = a.rgba8, let y = b.rgba8, x.count == y.count else { return .max }
        return zip(x, y).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    // MARK: - Reading

    @Test func decodesItsOwnOutputCloseToTheOriginal() throws {
        let bytes = try Self.jpeg()
        let codec = try #require(CodecRegistry.standard.codec(sniffing: Array(bytes.prefix(32))))
        #expect(codec.format == .jpeg)
        let (info, image) = try Self.decode(bytes)
        #expect(info.format == .jpeg && info.width == 48 && info.height == 32 && info.frameCount == 1)
        #expect(info.storedSize == PixelSize(width: 48, height: 32))
        #expect(info.exifOrientation == nil && info.appliedOrientation == .up && !info.hasEXIF)
        #expect(image.metadata?.format == .jpeg)
        #expect(Self.maxDifference(image, Self.picture(width: 48, height: 32)) <= 24)
        #expect(image.rgba8?.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 } == true)
    }

    @Test func decodesProgressive() throws {
        let baseline = try Self.decode(Self.jpeg()).image
        let bytes = try Self.jpeg(progressive: true)
        #expect(bytes.indices.contains { bytes[$0] == 0xFF && $0 + 1 < bytes.count && bytes[$0 + 1] == 0xC2 })
        let (info, image) = try Self.decode(bytes)
        #expect(info.isInterlaced)
        #expect(Self.maxDifference(image, baseline) <= 2)
    }

    @Test func decodesArithmeticCodingAndRestartMarkers() throws {
        let image = Self.picture(width: 48, height: 32)
        let huffman = try Self.decode(JPEGEncoder(quality: 90).encode(image)).image
        var arithmetic = JPEGEncoder(quality: 90)
        arithmetic.arithmeticCoding = true
        let arithmeticBytes = try arithmetic.encode(image)
        #expect(arithmeticBytes.indices.contains { arithmeticBytes[$0] == 0xFF && arithmeticBytes[$0 + 1] == 0xC9 })
        #expect(try Self.decode(arithmeticBytes).image == huffman)  // same coefficients, other entropy coding
        var restarts = JPEGEncoder(quality: 90)
        restarts.restartInterval = 1
        let restartBytes = try restarts.encode(image)
        #expect(restartBytes.indices.contains { restartBytes[$0] == 0xFF && restartBytes[$0 + 1] == 0xD0 })
        #expect(try Self.decode(restartBytes).image == huffman)
    }

    static let orientationCases: [(Int, Bool)] = (1...8).flatMap { [($0, false), ($0, true)] }

    /// Every orientation in both byte orders: each stored pixel shows where PIL's exif_transpose
    /// puts it, and the displayed size swaps for 5-8.
    @Test(arguments: orientationCases)
    func appliesOrientation(value: Int, bigEndian: Bool) throws {
        let plain = try Self.jpeg()
        let bytes = Self.inserting(app1: Self.exif(orientation: UInt32(value), bigEndian: bigEndian), into: plain)
        let (rawInfo, raw) = try Self.decode(bytes, options: DecodingOptions(autoOrient: false))
        #expect(rawInfo.exifOrientation == value && rawInfo.appliedOrientation == .up && rawInfo.hasEXIF)
        #expect(raw == (try Self.decode(plain).image))

        let (info, shown) = try Self.decode(bytes)
        let orientation = try #require(ImageOrientation(rawValue: value))
        #expect(info.exifOrientation == value && info.appliedOrientation == orientation)
        #expect(info.storedSize == PixelSize(width: 48, height: 32))
        let expected = value >= 5 ? PixelSize(width: 32, height: 48) : PixelSize(width: 48, height: 32)
        #expect(PixelSize(width: info.width, height: info.height) == expected)
        #expect(PixelSize(width: shown.width, height: shown.height) == expected)
        var wrong = 0
        for y in 0..<raw.height {
            for x in 0..<raw.width {
                let at = orientation.displayedPosition(x: x, y: y, width: raw.width, height: raw.height)
                if shown.pixel8(x: at.x, y: at.y) != raw.pixel8(x: x, y: y) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels misplaced")
    }

    @Test(arguments: [(UInt16(4), false), (4, true), (9, false), (9, true)])
    func readsOrientationStoredAsLong(type: UInt16, bigEndian: Bool) {
        #expect(EXIFReader.orientation(inAPP1: Self.exif(orientation: 6, bigEndian: bigEndian, type: type)) == 6)
    }

    @Test func ignoresOrientationsOutsideOneToEight() throws {
        for value: UInt32 in [0, 9, 65535] {
            let bytes = Self.inserting(app1: Self.exif(orientation: value, bigEndian: false), into: try Self.jpeg())
            let (info, image) = try Self.decode(bytes)
            #expect(info.exifOrientation == Int(value) && info.appliedOrientation == .up)
            #expect(image == (try Self.decode(Self.jpeg()).image))
        }
    }

    /// Broken EXIF: wrong byte order mark, missing 42, IFD offsets past the end or into the
    /// header, a directory claiming 65535 entries, cut at every length. Never a crash, never an error.
    @Test func toleratesMalformedEXIF() throws {
        let good = Self.exif(orientation: 6, bigEndian: true)
        var cases: [[UInt8]] = (0..<good.count).map { Array(good.prefix($0)) }
        var badOrder = good
        badOrder[6] = 0x4D
        badOrder[7] = 0x49
        var noMagic = good
        noMagic[9] = 43
        var farIFD = good
        farIFD[10...13] = [0xFF, 0xFF, 0xFF, 0xF0]
        var selfIFD = good
        selfIFD[10...13] = [0, 0, 0, 0]
        var manyEntries = good
        manyEntries[14...15] = [0xFF, 0xFF]
        manyEntries.removeLast(10)
        var wrongType = good
        wrongType[6 + 10 + 12 + 3] = 2  // ASCII
        cases += [badOrder, noMagic, farIFD, selfIFD, manyEntries, wrongType]
        for exif in cases {
            #expect(EXIFReader.orientation(inAPP1: exif).map { $0 == 6 } != false || exif.count >= good.count - 4)
        }
        #expect(EXIFReader.orientation(inAPP1: badOrder) == nil)
        #expect(EXIFReader.orientation(inAPP1: noMagic) == nil)
        #expect(EXIFReader.orientation(inAPP1: farIFD) == nil)
        #expect(EXIFReader.orientation(inAPP1: wrongType) == nil)
        // Each one inside a real file still decodes, as stored.
        let plain = try Self.jpeg()
        let stored = try Self.decode(plain).image
        // A directory cut short still gives the entries present.
        #expect(EXIFReader.orientation(inAPP1: manyEntries) == 6)
        for exif in [badOrder, noMagic, farIFD, selfIFD, wrongType, Array(good.prefix(20))] {
            let (info, image) = try Self.decode(Self.inserting(app1: exif, into: plain))
            #expect(info.appliedOrientation == .up && image == stored)
        }
        // Deterministic garbage: random bytes after a valid TIFF header.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            var bytes = Array(good.prefix(14))
            for _ in 0..<(Int(state % 64)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            _ = EXIFReader.orientation(inAPP1: bytes)
        }
    }

    @Test func usesTheFirstEXIFSegment() throws {
        let plain = try Self.jpeg()
        let twice = Self.inserting(
            app1: Self.exif(orientation: 3, bigEndian: false),
            into: Self.inserting(app1: Self.exif(orientation: 6, bigEndian: true), into: plain))
        #expect(try Self.decode(twice).info.exifOrientation == 3)
    }

    @Test(arguments: [(70, 1), (24, 2), (12, 4), (8, 8), (1, 8)])
    func shrinksOnLoad(minimum: Int, denominator: Int) throws {
        let bytes = try Self.jpeg(width: 96, height: 64)
        let (info, image) = try Self.decode(
            bytes, options: DecodingOptions(minimumSize: PixelSize(width: minimum, height: minimum)))
        let expected = PixelSize(
            width: (96 + denominator - 1) / denominator, height: (64 + denominator - 1) / denominator)
        #expect(PixelSize(width: info.width, height: info.height) == expected)
        #expect(PixelSize(width: image.width, height: image.height) == expected)
        #expect(info.storedSize == PixelSize(width: 96, height: 64))
    }

    @Test func shrinksTurnedImagesByTheirDisplayedSize() throws {
        let bytes = Self.inserting(
            app1: Self.exif(orientation: 6, bigEndian: false), into: try Self.jpeg(width: 96, height: 32))
        // Displayed 32x96; asking for at least 16x48 allows 1/2 (16x48), not 1/4.
        let (info, image) = try Self.decode(
            bytes, options: DecodingOptions(minimumSize: PixelSize(width: 16, height: 48)))
        #expect(info.width == 16 && info.height == 48 && image.width == 16 && image.height == 48)
    }

    @Test func reportsICCProfilePresence() throws {
        let plain = try Self.jpeg()
        #expect(try !Self.decode(plain).info.color.hasICCProfile)
        var app2: [UInt8] = Array("ICC_PROFILE".utf8) + [0, 1, 1] + Array(repeating: 7, count: 40)
        let length = app2.count + 2
        app2 = [0xFF, 0xD8, 0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + app2 + plain[2...]
        let (info, image) = try Self.decode(app2)
        #expect(info.color.hasICCProfile && !info.hasEXIF)
        #expect(image == (try Self.decode(plain).image))  // reported, not applied
    }

    @Test("Decoding article: upright, as stored, sized on load")
    func decodingArticleExample() throws {
        let bytes = Self.inserting(
            app1: Self.exif(orientation: 6, bigEndian: true), into: try Self.jpeg(width: 1200, height: 800))

        let upright = try ImageSource(data: bytes, name: "photo.jpg")
        let asStored = try ImageSource(data: bytes, name: "photo.jpg", options: DecodingOptions(autoOrient: false))
        let thumbnail = try ImageSource(
            data: bytes, name: "photo.jpg", options: DecodingOptions(minimumSize: PixelSize(width: 256, height: 256)))

        #expect(upright.info.width == 800 && upright.info.height == 1200)
        #expect(asStored.info.width == 1200 && asStored.info.height == 800)
        #expect(thumbnail.info.width == 400 && thumbnail.info.height == 600)
        #expect(try thumbnail.frame(at: 0).image.width == 400)
    }

    @Test func ignoresBytesAfterEOI() throws {
        let bytes = try Self.jpeg()
        let (_, image) = try Self.decode(
            bytes + [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3] + Array(repeating: 0x55, count: 100))
        #expect(image == (try Self.decode(bytes).image))
    }

    // A cut file decodes, grey below the cut: see JPEGTruncationTests.

    @Test func corruptDataIsAnErrorWithLibjpegsMessage() {
        #expect {
            _ = try Self.decode([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x00] + Array(repeating: 0, count: 40))
        } throws: { error in
            guard let error = error as? ImgToolError else { return false }
            return (error.code == .corrupt || error.code == .truncated) && error.input == "test.jpg"
                && error.cause != nil
        }
    }

    /// A frame header declaring 60000x60000: refused from the header, before anything is allocated.
    @Test func refusesHugeDeclaredSizesBeforeAllocating() throws {
        var bytes = try Self.jpeg()
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5...sof + 8] = [0xEA, 0x60, 0xEA, 0x60]
        #expect {
            _ = try ImageSource(data: bytes, name: "huge.jpg")
        } throws: { error in
            guard let error = error as? ImgToolError else { return false }
            return error.code == .tooLarge && error.input == "huge.jpg" && error.message.contains("60000x60000")
        }
        let small = DecodingLimits(maxPixels: 1000)
        #expect(throws: ImgToolError.self) { _ = try Self.decode(Self.jpeg(), limits: small) }
    }

    /// An Adobe CMYK JPEG (inverted, transform 0), 16x16 at quality 100 with 4:4:4, made by Pillow
    /// 13 (libjpeg-turbo): quadrants C=255-red, M, Y and K=128 as CMYK (0,255,255,0),
    /// (255,0,255,0), (255,255,0,0), (0,0,0,128).
    static let cmykJPEG: [UInt8] = [
        0xff, 0xd8, 0xff, 0xee, 0x00, 0x0e, 0x41, 0x64, 0x6f, 0x62, 0x65, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xff, 0xdb, 0x00, 0x43, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0xff, 0xc0, 0x00,
        0x14, 0x08, 0x00, 0x10, 0x00, 0x10, 0x04, 0x43, 0x11, 0x00, 0x4d, 0x11, 0x00, 0x59, 0x11, 0x00, 0x4b, 0x11,
        0x00, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4,
        0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01,
        0x7d, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22,
        0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62,
        0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36,
        0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
        0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
        0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2,
        0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2,
        0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1,
        0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9,
        0xfa, 0xff, 0xda, 0x00, 0x0e, 0x04, 0x43, 0x00, 0x4d, 0x00, 0x59, 0x00, 0x4b, 0x00, 0x00, 0x3f, 0x00, 0xfe,
        0xfe, 0x2b, 0xfc, 0xff, 0x00, 0xeb, 0xfc, 0xff, 0x00, 0xeb, 0xfb, 0xf8, 0xaf, 0xf0, 0x07, 0xaf, 0xf7, 0xf8,
        0xa2, 0x8a, 0x2b, 0xfc, 0x01, 0xeb, 0xfd, 0xfe, 0x28, 0xaf, 0xf7, 0xf8, 0xaf, 0xf7, 0xf8, 0xa2, 0xbf, 0xcf,
        0xfe, 0xbf, 0xff, 0xd9,
    ]

    @Test func decodesAdobeCMYK() throws {
        let (info, image) = try Self.decode(Self.cmykJPEG)
        #expect(info.width == 16 && info.height == 16)
        let expected: [(Int, Int, [Int])] = [
            (2, 2, [255, 0, 0]), (12, 2, [0, 255, 0]), (2, 12, [0, 0, 255]), (12, 12, [127, 127, 127]),
        ]
        for (x, y, rgb) in expected {
            let pixel = image.pixel8(x: x, y: y)
            #expect(
                zip(pixel.prefix(3), rgb).allSatisfy { abs(Int($0) - $1) <= 2 } && pixel[3] == 255,
                "\(x),\(y): \(pixel)")
        }
    }

    @Test func decodesGreyscaleAsRGB() throws {
        // A grey picture written by libjpeg is still three components; check R=G=B after decode.
        let grey = PixelBuffer(
            width: 16, height: 8,
            rgba8: (0..<128).flatMap { i -> [UInt8] in
                let v = UInt8(i * 2); return [v, v, v, 255]
            })
        let (_, image) = try Self.decode(try JPEGEncoder(quality: 90).encode(grey))
        let samples = try #require(image.rgba8)
        #expect(
            stride(from: 0, to: samples.count, by: 4).allSatisfy { abs(Int(samples[$0]) - Int(samples[$0 + 1])) <= 1 })
    }

    // MARK: - Writing

    @Test func codecDeclaresStillsWithoutAlpha() {
        let codec = JPEGCodec()
        #expect(codec.capabilities == [.read, .write])
        #expect(CodecRegistry.standard.codec(forOutput: "out.JPG")?.format == .jpeg)
        #expect(CodecRegistry.standard.codec(forOutput: "out.jpeg")?.format == .jpeg)
        #expect(codec.sniff([0xFF, 0xD8, 0xFF, 0xE0]) && !codec.sniff([0xFF, 0xD8, 0x00]))
    }

    /// Luma's sampling factors in the frame header (SOF0 or SOF2): 0x22 for 4:2:0, 0x21 for
    /// 4:2:2, 0x11 for 4:4:4 (the chroma components' are 0x11).
    static func lumaSampling(_ bytes: [UInt8]) -> UInt8? {
        guard let sof = bytes.indices.first(where: { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) })
        else { return nil }
        #expect(bytes[sof + 14] == 0x11 && bytes[sof + 17] == 0x11)
        return bytes[sof + 11]
    }

    /// Chroma: 4:2:0 below quality 90 and 4:4:4 from 90 up, as libvips, Pillow, sharp and
    /// ImageMagick; `chroma` (`--chroma`) wins at any quality, baseline or progressive, in one
    /// piece or split.
    @Test func chromaFollowsQualityUnlessGiven() async throws {
        let image = Self.picture(width: 64, height: 64)
        let large = JPEGSplitDecodeTests.photo(width: 640, height: 480)
        #expect(JPEGEncoder.fullChromaQuality == 90)
        #expect(Self.lumaSampling(try JPEGEncoder().encode(image)) == 0x22)
        #expect(Self.lumaSampling(try JPEGEncoder(quality: 89).encode(large)) == 0x22)
        #expect(Self.lumaSampling(try JPEGEncoder(quality: 90).encode(large)) == 0x11)
        let given: [(JPEGEncoder.ChromaSubsampling, UInt8)] = [(.full, 0x11), (.halfAcross, 0x21), (.half, 0x22)]
        for (chroma, factors) in given {
            for quality in [50, 85, 95] {
                for progressive in [false, true] {
                    let encoder = JPEGEncoder(quality: quality, progressive: progressive, chroma: chroma)
                    let small = try encoder.encode(image)
                    let split = try encoder.encode(large)
                    #expect(Self.lumaSampling(small) == factors && Self.lumaSampling(split) == factors)
                    #expect(try Self.decode(split).image.width == large.width)
                }
            }
        }
        // Through the codec's options, as `--chroma` gives them.
        var options = ImageWriteOptions(quality: 70)
        options.chroma = .full
        let written = try await JPEGCodec().encode(StillImageSource(image), options: options)
        #expect(Self.lumaSampling(written) == 0x11)
    }

    /// A grey image (R = G = B) has flat chroma, which halving keeps exactly: the same pixels at
    /// the default 4:2:0 as at 4:4:4.
    @Test func greyImagesDecodeTheSameWhateverTheChroma() throws {
        let grey = TestImages.noise8(width: 48, height: 40, seed: 3)
        let samples = try #require(grey.rgba8)
        let flat = PixelBuffer(
            width: 48, height: 40,
            rgba8: stride(from: 0, to: samples.count, by: 4).flatMap { [samples[$0], samples[$0], samples[$0], 255] })
        let halved = try JPEGEncoder().encode(flat)
        let full = try JPEGEncoder(chroma: .full).encode(flat)
        #expect(Self.lumaSampling(halved) == 0x22 && Self.lumaSampling(full) == 0x11)
        #expect(try Self.decode(halved).image == (try Self.decode(full).image))
    }

    @Test func qualityChangesSizeAndSubsampling() throws {
        let image = Self.picture(width: 64, height: 64)
        let low = try JPEGEncoder(quality: 30).encode(image)
        let standard = try JPEGEncoder().encode(image)
        let high = try JPEGEncoder(quality: 95).encode(image)
        #expect(low.count < standard.count && standard.count < high.count)
        #expect(JPEGEncoder().quality == JPEGEncoder.defaultQuality)
        let lumaSampling = Self.lumaSampling
        #expect(lumaSampling(low) == 0x22)
        #expect(lumaSampling(try JPEGEncoder(quality: JPEGEncoder.fullChromaQuality - 1).encode(image)) == 0x22)
        #expect(lumaSampling(try JPEGEncoder(quality: JPEGEncoder.fullChromaQuality).encode(image)) == 0x11)
        #expect(lumaSampling(standard) == 0x22)
        #expect(lumaSampling(high) == 0x11)
        #expect(throws: ImgToolError.self) { _ = try JPEGEncoder(quality: 0).encode(image) }
        #expect(throws: ImgToolError.self) { _ = try JPEGEncoder(quality: 101).encode(image) }
    }

    @Test func flattensAlphaOntoTheBackground() async throws {
        // Left half transparent, right half half-transparent black.
        let image = PixelBuffer(
            width: 16, height: 16,
            rgba8: (0..<256).flatMap { i -> [UInt8] in i % 16 < 8 ? [255, 0, 0, 0] : [0, 0, 0, 128] })
        var sink = ByteSink()
        let source = StillImageSource(image)
        try await JPEGCodec().write(
            source, into: &sink,
            options: ImageWriteOptions(quality: 100, background: RGBAColor(red: 0, green: 0, blue: 255)),
            progress: nil)
        let (_, decoded) = try Self.decode(sink.bytes)
        let left = decoded.pixel8(x: 2, y: 8)
        let right = decoded.pixel8(x: 13, y: 8)
        #expect(abs(Int(left[0]) - 0) <= 3 && abs(Int(left[2]) - 255) <= 3, "\(left)")
        #expect(abs(Int(right[2]) - 127) <= 4 && Int(right[0]) <= 4, "\(right)")

        var white = ByteSink()
        try await JPEGCodec().write(source, into: &white, options: ImageWriteOptions(), progress: nil)
        let onWhite = try Self.decode(white.bytes).image.pixel8(x: 2, y: 8)
        #expect(onWhite.prefix(3).allSatisfy { $0 >= 250 }, "\(onWhite)")
    }

    /// Every pixel count from 0 to 40, with one translucent pixel at each place (and none).
    @Test func findsAnyTranslucentPixel() {
        for count in 0...40 {
            var pixels = [UInt8](repeating: 255, count: count * 4)
            #expect(pixels.withUnsafeBytes { JPEGEncoder.isOpaque($0) })
            for at in 0..<count {
                pixels[at * 4 + 3] = 254
                #expect(!pixels.withUnsafeBytes { JPEGEncoder.isOpaque($0) }, "\(count) pixels, translucent at \(at)")
                pixels[at * 4 + 3] = 255
                pixels[at * 4 + 2] = 0  // colour bytes do not matter
                #expect(pixels.withUnsafeBytes { JPEGEncoder.isOpaque($0) })
            }
        }
        // Past the 512-word blocks.
        var large = [UInt8](repeating: 255, count: 5000 * 4)
        large[4321 * 4 + 3] = 0
        #expect(!large.withUnsafeBytes { JPEGEncoder.isOpaque($0) })
    }

    @Test func writesProgressiveWhenAsked() async throws {
        var sink = ByteSink()
        try await JPEGCodec().write(
            StillImageSource(Self.picture(width: 32, height: 32)), into: &sink,
            options: ImageWriteOptions(progressive: true), progress: nil)
        #expect(
            sink.bytes.indices.contains {
                sink.bytes[$0] == 0xFF && $0 + 1 < sink.bytes.count && sink.bytes[$0 + 1] == 0xC2
            })
        #expect(try Self.decode(sink.bytes).info.isInterlaced)
    }

    @Test func writes16BitImages() throws {
        let eight = Self.picture(width: 20, height: 10)
        let sixteen = eight.converted(to: .sixteen)
        #expect(try JPEGEncoder().encode(sixteen) == JPEGEncoder().encode(eight))
    }
}
