import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImgToolKit

/// A large YCbCr JPEG is decoded in a pipeline on two threads: libjpeg makes the planes on one,
/// the other upsamples the chroma and converts to RGBA as libjpeg-turbo would
/// (`CLibJPEG/jpeg_pipeline.c`). These check that every pixel equals libjpeg's own decode, for
/// each chroma layout, sequential and progressive, odd sizes, turned and streamed.
@Suite("JPEG pipeline decode", .timeLimit(.minutes(5)))
struct JPEGPipelineTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/jpeg").standardized.path

    /// The layouts: 4:4:4 and 4:2:0 as JPEGEncoder writes them (odd sizes: partial blocks at the
    /// right and bottom edges, an odd chroma width), progressive 4:2:0, and a 4:2:2 file written
    /// by Pillow (libjpeg-turbo) whose saturated corners make the conversion clamp.
    static func images() throws -> [(name: String, bytes: [UInt8])] {
        let photo = JPEGSplitDecodeTests.photo(width: 1100, height: 1003)
        return [
            ("4:4:4", try JPEGEncoder(quality: 95).encode(JPEGSplitDecodeTests.photo(width: 1024, height: 1024))),
            ("4:2:0", try JPEGEncoder(quality: 70).encode(photo)),
            ("4:2:0 progressive", try JPEGEncoder(quality: 70, progressive: true).encode(photo)),
            (
                "4:2:2",
                Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/yuv422-1032x1017.jpg")))
            ),
        ]
    }

    @Test func pipelineEqualsLibjpegsDecode() throws {
        for (name, bytes) in try Self.images() {
            let header = try JPEGDecoder(limits: .default).header(of: bytes)
            if availableProcessors > 1 {
                #expect(JPEGDecoder.pipelines(header: header, scaleDenominator: 1), "\(name)")
            }
            #expect(!JPEGDecoder.pipelines(header: header, scaleDenominator: 2))
            for orientation in [ImageOrientation.up, .down, .upMirrored, .downMirrored] {
                let (pipelined, whole) = try JPEGSplitDecodeTests.bothDecodes(bytes, orientation: orientation)
                #expect(pipelined.warnings.isEmpty && whole.warnings.isEmpty)
                let mismatch = JPEGSplitDecodeTests().firstMismatch(pipelined.image, whole.image)
                #expect(mismatch == nil, "\(name) \(orientation): \(mismatch ?? "")")
            }
        }
    }

    /// Rows handed to a consumer as they are made, on two threads and on one, are the same rows.
    @Test func streamedRowsEqualLibjpegsDecode() throws {
        for (name, bytes) in try Self.images() {
            var single = JPEGDecoder(limits: .default)
            single.splitPolicy = .never
            let whole = try single.decode(bytes).image
            var pipelined = JPEGDecoder(limits: .default)
            pipelined.splitPolicy = .always
            let rows = CollectedRows(sourceSize: PixelSize(width: whole.width, height: whole.height))
            #expect(try pipelined.stream(bytes, scaleDenominator: 1, to: rows) != nil)
            let same = rows.image == whole.rgba8
            #expect(same, "\(name)")
        }
    }

    /// An image of fewer row groups than the converting thread waits for at a time (16), and one
    /// of a few more (4:2:0: 16-row groups; 4:4:4: 8-row groups): the ring's first and last batches,
    /// decoded with the default policy, which pipelines them whether a processor is idle or not.
    @Test func fewRowGroupsEqualLibjpegsDecode() throws {
        let wide = JPEGSplitDecodeTests.photo(width: 16400, height: 64)  // 4 groups of 16 rows
        let tall = JPEGSplitDecodeTests.photo(width: 4100, height: 280)  // 35 groups of 8 rows
        for (name, bytes) in [
            ("4:2:0, 4 groups", try JPEGEncoder(quality: 70).encode(wide)),
            ("4:4:4, 35 groups", try JPEGEncoder(quality: 95).encode(tall)),
        ] {
            let header = try JPEGDecoder(limits: .default).header(of: bytes)
            if availableProcessors > 1 {
                #expect(JPEGDecoder.pipelines(header: header, scaleDenominator: 1), "\(name)")
            }
            var single = JPEGDecoder(limits: .default)
            single.splitPolicy = .never
            let whole = try single.decode(bytes)
            let byDefault = try JPEGDecoder(limits: .default).decode(bytes)
            #expect(byDefault.warnings.isEmpty && whole.warnings.isEmpty)
            let mismatch = JPEGSplitDecodeTests().firstMismatch(byDefault.image, whole.image)
            #expect(mismatch == nil, "\(name): \(mismatch ?? "")")
            let rows = CollectedRows(sourceSize: PixelSize(width: header.width, height: header.height))
            #expect(try JPEGDecoder(limits: .default).stream(bytes, scaleDenominator: 1, to: rows) != nil)
            let same = rows.image == whole.image.rgba8
            #expect(same, "\(name)")
        }
    }

    /// A cut or damaged file: the pipeline is not tried or gives up, and the decode in one piece
    /// gives the same error, or the same warnings and pixels.
    @Test func damageGivesTheSameOutcome() throws {
        for (name, bytes) in try Self.images() {
            let cut = Array(bytes.prefix(bytes.count * 2 / 3))
            var single = JPEGDecoder(limits: .default)
            single.splitPolicy = .never
            var pipelined = JPEGDecoder(limits: .default)
            pipelined.splitPolicy = .always
            let wholeCut = try single.decode(cut)
            let pipedCut = try pipelined.decode(cut)
            #expect(pipedCut.warnings == wholeCut.warnings, "\(name)")
            #expect(wholeCut.warnings.first == "Premature end of JPEG file", "\(name)")
            let sameCut = pipedCut.image == wholeCut.image
            #expect(sameCut, "\(name)")
            var damaged = bytes
            let at = bytes.count / 2
            for offset in 0..<6 where damaged[at + offset] != 0xFF && damaged[at + offset - 1] != 0xFF {
                damaged[at + offset] ^= 0x33
            }
            let whole = try? single.decode(damaged)
            let piped = try? pipelined.decode(damaged)
            #expect(whole?.warnings == piped?.warnings, "\(name)")
            let samePixels = whole?.image == piped?.image
            #expect(samePixels, "\(name)")
            if whole?.warnings.isEmpty == false {
                let header = try JPEGDecoder(limits: .default).header(of: bytes)
                let rows = CollectedRows(sourceSize: PixelSize(width: header.width, height: header.height))
                #expect(try pipelined.stream(damaged, scaleDenominator: 1, to: rows) == nil)
            }
        }
    }
}

/// Keeps every row it is given, in one image.
private final class CollectedRows: RowBandConsumer, Sendable {
    let sourceSize: PixelSize
    private let pixels: Mutex<[UInt8]>

    init(sourceSize: PixelSize) {
        self.sourceSize = sourceSize
        pixels = Mutex([UInt8](repeating: 0, count: sourceSize.width * sourceSize.height * 4))
    }

    var image: [UInt8] { pixels.withLock { $0 } }

    func bands(splittingNear row: Int?) -> [Range<Int>] { [0..<sourceSize.height] }

    func take(_ row: UnsafeRawBufferPointer, row index: Int, band: Int) {
        let rowBytes = sourceSize.width * 4
        pixels.withLock { pixels in
            pixels.withUnsafeMutableBytes { target in
                UnsafeMutableRawBufferPointer(rebasing: target[index * rowBytes..<(index + 1) * rowBytes])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: row[0..<rowBytes]))
            }
        }
    }
}
