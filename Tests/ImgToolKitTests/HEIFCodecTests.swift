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

    @Test("the primary item is what is shown even when a thmb reference calls it another image's thumbnail")
    func primaryMarkedThumbnail() throws {
        // Made as pillow_heif's invalid_id.heic is: pitm names item 4, a 16x8 grid that thmb calls
        // the thumbnail of item 2, the 40x24 gradient (scripts/make-heif-fixtures).
        let path = Self.fixtures + "/heif/primary-is-thumbnail.heic"
        let graph = HEIFItemGraph(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(graph.primary == 4 && graph.thumbnailOf[4] == 2 && graph.types[2] == "grid")
        #expect(graph.codedSizes[2] == PixelSize(width: 40, height: 24))
        let (info, image) = try Self.open(path)
        #expect(info.width == 16 && info.height == 8 && image.width == 16)
        #expect(
            info.warnings == [
                "the primary image (pitm), item 4, 16x8, is also marked a thumbnail (thmb) of item 2, 40x24, and is shown as pitm says; heif-convert and pillow-heif, which skip thumbnails, show item 2"
            ])
        for name in ["gradient", "alpha", "photo"] {
            #expect(try Self.open(Self.fixtures + "/heif/\(name).heic").0.warnings.isEmpty)
        }
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

    @Test("an alpha plane that is a grid built from its own image is refused, references read as libheif reads them")
    func alphaCycle() throws {
        // FuzzHEIF's second 4 KB file: the primary grid's alpha is a grid whose tile is the primary.
        // The first reference box's size is wrong; libheif ignores it and reads the next one.
        let path = HEIFCodecTests.fixtures + "/fuzz-seeds/heif-alpha-grid-cycle.heic"
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let graph = HEIFItemGraph(data)
        #expect(graph.inputs[4] == [2] && graph.auxiliaries[2] == [4])
        #expect(graph.problem != nil)
        let error = #expect(throws: ImgToolError.self) { _ = try ImageSource(data: data, name: "cycle.heic") }
        #expect(error?.code == .corrupt && error?.input == "cycle.heic")
        for length in stride(from: 0, to: data.count, by: 5) { _ = HEIFItemGraph(Array(data.prefix(length))).problem }
    }

    @Test("irot and imir compose in ipma order as libheif applies them, one EXIF orientation in all")
    func orientationComposition() {
        for orientation in ImageOrientation.allCases {
            #expect(
                orientation.followed(by: .up) == orientation
                    && ImageOrientation.up.followed(by: orientation) == orientation)
            #expect(orientation.followed(by: orientation.inverse) == .up, "\(orientation)")
        }
        #expect(ImageOrientation.right.followed(by: .right) == .down)
        // AVIFDisplay's table, checked against avifenc's irot3-imir0.avif: irot 1 then imir 1,
        // and irot 3 then imir 0, are 7; irot 1 then imir 0, and irot 3 then imir 1, are 5.
        #expect(ImageOrientation.left.followed(by: .upMirrored) == .rightMirrored)
        #expect(ImageOrientation.right.followed(by: .downMirrored) == .rightMirrored)
        #expect(ImageOrientation.left.followed(by: .downMirrored) == .leftMirrored)
        #expect(ImageOrientation.right.followed(by: .upMirrored) == .leftMirrored)
        #expect(ImageOrientation.upMirrored.followed(by: .downMirrored) == .down)
    }

    @Test("two images that are each other's alpha form a cycle; an alpha of a grid's tile does not")
    func auxiliaryCycle() {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + body.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + body
        }
        func infe(_ id: UInt16, _ type: String) -> [UInt8] {
            box("infe", [2, 0, 0, 0, UInt8(id >> 8), UInt8(id & 0xFF), 0, 0] + Array(type.utf8) + [0])
        }
        func reference(_ type: String, _ from: UInt16, _ to: [UInt16]) -> [UInt8] {
            box(type, [0, UInt8(from), 0, UInt8(to.count)] + to.flatMap { [0, UInt8($0)] })
        }
        func file(_ items: [(UInt16, String)], _ references: [[UInt8]]) -> [UInt8] {
            let iinf = box("iinf", [0, 0, 0, 0, 0, UInt8(items.count)] + items.flatMap { infe($0.0, $0.1) })
            return box("meta", [0, 0, 0, 0] + iinf + box("iref", [0, 0, 0, 0] + references.flatMap { $0 }))
        }
        let mutual = file([(1, "hvc1"), (2, "hvc1")], [reference("auxl", 2, [1]), reference("auxl", 1, [2])])
        #expect(HEIFItemGraph(mutual).problem?.contains("leads back to itself") == true)
        let tiles = file(
            [(1, "grid"), (2, "hvc1"), (3, "hvc1"), (4, "hvc1")],
            [reference("dimg", 1, [2, 3]), reference("auxl", 4, [2])])
        #expect(HEIFItemGraph(tiles).problem == nil)
        let selfAlpha = file([(1, "hvc1")], [reference("auxl", 1, [1])])
        #expect(HEIFItemGraph(selfAlpha).problem != nil)
    }
}
