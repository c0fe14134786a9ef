import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// A crop just before a resize, of a still JPEG or PNG, is resized as the image is decoded (the
/// rows and columns outside the box dropped as they come): the same pixels as resizing the
/// cropped image decoded whole, and, for a JPEG shown turned, within 1 of it (the passes then run
/// in stored order, as for any turned JPEG).
@Suite("A crop before a resize", .timeLimit(.minutes(5)))
struct CropThenResizeTests {
    static let photo = JPEGSplitDecodeTests.photo(width: 1100, height: 1003)

    /// The chain crop then resize, and the reference: the decoded image cropped, then resized.
    private static func chainAndReference(
        _ source: ImageSource, crop: CropOperation, resize: String
    ) async throws -> (chained: any FrameSource, got: PixelBuffer, expected: PixelBuffer) {
        let context = OperationContext()
        let chained = try await ResizeOperation(size: resize).apply(
            to: try await crop.apply(to: source, context: context), context: context)
        let decoded = try source.frame(at: 0).image
        let box = try crop.region(in: PixelSize(width: decoded.width, height: decoded.height))
        let reference = try await ResizeOperation(size: resize).apply(
            to: StillImageSource(decoded.cropped(to: box)), context: context)
        let got = try #require(try OperationsTests.frames(chained).first?.image)
        let expected = try #require(try OperationsTests.frames(reference).first?.image)
        return (chained, got, expected)
    }

    static let crops: [(String, String)] = [
        ("16:9", "480"), ("1:1", "300"), ("700x400+211+333", "50%"), ("1x1000+0+3", "1x100"),
        ("1100x1003+0+0", "640"), ("333x222+767+781", "1000"),
        // Narrow boxes, where libjpeg decodes only the box's columns and a margin: at the left
        // and right edges, and inside, off block and iMCU boundaries.
        ("61x1003+0+0", "30"), ("77x500+1023+250", "40"), ("150x900+437+41", "75"), ("17x17+9+986", "8"),
    ]

    /// Every layout the decoder streams (4:4:4, 4:2:0, progressive 4:2:0, 4:2:2), cropped at
    /// rows and columns that are not block or row-group boundaries: libjpeg skips the rows above
    /// the box, and the pipeline decodes them and drops them.
    @Test(arguments: crops)
    func aJPEGIsCroppedAsItIsDecoded(crop: String, resize: String) async throws {
        for (layout, bytes) in try JPEGPipelineTests.images() {
            let source = try ImageSource(data: bytes, name: "photo.jpg")
            let operation = try CropOperation(parsing: crop)
            let size = PixelSize(width: source.info.width, height: source.info.height)
            guard let box = try? operation.region(in: size) else { continue }  // a box past a smaller image
            let (chained, got, expected) = try await Self.chainAndReference(source, crop: operation, resize: resize)
            let resized = try #require(chained as? ResizedFrameSource)
            #expect(try resized.resampler.resample(rowsOf: try #require(resized.base as? CroppedRowSource)) != nil)
            #expect(got == expected, "\(layout) --crop \(crop) --resize \(resize)")
            // Decoded on one thread, in two halves, and in the two-thread pipeline.
            for policy in [JPEGDecoder.SplitPolicy.always, .never] {
                let rows = CroppedRowSource(try StreamedResizeTests.PolicySource(bytes, policy: policy), region: box)
                let streamed = try resized.resampler.resample(rowsOf: rows)
                #expect(streamed == expected, "\(layout) --crop \(crop) --resize \(resize), \(policy)")
            }
        }
    }

    /// Takes the samples of `columns` of every row into `pixels`, as a crop of the decoded image.
    private final class ColumnsTaker: RowBandConsumer, @unchecked Sendable {
        let sourceSize: PixelSize
        let columns: Range<Int>?
        /// Written through a pointer by one band's thread per row: the two bands of a decode in
        /// halves take their rows on two threads at once, and their rows do not overlap.
        private let storage: UnsafeMutableRawBufferPointer

        init(size: PixelSize, columns: Range<Int>) {
            sourceSize = size
            self.columns = columns
            storage = .allocate(byteCount: columns.count * size.height * 4, alignment: 16)
            storage.initializeMemory(as: UInt8.self, repeating: 0)
        }

        deinit { storage.deallocate() }

        /// What the rows handed over hold in the columns read, row after row.
        var pixels: [UInt8] { Array(storage) }

        func bands(splittingNear row: Int?) -> [Range<Int>] {
            guard let row, row > 0, row < sourceSize.height else { return [0..<sourceSize.height] }
            return [0..<row, row..<sourceSize.height]
        }

        func take(_ row: UnsafeRawBufferPointer, row index: Int, band: Int) {
            let box = columns ?? 0..<sourceSize.width
            let start = index * box.count * 4
            UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + box.count * 4)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: row[(box.lowerBound * 4)..<(box.upperBound * 4)]))
        }
    }

    /// libjpeg narrowed to a box's columns and a margin (`jpeg_crop_scanline`) gives the box's
    /// pixels of a decode of the whole width, for every layout, grey and CMYK, at a DCT scale, on
    /// one thread and in two halves.
    @Test func narrowedColumnsAreExact() throws {
        let color = JPEGPipelineTests.fixtures + "/../color"
        var images = try JPEGPipelineTests.images()
        for name in ["gray.jpg", "cmyk.jpg"] {
            images.append((name, Array(try Data(contentsOf: URL(fileURLWithPath: color + "/" + name)))))
        }
        for (layout, bytes) in images {
            for scale in [1, 2] {
                var decoder = JPEGDecoder(limits: .default)
                let whole = try decoder.decode(bytes, scaleDenominator: scale).image
                let rgba = try #require(whole.rgba8)
                let width = whole.width
                let boxes = [
                    0..<1, 0..<61, 5..<70, 31..<33, 100..<357, width - 77..<width, width - 1..<width, 0..<width,
                ]
                for box in boxes where box.lowerBound >= 0 && box.upperBound <= width {
                    var expected: [UInt8] = []
                    for y in 0..<whole.height {
                        expected += rgba[((y * width + box.lowerBound) * 4)..<((y * width + box.upperBound) * 4)]
                    }
                    for policy in [JPEGDecoder.SplitPolicy.never, .always] {
                        decoder.splitPolicy = policy
                        let taker = ColumnsTaker(size: PixelSize(width: width, height: whole.height), columns: box)
                        #expect(try decoder.stream(bytes, scaleDenominator: scale, to: taker) != nil)
                        #expect(taker.pixels == expected, "\(layout) 1/\(scale), columns \(box), \(policy)")
                    }
                }
            }
        }
    }

    @Test(arguments: crops.prefix(3))
    func aPNGIsCroppedAsItIsDecoded(crop: String, resize: String) async throws {
        let source = try ImageSource(data: try PNGEncoder().encode(Self.photo), name: "photo.png")
        let (chained, got, expected) = try await Self.chainAndReference(
            source, crop: try CropOperation(parsing: crop), resize: resize)
        let resized = try #require(chained as? ResizedFrameSource)
        #expect(try resized.resampler.resample(rowsOf: try #require(resized.base as? CroppedRowSource)) != nil)
        #expect(got == expected, "--crop \(crop) --resize \(resize)")
    }

    @Test(arguments: [ImageOrientation.right, .down, .leftMirrored, .upMirrored])
    func aTurnedJPEGIsCroppedInStoredTerms(orientation: ImageOrientation) async throws {
        let bytes = StreamedResizeTests.turned(try JPEGEncoder(quality: 85).encode(Self.photo), orientation)
        let source = try ImageSource(data: bytes, name: "photo.jpg")
        for (crop, resize) in [("16:9", "400"), ("500x300+100+450", "50%")] {
            let (chained, got, expected) = try await Self.chainAndReference(
                source, crop: try CropOperation(parsing: crop), resize: resize)
            let resized = try #require(chained as? ResizedFrameSource)
            #expect(try resized.resampler.resample(rowsOf: try #require(resized.base as? CroppedRowSource)) != nil)
            #expect(got.width == expected.width && got.height == expected.height)
            let (a, b) = (try #require(got.rgba8), try #require(expected.rgba8))
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(orientation) --crop \(crop): largest difference \(worst)")
        }
    }

    /// Blocks of 40 pixels in many colours, with sharp edges: a box carried to a smaller decode
    /// a pixel off shows along every edge.
    static let blocks: PixelBuffer = {
        let (width, height) = (1200, 900)
        var samples = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (column, row) = (x / 40, y / 40)
                let at = (y * width + x) * 4
                samples[at] = UInt8((column * 53 + row * 17) % 256)
                samples[at + 1] = UInt8((column * 29 + row * 71) % 256)
                samples[at + 2] = UInt8((column * row * 13 + 40) % 256)
            }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }()

    /// A thumbnail of a crop of a JPEG is filtered from a decode at a reduced DCT scale, as a
    /// thumbnail of a whole JPEG is: the same picture as the thumbnail of the crop decoded at
    /// full size, whatever the orientation, with the box where it was.
    @Test(arguments: [ImageOrientation.up, .right, .leftMirrored, .down, .left])
    func aThumbnailOfACropIsDecodedAtAReducedScale(orientation: ImageOrientation) async throws {
        let bytes = StreamedResizeTests.turned(try JPEGEncoder(quality: 95).encode(Self.blocks), orientation)
        let source = try ImageSource(data: bytes, name: "blocks.jpg")
        let context = OperationContext()
        let decoded = try source.frame(at: 0).image
        for (crop, side) in [("500x500+310+205", 100), ("16:9", 120), ("333x777+13+101", 60), ("17:5", 200)] {
            let operation = try CropOperation(parsing: crop)
            let thumbnail = ResizeOperation(spec: try .thumbnail(side))
            let chained = try await thumbnail.apply(
                to: try await operation.apply(to: source, context: context), context: context)
            let reduced = try #require((chained as? ResizedFrameSource)?.base as? ImageSource, "\(crop)")
            #expect(reduced.info.width < source.info.width, "\(orientation) --crop \(crop): decoded at full size")
            let box = try operation.region(in: PixelSize(width: decoded.width, height: decoded.height))
            let reference = try await thumbnail.apply(to: StillImageSource(decoded.cropped(to: box)), context: context)
            let got = try #require(try OperationsTests.frames(chained).first?.image.rgba8)
            let expected = try #require(try OperationsTests.frames(reference).first?.image)
            #expect(chained.info.width == expected.width && chained.info.height == expected.height)
            let want = try #require(expected.rgba8)
            let mean = Double(zip(got, want).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(want.count)
            // The box a source pixel off gives 2.2 here, the whole image's thumbnail against its
            // full-size decode's 0.6 to 1.0.
            #expect(mean < 1.5, "\(orientation) --crop \(crop) to \(side): mean difference \(mean)")
        }
    }

    @Test func aThumbnailOfACropOfAPNGIsResizedAsItIsDecoded() async throws {
        // PNG has no smaller decode: the crop streams into the filter as for any resize.
        let source = try ImageSource(data: try PNGEncoder().encode(Self.photo), name: "photo.png")
        let context = OperationContext()
        let chained = try await ResizeOperation(spec: try .thumbnail(100)).apply(
            to: try await CropOperation(parsing: "600x400+50+60").apply(to: source, context: context), context: context)
        #expect((chained as? ResizedFrameSource)?.base is CroppedRowSource)
        #expect(chained.info.width == 100 && chained.info.height == 67)
    }

    @Test("a window of whole pixels is resized to the bit as those pixels cut out")
    func aWholePixelWindowIsACrop() throws {
        let image = Self.photo
        let box = FrameRegion(x: 37, y: 21, width: 300, height: 200)
        let cut = image.cropped(to: box)
        for filter in ResampleFilter.allCases {
            for size in [
                PixelSize(width: 123, height: 77), PixelSize(width: 300, height: 200),
                PixelSize(width: 450, height: 90),
            ] {
                let crop = FrameRegion(x: 0, y: 0, width: size.width, height: size.height)
                let windowed = Resampler(
                    checkedFrom: PixelSize(width: image.width, height: image.height), scaledTo: size, croppedTo: crop,
                    filter: filter, linear: false,
                    window: Resampler.SourceWindow(x: 37, y: 21, width: 300, height: 200))
                let expected = try Resampler(
                    from: PixelSize(width: cut.width, height: cut.height), scaledTo: size, croppedTo: crop,
                    filter: filter)
                #expect(try windowed.resample(image) == expected.resample(cut), "\(filter) to \(size)")
            }
        }
    }

    @Test func theBoxOfAStoredRegionIsShownWhereTheRegionIs() {
        // At full size the continuous box is the region itself, for every orientation.
        let stored = PixelSize(width: 37, height: 23)
        for orientation in ImageOrientation.allCases {
            let shown = orientation.displayedSize(of: stored)
            for region in [
                FrameRegion(x: 0, y: 0, width: shown.width, height: shown.height),
                FrameRegion(x: 3, y: 5, width: 7, height: 11),
                FrameRegion(x: shown.width - 2, y: 0, width: 2, height: 1),
            ] {
                let box = orientation.storedRegion(of: region, stored: stored)
                let back = orientation.displayedBox(
                    x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height),
                    stored: stored)
                #expect(
                    back.x == Double(region.x) && back.y == Double(region.y) && back.width == Double(region.width)
                        && back.height == Double(region.height), "\(orientation) \(region)")
            }
        }
    }

    @Test func aDamagedJPEGIsDecodedWholeThenCropped() async throws {
        // Damaged scan data: libjpeg warns; the stream gives up and the frame is decoded the
        // usual way (its warnings kept), with the same pixels as cropping that decode.
        let bytes = try JPEGEncoder(quality: 85).encode(Self.photo)
        var decoder = JPEGDecoder(limits: .default)
        decoder.splitPolicy = .never
        // The first of a few damaged copies that libjpeg decodes with a warning.
        var damaged = bytes
        for attempt in 0..<40 {
            damaged = bytes
            let at = bytes.count / 3 + attempt * 211
            for offset in 0..<24 where damaged[at + offset] != 0xFF && damaged[at + offset - 1] != 0xFF {
                damaged[at + offset] = damaged[at + offset] == 0xFE ? 0x5A : 0xFE
            }
            if let decoded = try? decoder.decode(damaged), !decoded.warnings.isEmpty { break }
        }
        #expect(try !decoder.decode(damaged).warnings.isEmpty, "the damage makes libjpeg warn")
        let source = try ImageSource(data: damaged, name: "damaged.jpg")
        let (chained, got, expected) = try await Self.chainAndReference(
            source, crop: try CropOperation(parsing: "600x500+100+100"), resize: "300")
        let resized = try #require(chained as? ResizedFrameSource)
        #expect(try resized.resampler.resample(rowsOf: try #require(resized.base as? CroppedRowSource)) == nil)
        #expect(got == expected)
    }

    @Test func aCropOfAnAnimationIsNotStreamed() async throws {
        let context = OperationContext()
        let gif = try OperationsTests.sample("spinner.gif")
        let chained = try await ResizeOperation(size: "40").apply(
            to: try await CropOperation(parsing: "80x80+8+8").apply(to: gif, context: context), context: context)
        #expect((chained as? ResizedFrameSource)?.base is MappedFrameSource)
        #expect(try OperationsTests.frames(chained).count == gif.info.frameCount)
    }
}
