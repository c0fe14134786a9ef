import TestSupport
import Testing

@testable import ImgToolKit

/// JPEGs cut short decode as libjpeg (and browsers, libvips, Pillow with `LOAD_TRUNCATED_IMAGES`)
/// show them: the rows or scans that arrived, the rest grey, with a warning and
/// ``ImageInfo/isComplete`` `false`. Files made by ``JPEGEncoder``, cut in the test.
@Suite("JPEG cut short", .timeLimit(.minutes(5)))
struct JPEGTruncationTests {
    /// How a test file is laid out.
    struct Layout: Sendable, CustomTestStringConvertible {
        /// 4:2:0 chroma (quality 70) or 4:4:4 (quality 95): the same under either default.
        var subsampled: Bool
        var progressive: Bool
        var testDescription: String {
            (progressive ? "progressive " : "baseline ") + (subsampled ? "4:2:0" : "4:4:4")
        }
        var quality: Int { subsampled ? 70 : 95 }
        /// Rows in an MCU row.
        var mcuHeight: Int { subsampled ? 16 : 8 }
        /// Rows above an MCU row's end whose pixels also depend on the MCU row below: 4:2:0's
        /// smooth upsampling reads the chroma row below the last one.
        var margin: Int { subsampled ? 1 : 0 }
    }

    static let width = 96
    static let height = 128

    static func encode(_ layout: Layout, restartEveryRow: Bool = false) throws -> [UInt8] {
        var encoder = JPEGEncoder(quality: layout.quality, progressive: layout.progressive)
        encoder.splitPolicy = .never
        if restartEveryRow { encoder.restartInterval = width / (layout.subsampled ? 16 : 8) }
        return try encoder.encode(JPEGSplitDecodeTests.photo(width: width, height: height))
    }

    /// The offsets of every `0xFF code` pair for which `isMarker(code)` holds.
    static func markers(in bytes: [UInt8], where isMarker: (UInt8) -> Bool) -> [Int] {
        bytes.indices.dropLast().filter { bytes[$0] == 0xFF && isMarker(bytes[$0 + 1]) }
    }

    /// Decodes `bytes` as imgtool does, checking that the cut is reported.
    static func decodeCut(_ bytes: [UInt8], options: DecodingOptions = .default) throws -> PixelBuffer {
        let source = try ImageSource(data: bytes, name: "cut.jpg", options: options)
        #expect(!source.info.isComplete)
        #expect(source.info.warnings.first?.hasPrefix("truncated JPEG: the data ends at byte \(bytes.count)") == true)
        let image = try source.frame(at: 0).image
        #expect(image.metadata?.warnings.first == "Premature end of JPEG file")
        return image
    }

    /// Rows of `image` (RGBA8) equal to the same rows of `full`, counted from the top.
    static func leadingEqualRows(_ image: PixelBuffer, _ full: PixelBuffer) -> Int {
        guard let a = image.rgba8, let b = full.rgba8 else { return 0 }
        let rowBytes = image.width * 4
        return (0..<image.height).first {
            a[$0 * rowBytes..<($0 + 1) * rowBytes] != b[$0 * rowBytes..<($0 + 1) * rowBytes]
        }
            ?? image.height
    }

    /// The first row from which every row down to the bottom is mid grey (128, 128, 128, 255),
    /// libjpeg's fill for the blocks it received nothing for.
    static func greyFrom(_ image: PixelBuffer) -> Int {
        guard let samples = image.rgba8 else { return 0 }
        let rowBytes = image.width * 4
        var row = image.height
        while row > 0 {
            let line = samples[(row - 1) * rowBytes..<row * rowBytes]
            guard line.enumerated().allSatisfy({ $0.offset % 4 == 3 ? $0.element == 255 : $0.element == 128 }) else {
                break
            }
            row -= 1
        }
        return row
    }

    /// With a restart marker after every MCU row, the MCU rows received are known exactly: cut
    /// right after the k-th marker or inside the interval after it, the first k MCU rows are the
    /// full decode's, byte for byte, and every row past the MCU row the cut is in is grey.
    @Test(arguments: [Layout(subsampled: true, progressive: false), Layout(subsampled: false, progressive: false)])
    func baselineKeepsTheMCURowsReceived(layout: Layout) throws {
        let bytes = try Self.encode(layout, restartEveryRow: true)
        let full = try ImageSource(data: bytes, name: "full.jpg").frame(at: 0).image
        let restarts = Self.markers(in: bytes) { (0xD0...0xD7).contains($0) }
        #expect(restarts.count == Self.height / layout.mcuHeight - 1)
        for received in [1, restarts.count / 2, restarts.count - 1] {
            // Right after the marker that ends MCU row `received - 1`, and half way to the next.
            let end = restarts[received - 1] + 2
            for cut in [end, (end + restarts[received]) / 2] {
                let image = try Self.decodeCut(Array(bytes.prefix(cut)))
                let exact = received * layout.mcuHeight - layout.margin
                #expect(Self.leadingEqualRows(image, full) >= exact, "cut at \(cut) of \(bytes.count)")
                let grey = (received + 1) * layout.mcuHeight + layout.margin
                #expect(Self.greyFrom(image) <= grey, "cut at \(cut) of \(bytes.count)")
                #expect(Self.greyFrom(full) == full.height)  // the photo has no grey row
            }
        }
    }

    /// Without restart markers (a file in one piece): the rows above the cut are the full
    /// decode's, those a couple of MCU rows below it grey, and only the MCU row the cut is in
    /// (and the rows its chroma reaches) differs from both.
    @Test(arguments: [Layout(subsampled: true, progressive: false), Layout(subsampled: false, progressive: false)])
    func baselineCutAnywhere(layout: Layout) throws {
        let bytes = try Self.encode(layout)
        let full = try ImageSource(data: bytes, name: "full.jpg").frame(at: 0).image
        let scan = try #require(Self.markers(in: bytes) { $0 == 0xDA }.first)
        var lastEqual = 0
        for tenths in [2, 5, 8] {
            let cut = scan + (bytes.count - scan) * tenths / 10
            let image = try Self.decodeCut(Array(bytes.prefix(cut)))
            let equal = Self.leadingEqualRows(image, full)
            let grey = Self.greyFrom(image)
            #expect(equal >= lastEqual && equal > 0 && equal < Self.height, "cut at \(cut)")
            #expect(grey > equal && grey - equal <= 2 * layout.mcuHeight + layout.margin, "cut at \(cut)")
            #expect(grey < Self.height)
            lastEqual = equal
        }
    }

    /// Progressive: cut in the first scan (the DC coefficients), the rows it did not reach are
    /// grey; cut in the last scan, the rows it reached are the full decode's and the rest is
    /// coarser, never grey.
    @Test(arguments: [Layout(subsampled: true, progressive: true), Layout(subsampled: false, progressive: true)])
    func progressiveKeepsTheScansReceived(layout: Layout) throws {
        let bytes = try Self.encode(layout)
        let full = try ImageSource(data: bytes, name: "full.jpg").frame(at: 0).image
        let scans = Self.markers(in: bytes) { $0 == 0xDA }
        #expect(scans.count > 2)

        let inFirst = try Self.decodeCut(Array(bytes.prefix((scans[0] + scans[1]) / 2)))
        #expect(Self.greyFrom(inFirst) > 0 && Self.greyFrom(inFirst) < Self.height)
        #expect(Self.leadingEqualRows(inFirst, full) < Self.height)

        let last = try #require(scans.last)
        let inLast = try Self.decodeCut(Array(bytes.prefix((last + bytes.count) / 2)))
        let equal = Self.leadingEqualRows(inLast, full)
        #expect(equal >= layout.mcuHeight && equal < Self.height)
        #expect(Self.greyFrom(inLast) == Self.height)
    }

    /// Cut inside a marker segment between two scans (a later scan's header): libjpeg is given
    /// the bytes before that marker, so the image is the one cut there, not an error.
    @Test func cutInsideALaterScansHeader() throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: true))
        let scans = Self.markers(in: bytes) { $0 == 0xDA }
        let image = try Self.decodeCut(Array(bytes.prefix(scans[3] + 5)))
        let atMarker = try Self.decodeCut(Array(bytes.prefix(scans[3])))
        #expect(image == atMarker)
    }

    /// Scaled on decode (DCT scaling, as `resize` asks), turned by EXIF, or decoded by the paths
    /// that use two threads: the same rows as the one-thread decode at that scale.
    @Test func everyDecodePathTakesACutFile() throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: false))
        let cut = Array(bytes.prefix(bytes.count * 6 / 10))
        let half = try Self.decodeCut(
            cut, options: DecodingOptions(minimumSize: PixelSize(width: Self.width / 2, height: Self.height / 2)))
        #expect(half.width == Self.width / 2 && half.height == Self.height / 2)
        #expect(Self.greyFrom(half) < half.height && Self.greyFrom(half) > 0)

        let big = try JPEGEncoder(quality: 80).encode(JPEGSplitDecodeTests.photo(width: 1024, height: 1024))
        let bigCut = Array(big.prefix(big.count / 2))
        var single = JPEGDecoder(limits: .default)
        single.splitPolicy = .never
        var twoThreads = JPEGDecoder(limits: .default)
        twoThreads.splitPolicy = .always
        let one = try single.decode(bigCut)
        let two = try twoThreads.decode(bigCut)
        #expect(one.image == two.image && one.warnings == two.warnings)
        #expect(Self.greyFrom(one.image) < 1024 && Self.greyFrom(one.image) > 0)
    }

    /// Cut before the first scan's data: there is no image, and that is an error naming the input.
    @Test func cutInTheMarkersIsAnError() throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: false))
        let scan = try #require(Self.markers(in: bytes) { $0 == 0xDA }.first)
        for cut in [30, scan + 4] {
            #expect {
                _ = try ImageSource(data: Array(bytes.prefix(cut)), name: "cut.jpg").frame(at: 0)
            } throws: { error in
                (error as? ImgToolError)?.input == "cut.jpg" && (error as? ImgToolError)?.code == .truncated
            }
        }
    }

    /// ``DecodingOptions/failOn``: a cut file opens at `none`, is refused when opened at
    /// `truncated` and `warning`; damage libjpeg finds only in the scan data (an EOI in the
    /// middle of it) is refused when decoded at `warning` only.
    @Test func failOnRefusesWhatItNames() throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: false))
        let cut = Array(bytes.prefix(bytes.count / 2))
        _ = try Self.decodeCut(cut, options: DecodingOptions(failOn: .none))
        for level in [DecodingOptions.FailOn.truncated, .warning] {
            let error = #expect(throws: ImgToolError.self) {
                try ImageSource(data: cut, name: "cut.jpg", options: DecodingOptions(failOn: level))
            }
            #expect(error?.code == .truncated && error?.input == "cut.jpg")
            #expect(error?.message.hasPrefix("truncated JPEG: the data ends at byte \(cut.count)") == true)
            #expect(error?.message.hasSuffix("(refused: fail-on \(level.rawValue))") == true)
        }

        var damaged = bytes
        let scan = try #require(Self.markers(in: bytes) { $0 == 0xDA }.first)
        var at = (scan + bytes.count) / 2
        while damaged[at - 1] == 0xFF || damaged[at] == 0xFF { at += 1 }
        damaged[at] = 0xFF
        damaged[at + 1] = 0xD9
        for level in [DecodingOptions.FailOn.none, .truncated] {
            let source = try ImageSource(data: damaged, name: "bad.jpg", options: DecodingOptions(failOn: level))
            #expect(source.info.isComplete && source.info.warnings.isEmpty)
            #expect(try source.frame(at: 0).image.metadata?.warnings.isEmpty == false)
        }
        let strict = try ImageSource(data: damaged, name: "bad.jpg", options: DecodingOptions(failOn: .warning))
        let error = #expect(throws: ImgToolError.self) { try strict.frame(at: 0) }
        #expect(error?.code == .corrupt && error?.input == "bad.jpg")
        #expect(error?.message.hasPrefix("Corrupt JPEG data") == true)
    }

    /// A cut JPEG written as JPEG XL: its pixels are encoded (libjxl cannot recompress a JPEG that
    /// ends early), grey below the cut.
    @Test func aCutFileBecomesAJPEGXLOfItsPixels() async throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: false))
        let source = try ImageSource(data: Array(bytes.prefix(bytes.count / 2)), name: "cut.jpg")
        #expect(try source.jpegBitstream() == nil)
        var sink = ByteSink()
        try await JXLCodec().write(source, into: &sink, options: ImageWriteOptions(), progress: nil)
        let written = try ImageSource(data: sink.bytes, name: "cut.jxl")
        #expect(written.info.compression != .jpegRecompression)
        let image = try written.frame(at: 0).image
        let bottom = pixelSamples(image, Self.width / 2, Self.height - 1)
        #expect(bottom.prefix(3).allSatisfy { abs($0 - 128) <= 2 }, "\(bottom)")
        #expect(try ImageSource(data: bytes, name: "whole.jpg").jpegBitstream() == bytes)
    }

    /// A whole file, and one with bytes after its end-of-image marker, are complete.
    @Test func wholeFilesAreComplete() throws {
        let bytes = try Self.encode(Layout(subsampled: true, progressive: false))
        for data in [bytes, bytes + [0xFF, 0xD8, 0x00, 0x12]] {
            let end = JPEGDataEnd(of: data)
            #expect(end.truncation == nil && end.usableLength == data.count)
            #expect(try ImageSource(data: data, name: "whole.jpg").info.isComplete)
        }
    }
}
