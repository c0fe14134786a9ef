import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// HEIC reading through libheif, loaded at run time. The decoding tests need libheif1 installed
/// (CI installs it); what a machine without it prints is tested end to end (`ModernFormatsCLITests`).
@Suite("HEIF codec", .enabled(if: HEIFCodec().isAvailable), .timeLimit(.minutes(5)))
struct HEIFCodecTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardized.path

    static func open(_ path: String) throws -> (ImageInfo, PixelBuffer) {
        let source = try ImageSource(contentsOf: path)
        return (source.info, try source.frame(at: 0, depth: .eight).image)
    }

    /// The largest difference of one sample where `expected` is visible (alpha compared everywhere).
    static func worst(_ expected: PixelBuffer, _ actual: PixelBuffer) -> Int {
        guard let x = expected.rgba8, let y = actual.rgba8, x.count == y.count else { return .max }
        var worst = 0
        for pixel in stride(from: 0, to: x.count, by: 4) {
            worst = max(worst, abs(Int(x[pixel + 3]) - Int(y[pixel + 3])))
            guard x[pixel + 3] > 0 else { continue }
            for channel in 0..<3 { worst = max(worst, abs(Int(x[pixel + channel]) - Int(y[pixel + channel]))) }
        }
        return worst
    }

    @Test("a HEIC is sniffed by its brand, not claimed by AVIF, and read as libheif shows it")
    func stills() throws {
        for (heic, png) in [("gradient", "gradient"), ("alpha", "alpha")] {
            let path = Self.fixtures + "/heif/\(heic).heic"
            let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(32))
            #expect(ImageFormat.sniff(head) == .heif)
            #expect(!AVIFCodec().sniff(head))
            let (info, image) = try Self.open(path)
            let (_, expected) = try Self.open(Self.fixtures + "/avif/\(png).png")
            #expect(info.format == .heif && info.width == expected.width && info.height == expected.height)
            #expect(info.colorType == (heic == "alpha" ? .rgba : .rgb) && info.bitDepth == 8)
            // x265 lossless after heif-enc's rounding RGB-to-GBR step (scripts/make-heif-fixtures).
            #expect(Self.worst(expected, image) <= 1, "\(heic)")
        }
        let (info, image) = try Self.open(Self.fixtures + "/heif/photo.heic")
        #expect(info.width == 40 && info.height == 24 && image.width == 40)
        #expect(HEIFCodec().runtimeNote?.contains("loaded at run time") == true)
    }

    @Test("a cut or damaged HEIC is refused with a typed error naming the input")
    func badInput() throws {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/heif/photo.heic")))
        for length in [24, 100, file.count / 2, file.count - 20] {
            let error = #expect(throws: ImgToolError.self) {
                _ = try ImageSource(data: Array(file.prefix(length)), name: "cut.heic").frame(at: 0)
            }
            #expect(error?.input == "cut.heic")
            #expect([.truncated, .corrupt].contains(error?.code))
        }
        let error = #expect(throws: ImgToolError.self) {
            _ = try ImageSource(data: file, name: "big.heic", limits: DecodingLimits(maxPixels: 100))
        }
        #expect(error?.code == .tooLarge)
    }
}

/// What is checked before libheif sees a file (no libheif needed).
@Suite("HEIF structure checks")
struct HEIFStructureTests {
    @Test("a grid whose tile is a grid is refused before libheif recurses on it (FuzzHEIF's 4 KB file)")
    func gridOfGrids() throws {
        let path = HEIFCodecTests.fixtures + "/fuzz-seeds/heif-grid-of-grids.heic"
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(HEIFItemGraph(data).problem?.contains("a grid") == true)
        let error = #expect(throws: ImgToolError.self) { _ = try ImageSource(data: data, name: "bomb.heic") }
        #expect(error?.code == .corrupt && error?.input == "bomb.heic")
        // Well-formed files have no such problem.
        for name in ["gradient", "alpha", "photo"] {
            let file = Array(try Data(contentsOf: URL(fileURLWithPath: HEIFCodecTests.fixtures + "/heif/\(name).heic")))
            #expect(HEIFItemGraph(file).problem == nil)
        }
        // Cut anywhere, the reader answers without reading past the end.
        for length in stride(from: 0, to: data.count, by: 7) { _ = HEIFItemGraph(Array(data.prefix(length))).problem }
    }
}
