import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// A JPEG or PNG resized as it is decoded (its rows going straight into the resampler: a JPEG's
/// in two bands on two threads when the decode splits, a PNG's filtered on a second thread while
/// the next are inflated) gives exactly the resize of the image decoded whole (a JPEG shown
/// turned: within 1, the passes running in the other order); an image that cannot be streamed
/// (damaged, cut short) falls back to that path, with its errors and warnings.
@Suite("Images resized as they are decoded", .timeLimit(.minutes(5)))
struct StreamedResizeTests {
    /// A JPEG decoded by a ``JPEGDecoder`` with a given split policy, as a row-streaming source.
    struct PolicySource: RowStreamingSource {
        let bytes: [UInt8]
        let policy: JPEGDecoder.SplitPolicy
        let scaleDenominator: Int
        let info: ImageInfo
        var rowOrientation: ImageOrientation { .up }

        init(_ bytes: [UInt8], policy: JPEGDecoder.SplitPolicy, scaleDenominator: Int = 1) throws {
            self.bytes = bytes
            self.policy = policy
            self.scaleDenominator = scaleDenominator
            info = try ImageSource(data: bytes, name: "photo.jpg").info
        }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            try ImageSource(data: bytes, name: "photo.jpg").makeFrameReader(depth: depth)
        }

        func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata? {
            var decoder = JPEGDecoder(limits: .default)
            decoder.splitPolicy = policy
            return try decoder.stream(bytes, scaleDenominator: scaleDenominator, to: consumer)
        }
    }

    /// The image decoded whole, then resized.
    static func reference(_ bytes: [UInt8], _ resampler: Resampler) throws -> PixelBuffer {
        var decoder = JPEGDecoder(limits: .default)
        decoder.splitPolicy = .never
        return try resampler.resample(try decoder.decode(bytes).image)
    }

    /// (width, height, progressive) of the JPEG; the resizes are made from its size.
    static let layouts: [(width: Int, height: Int, progressive: Bool)] = [
        (1024, 1024, false), (1100, 1003, false), (1100, 1003, true),
    ]

    @Test(arguments: layouts)
    func streamedResizeEqualsResizeOfTheWholeImage(layout: (width: Int, height: Int, progressive: Bool)) throws {
        let bytes = try JPEGEncoder(quality: 80, progressive: layout.progressive).encode(
            JPEGSplitDecodeTests.photo(width: layout.width, height: layout.height))
        let source = PixelSize(width: layout.width, height: layout.height)
        var resamplers = [
            try Resampler(from: source, to: PixelSize(width: 128, height: 117)),
            try Resampler(from: source, to: PixelSize(width: 1500, height: 1400), filter: .mitchell),
            try Resampler(from: source, to: PixelSize(width: 1, height: 700), filter: .catmullRom),
            try Resampler(from: source, to: PixelSize(width: 301, height: 1), filter: .box),
            // cover: scaled past the output, the middle kept
            try Resampler(
                from: source, scaledTo: PixelSize(width: 700, height: 640),
                croppedTo: FrameRegion(x: 100, y: 120, width: 400, height: 300)),
            try Resampler(from: source, to: PixelSize(width: 500, height: 500), linear: true),
        ]
        var plain = try Resampler(from: source, to: PixelSize(width: 333, height: 222))
        plain.usesWideVectors = false
        resamplers.append(plain)
        for resampler in resamplers {
            let expected = try Self.reference(bytes, resampler)
            for policy in [JPEGDecoder.SplitPolicy.always, .never] {
                let streamed = try resampler.resample(rowsOf: try PolicySource(bytes, policy: policy))
                let image = try #require(streamed, "\(resampler.outputSize) \(policy) was not streamed")
                #expect(image == expected, "\(source) -> \(resampler.outputSize), \(policy)")
                #expect(image.metadata?.format == .jpeg)
            }
        }
    }

    @Test func aScaledDecodeIsStreamedToo() throws {
        // 2100x2050 at 1/2 (1050x1025, split on two threads) to 300 wide.
        let bytes = try JPEGEncoder(quality: 80).encode(JPEGSplitDecodeTests.photo(width: 2100, height: 2050))
        var decoder = JPEGDecoder(limits: .default)
        decoder.splitPolicy = .never
        let half = try decoder.decode(bytes, scaleDenominator: 2).image
        let resampler = try Resampler(
            from: PixelSize(width: 1050, height: 1025), to: PixelSize(width: 300, height: 293))
        let expected = try resampler.resample(half)
        for policy in [JPEGDecoder.SplitPolicy.always, .never] {
            let source = try PolicySource(bytes, policy: policy, scaleDenominator: 2)
            #expect(try resampler.resample(rowsOf: source) == expected, "\(policy)")
        }
    }

    /// `bytes` with an EXIF orientation tag.
    static func turned(_ bytes: [UInt8], _ orientation: ImageOrientation) -> [UInt8] {
        let exif: [UInt8] =
            Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0]
            + [UInt8(orientation.rawValue), 0, 0, 0, 0, 0, 0]
        return JPEGCodecTests.inserting(app1: exif, into: bytes)
    }

    @Test(arguments: ImageOrientation.allCases)
    func storedPositionsAndRegionsUndoTheTurn(orientation: ImageOrientation) {
        let (width, height) = (5, 3)
        for y in 0..<height {
            for x in 0..<width {
                let shown = orientation.displayedPosition(x: x, y: y, width: width, height: height)
                let back = orientation.storedPosition(x: shown.x, y: shown.y, width: width, height: height)
                #expect(back == (x, y), "\(orientation) (\(x), \(y))")
            }
        }
        // Stored columns 1-3 of rows 0-1, wherever they are shown, come back as that region.
        let region = FrameRegion(x: 1, y: 0, width: 3, height: 2)
        let corners = [(1, 0), (3, 1)].map {
            orientation.displayedPosition(x: $0.0, y: $0.1, width: width, height: height)
        }
        let shown = FrameRegion(
            x: min(corners[0].x, corners[1].x), y: min(corners[0].y, corners[1].y),
            width: abs(corners[0].x - corners[1].x) + 1, height: abs(corners[0].y - corners[1].y) + 1)
        #expect(orientation.storedRegion(of: shown, stored: PixelSize(width: width, height: height)) == region)
    }

    @Test(arguments: ImageOrientation.allCases)
    func aTurnedJPEGIsStreamedInStoredOrder(orientation: ImageOrientation) throws {
        let bytes = Self.turned(
            try JPEGEncoder(quality: 85).encode(JPEGSplitDecodeTests.photo(width: 1100, height: 1003)), orientation)
        for spec in [
            try ResizeSpec(width: .pixels(301)), try ResizeSpec(width: .pixels(300), height: .pixels(200), fit: .cover),
        ] {
            let source = try ImageSource(data: bytes, name: "photo.jpg")
            #expect(source.rowOrientation == orientation)
            let resized = try ResizedFrameSource(source, spec: spec)
            let streamed = try #require(try resized.resampler.resample(rowsOf: source), "\(orientation) not streamed")
            let frame = try #require(try resized.makeFrameReader(depth: nil).nextFrame())
            #expect(frame.image == streamed)
            // The resize of the image decoded and turned first, within 1 in every sample.
            let expected = try resized.resampler.resample(try source.frame(at: 0).image)
            let (a, b) = (try #require(streamed.rgba8), try #require(expected.rgba8))
            #expect(streamed.width == expected.width && streamed.height == expected.height)
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(orientation) \(spec): largest difference \(worst)")
        }
    }

    @Test func identityResizesAreNotStreamedAndPreReductionsAreSkipped() throws {
        let bytes = try JPEGEncoder(quality: 80).encode(JPEGSplitDecodeTests.photo(width: 300, height: 200))
        let source = try PolicySource(bytes, policy: .always)
        let size = PixelSize(width: 300, height: 200)
        #expect(try Resampler(from: size, to: size).resample(rowsOf: source) == nil)
        // A box pre-reduction is skipped: the plain resize, streamed.
        let thumbnail = try Resampler(from: size, to: PixelSize(width: 30, height: 20), shrinkingFirst: true)
        #expect(!thumbnail.preReduction.isEmpty)
        let plain = try Resampler(from: size, to: PixelSize(width: 30, height: 20))
        #expect(try thumbnail.resample(rowsOf: source) == (try Self.reference(bytes, plain)))
        // An ImageSource streams what its codec streams: a JPEG, not a GIF.
        let reduce = try Resampler(from: size, to: PixelSize(width: 150, height: 100))
        #expect(try reduce.resample(rowsOf: ImageSource(data: bytes, name: "photo.jpg")) != nil)
        var gif = ByteSink()
        try GIFWriter(options: ImageWriteOptions()).write(
            StillImageSource(JPEGSplitDecodeTests.photo(width: 300, height: 200)), into: &gif, progress: nil)
        #expect(try reduce.resample(rowsOf: ImageSource(data: gif.bytes, name: "photo.gif")) == nil)
    }

    /// A still PNG of 8 bits or less is streamed too, from bytes or from its file (rows decoded
    /// on this thread while a second one filters the ones before): the resize of its decode,
    /// sample for sample. 16-bit PNGs are not (the resize keeps 16 bits), and a cut one gives the
    /// error of the whole decode.
    @Test func aPNGIsStreamedToo() throws {
        let photo = JPEGSplitDecodeTests.photo(width: 700, height: 500)
        let rgba = try #require(photo.rgba8)
        func variant(_ change: (inout [UInt8], Int) -> Void) -> PixelBuffer {
            var samples = rgba
            for at in stride(from: 0, to: samples.count, by: 4) { change(&samples, at) }
            return PixelBuffer(width: 700, height: 500, rgba8: samples)
        }
        let images = [
            photo,
            variant { samples, at in for channel in 0..<3 { samples[at + channel] &= 0xC0 } },  // palette
            variant { samples, at in (samples[at + 1], samples[at + 2]) = (samples[at], samples[at]) },  // grey
            variant { samples, at in samples[at + 3] = UInt8(at / 4 % 700 * 255 / 699) },  // alpha
        ]
        let folder = try makeTemporaryFolder("png-stream")
        let resampler = try Resampler(from: PixelSize(width: 700, height: 500), to: PixelSize(width: 211, height: 151))
        for (index, image) in images.enumerated() {
            let png = try PNGEncoder().encode(image)
            let path = folder + "/\(index).png"
            try Data(png).write(to: URL(fileURLWithPath: path))
            for source in [try ImageSource(data: png, name: "x.png"), try ImageSource(contentsOf: path)] {
                let streamed = try #require(try resampler.resample(rowsOf: source), "image \(index) not streamed")
                #expect(streamed == (try resampler.resample(try source.frame(at: 0).image)), "image \(index)")
            }
        }
        let wide = PixelBuffer(width: 700, height: 500, rgba16: rgba.map { UInt16($0) * 257 ^ 1 })
        let sixteen = try ImageSource(data: try PNGEncoder().encode(wide), name: "wide.png")
        #expect(try resampler.resample(rowsOf: sixteen) == nil)

        let cut = Array(try PNGEncoder().encode(photo).dropLast(5000))
        let spec = try ResizeSpec(width: .pixels(211))
        let streamedError = #expect(throws: ImgToolError.self) {
            try ResizedFrameSource(try ImageSource(data: cut, name: "cut.png"), spec: spec)
                .makeFrameReader(depth: nil).nextFrame()
        }
        let wholeError = #expect(throws: ImgToolError.self) {
            try ImageSource(data: cut, name: "cut.png").makeFrameReader(depth: nil).nextFrame()
        }
        #expect(streamedError?.description == wholeError?.description)
        #expect(streamedError?.code == .truncated)
    }

    /// Through ``ResizedFrameSource`` (what `imgtool resize` uses): a cut JPEG and a damaged one
    /// give what the resize of the decoded image gives: pixels, warnings, errors.
    @Test func imagesThatAreNotStreamedFallBack() throws {
        let bytes = try JPEGEncoder(quality: 90).encode(JPEGSplitDecodeTests.photo(width: 1024, height: 768))
        let spec = try ResizeSpec(width: .pixels(256))
        func resized(_ data: [UInt8], depth: SampleDepth?) throws(ImgToolError) -> Frame? {
            let source = try ImageSource(data: data, name: "photo.jpg")
            return try ResizedFrameSource(source, spec: spec).makeFrameReader(depth: depth).nextFrame()
        }
        // 16 bits are never streamed: the path every case must match.
        func reference(_ data: [UInt8]) throws(ImgToolError) -> Frame? { try resized(data, depth: .sixteen) }

        let plain = try #require(try resized(bytes, depth: nil))
        #expect(plain.image.width == 256 && plain.image.height == 192)

        // Cut short: the resize of the whole decode (the rows that arrived, the rest grey), and
        // the cut among the source's warnings.
        let cut = Array(bytes.prefix(bytes.count * 9 / 10))
        let cutSource = try ImageSource(data: cut, name: "photo.jpg")
        #expect(!cutSource.info.isComplete)
        #expect(cutSource.info.warnings.first?.hasPrefix("truncated JPEG") == true)
        let cutFrame = try #require(try resized(cut, depth: nil))
        #expect(
            cutFrame.image
                == (try Resampler(from: PixelSize(width: 1024, height: 768), to: PixelSize(width: 256, height: 192))
                    .resample(try cutSource.frame(at: 0).image)))

        // An EOI marker in the middle of the scan: libjpeg warns and fills the rest with grey.
        var damaged = bytes
        var at = bytes.count / 2
        while damaged[at - 1] == 0xFF { at += 1 }
        damaged[at] = 0xFF
        damaged[at + 1] = 0xD9
        do {
            let frame = try #require(try resized(damaged, depth: nil))
            let decodedDamaged = try ImageSource(data: damaged, name: "photo.jpg").frame(at: 0).image
            #expect(frame.image.metadata?.warnings == decodedDamaged.metadata?.warnings)
            #expect(frame.image.metadata?.warnings.isEmpty == false)
            #expect(
                frame.image
                    == (try Resampler(from: PixelSize(width: 1024, height: 768), to: PixelSize(width: 256, height: 192))
                        .resample(decodedDamaged)))
        } catch {
            let wholeError = #expect(throws: ImgToolError.self) { try reference(damaged) }
            #expect((error as? ImgToolError)?.description == wholeError?.description)
        }
    }
}
