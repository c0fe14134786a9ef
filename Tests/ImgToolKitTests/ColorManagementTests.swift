import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Colour management on the fixtures in `Tests/Fixtures/color` (made by
/// `scripts/make-color-fixtures`): each tagged source written as PNG, JPEG, lossless WebP and GIF,
/// the output rendered to sRGB through the profile it carries, against the source rendered to sRGB
/// by Pillow's ImageCms (the stored `*.srgb.png` references: Little CMS through another binding).
@Suite("Colour management", .timeLimit(.minutes(5)))
struct ColorManagementTests {
    static let folder =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/color").path

    static func fixture(_ name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: folder + "/" + name) else {
            throw ImgToolError(.notFound, "missing fixture \(name)")
        }
        return [UInt8](data)
    }

    static func source(_ name: String) throws -> ImageSource {
        try ImageSource(data: fixture(name), name: name)
    }

    /// The first frame of `bytes` as a colour-managed viewer shows it: converted to sRGB through
    /// the profile the file carries, 8-bit.
    static func rendered(_ bytes: [UInt8], name: String = "output") throws -> PixelBuffer {
        let source = try ImageSource(data: bytes, name: name)
        let depth: SampleDepth = source.info.bitDepth == 16 ? .sixteen : .eight
        let frame = try source.frame(at: 0, depth: depth).image
        return try frame.convertingColors(from: source.info.color.effectiveProfile, to: nil).converted(to: .eight)
    }

    static func reference(_ name: String) throws -> PixelBuffer {
        try source(name).frame(at: 0, depth: .eight).image
    }

    static func encode(_ source: any FrameSource, as format: String, options: ImageWriteOptions = ImageWriteOptions())
        async throws -> [UInt8]
    {
        guard let codec = CodecRegistry.standard.codec(named: format) else { throw ImgToolError(.notFound, format) }
        return try await codec.encode(source, options: options)
    }

    /// The outputs each source is written as, and the mean CIEDE2000 each may differ by.
    static let outputs: [(format: String, options: ImageWriteOptions, limit: Double)] = [
        ("png", ImageWriteOptions(), 0.5),
        ("webp", ImageWriteOptions(lossless: true), 0.5),
        ("jpeg", ImageWriteOptions(quality: 100), 1.0),
        ("gif", ImageWriteOptions(), 2.5),
    ]

    @Test(
        "Each tagged source, written in each format, looks as the source does (mean CIEDE2000 against ImageCms)",
        arguments: ["p3.jpg", "adobe-rgb.jpg", "prophoto-16.png", "gray.jpg", "cmyk.jpg", "p3-rgba.png"])
    func keepsColours(name: String) async throws {
        let source = try Self.source(name)
        let stem = name.split(separator: ".")[0]
        let reference = try Self.reference("\(stem).srgb.png")
        for output in Self.outputs {
            let bytes = try await Self.encode(source, as: output.format, options: output.options)
            let shown = try Self.rendered(bytes)
            // JPEG flattens translucent pixels and GIF thresholds them: compare the opaque ones.
            let opaqueOnly = output.format == "jpeg" || output.format == "gif"
            let (mean, largest) = ColorDifference.compare(reference, shown, opaqueOnly: opaqueOnly)
            // CMYK has a conversion at decode time (Little CMS here, ImageCms in the reference).
            let limit = name == "cmyk.jpg" && output.format != "gif" ? max(output.limit, 1.5) : output.limit
            #expect(mean < limit, "\(name) as \(output.format): mean CIEDE2000 \(mean), max \(largest)")
        }
    }

    @Test("The keep path writes the pixels unchanged and the profile with them (PNG, lossless WebP)")
    func keepPathIsUntouched() async throws {
        let source = try Self.source("p3-rgba.png")
        let original = try source.frame(at: 0).image
        for format in ["png", "webp"] {
            let bytes = try await Self.encode(source, as: format, options: ImageWriteOptions(lossless: true))
            let written = try ImageSource(data: bytes, name: "out")
            #expect(written.info.color.profile?.data == source.info.color.profile?.data, "\(format)")
            #expect(written.info.color.profile?.description == "Display P3")
            #expect(firstDifference(original, try written.frame(at: 0).image) == nil, "\(format)")
        }
    }

    @Test("--profile srgb gives Little CMS's own conversion within 1 level, and says sRGB")
    func convertsToSRGB() async throws {
        for name in ["p3.jpg", "adobe-rgb.jpg", "p3-rgba.png"] {
            let source = try Self.source(name)
            let bytes = try await Self.encode(source, as: "png", options: ImageWriteOptions(profile: .sRGB))
            let written = try ImageSource(data: bytes, name: "out")
            #expect(written.info.color.profile == nil && written.info.color.hasSRGB)
            let stem = name.split(separator: ".")[0]
            let reference = try Self.reference("\(stem).srgb.png")
            let converted = try written.frame(at: 0).image
            var worst = 0
            for y in 0..<reference.height {
                for x in 0..<reference.width {
                    let (e, a) = (pixelSamples(reference, x, y), pixelSamples(converted, x, y))
                    guard e[3] != 0 else { continue }
                    worst = max(worst, zip(e, a).map { abs($0 - $1) }.max() ?? 0)
                }
            }
            #expect(worst <= 1, "\(name): largest difference \(worst) levels")
        }
    }

    @Test("--strip converts to sRGB and writes no colour chunk at all")
    func strip() async throws {
        let bytes = try await Self.encode(
            try Self.source("adobe-rgb.jpg"), as: "png", options: ImageWriteOptions(profile: .strip))
        let written = try ImageSource(data: bytes, name: "out")
        #expect(written.info.color.isEmpty)
        let (mean, _) = ColorDifference.compare(
            try Self.reference("adobe-rgb.srgb.png"), try written.frame(at: 0).image)
        #expect(mean < 0.5)
    }

    @Test("--profile FILE converts to it and embeds it; GIF refuses a profile")
    func convertsToProfile() async throws {
        let adobe = ColorProfile(data: try Self.fixture("adobe-rgb.icc"))
        let source = try Self.source("p3.jpg")
        let bytes = try await Self.encode(source, as: "png", options: ImageWriteOptions(profile: .convert(adobe)))
        #expect(try ImageSource(data: bytes, name: "out").info.color.profile?.description == "Adobe RGB (1998)")
        let (mean, _) = ColorDifference.compare(try Self.reference("p3.srgb.png"), try Self.rendered(bytes))
        #expect(mean < 0.5)
        await #expect(throws: ImgToolError.self) {
            try await Self.encode(source, as: "gif", options: ImageWriteOptions(profile: .convert(adobe)))
        }
    }

    @Test("An untagged sRGB logo merged onto a Display P3 photo keeps its colours")
    func mergeConvertsOverlays() async throws {
        let folder = Self.folder
        let result = try await ImageMerger().merge(
            background: try ImageInput(folder + "/p3.jpg"), overlays: [try ImageInput(folder + "/logo-untagged.png")])
        let merged = StillImageSource(result.image, describedBy: result.backgroundInfo)
        #expect(merged.info.color.profile?.description == "Display P3")
        let bytes = try await Self.encode(merged, as: "png")
        let shown = try Self.rendered(bytes)
        let logo = try Self.reference("logo-untagged.png")
        // Centred: (48 - 16) / 2, (32 - 16) / 2.
        var worst = 0
        for y in 0..<16 {
            for x in 0..<16 where pixelSamples(logo, x, y)[3] == 255 {
                let difference =
                    zip(pixelSamples(logo, x, y).prefix(3), pixelSamples(shown, x + 16, y + 8).prefix(3))
                    .map { abs($0 - $1) }.max() ?? 0
                worst = max(worst, difference)
            }
        }
        #expect(worst <= 1, "the logo's opaque pixels differ by up to \(worst) levels once shown")
    }

    @Test("A damaged profile is a warning and the image reads as sRGB; the CMYK profile is applied")
    func damagedProfiles() throws {
        let broken = try Self.source("broken-profile.jpg")
        #expect(broken.info.warnings.contains { $0.contains("ICC profile cannot be used") })
        #expect(broken.info.color.profile?.isUsable == false && broken.info.color.effectiveProfile == nil)
        _ = try broken.frame(at: 0)
        for junk in [[UInt8](), [1, 2, 3, 4, 5, 6, 7], [UInt8](repeating: 0xFF, count: 400)] {
            #expect(!ColorProfile(data: junk).isUsable)
        }
        let truncated = ColorProfile(data: try Self.fixture("truncated.icc"))
        #expect(!truncated.isUsable)
        let cmyk = try Self.source("cmyk.jpg")
        #expect(cmyk.info.color.profile?.colorSpace == .cmyk && cmyk.info.color.effectiveProfile == nil)
    }

    @Test("EXIF: none by default; kept without GPS or thumbnail; GPS with keepWithGPS; orientation 1 once applied")
    func metadataChoices() async throws {
        let source = try Self.source("gps-exif.jpg")
        #expect(source.info.hasGPS && source.info.appliedOrientation != .up)
        for format in ["jpeg", "png", "webp"] {
            let plain = try ImageSource(data: try await Self.encode(source, as: format), name: "plain").info
            #expect(plain.exif == nil && !plain.hasGPS, "\(format)")
            let kept = try ImageSource(
                data: try await Self.encode(source, as: format, options: ImageWriteOptions(metadata: .keep)),
                name: "kept"
            ).info
            let keptOrientation = kept.exif.flatMap { EXIFBlock(app1OrTIFF: $0) }?.orientation
            #expect(kept.exif != nil && !kept.hasGPS && keptOrientation == 1, "\(format)")
            let withGPS = try ImageSource(
                data: try await Self.encode(source, as: format, options: ImageWriteOptions(metadata: .keepWithGPS)),
                name: "gps"
            ).info
            #expect(withGPS.hasGPS && withGPS.exif.flatMap { EXIFBlock(app1OrTIFF: $0) }?.orientation == 1, "\(format)")
            #expect(withGPS.width == source.info.width && withGPS.height == source.info.height)
        }
    }

    @Test("An RGB profile keeps a grey image out of grey storage (a grey PNG cannot carry it)")
    func grayPixelsWithRGBProfile() async throws {
        let p3 = ColorProfile(data: try Self.fixture("display-p3.icc"))
        var image = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(x * 30), UInt8(x * 30), 255] }
        image.metadata = ImageMetadata(format: .png, bitDepth: 8, colorType: .gray, color: ColorMetadata(profile: p3))
        let bytes = try await Self.encode(StillImageSource(image), as: "png")
        let info = try ImageSource(data: bytes, name: "out").info
        #expect(info.colorType != .gray && info.color.profile?.description == "Display P3", "\(info.colorType)")
    }

    @Test("resize --linear undoes the profile's own curve: a checkerboard in gamma 1.8 averages to 173.5")
    func linearResizeUsesProfileCurve() throws {
        let prophoto = ColorProfile(data: try Self.fixture("prophoto.icc"))
        var board = TestImages.make8(width: 8, height: 8) { x, y in
            (x + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }
        let size = PixelSize(width: 2, height: 2)
        let plain = try board.resized(to: size, filter: .box, linear: true)
        #expect(pixelSamples(plain, 0, 0)[0] == 188)  // sRGB's curve
        board.metadata = ImageMetadata(
            format: .png, bitDepth: 8, colorType: .rgb, color: ColorMetadata(profile: prophoto))
        let source = try ResizedFrameSource(
            StillImageSource(board), geometry: ResizeGeometry(whole: size), filter: .box, linear: true)
        let value = pixelSamples(try source.frame(at: 0).image, 0, 0)[0]
        #expect((173...174).contains(value), "got \(value); 255 * 0.5^(1/1.8) = 173.5")
    }

    @Test("A profile that is sRGB in all but its bytes converts as sRGB: no change, and the bytes are kept")
    func sRGBEquivalentProfiles() async throws {
        #expect(ColorProfile.sRGB.isSRGB && ColorProfile.sRGB.description == "sRGB IEC61966-2.1")
        #expect(!ColorProfile(data: try Self.fixture("display-p3.icc")).isSRGB)
        #expect(!ColorProfile(data: try Self.fixture("adobe-rgb.icc")).isSRGB)
        let image = TestImages.noise8(width: 32, height: 16, seed: 7)
        #expect(try image.convertingColors(from: .sRGB, to: nil) == image)
        var tagged = image
        tagged.metadata = ImageMetadata(
            format: .png, bitDepth: 8, colorType: .rgba, color: ColorMetadata(profile: .sRGB))
        let source = StillImageSource(tagged)
        #expect(source.convertedToSRGB() is StillImageSource)  // nothing to do
        let bytes = try await Self.encode(source, as: "png")
        let written = try ImageSource(data: bytes, name: "out")
        #expect(written.info.color.profile?.data == ColorProfile.sRGB.data)
        #expect(firstDifference(image, try written.frame(at: 0).image) == nil)
    }

    @Test("A profile whose description is no valid PNG keyword is still carried (the iCCP name is cleaned)")
    func iccpKeyword() async throws {
        let odd = try #require(
            ColorProfile.rgb(
                white: (0.3127, 0.329), red: (0.68, 0.32), green: (0.265, 0.69), blue: (0.15, 0.06), gamma: 2.2,
                description: "  Odd   profile \u{e9}name  "))
        #expect(Array(try PNGEncoder.iccp(odd).prefix(16)) == Array("Odd profile name".utf8))
        var image = TestImages.noise8(width: 8, height: 8, seed: 3)
        image.metadata = ImageMetadata(format: .png, bitDepth: 8, colorType: .rgba, color: ColorMetadata(profile: odd))
        let bytes = try await Self.encode(StillImageSource(image), as: "png")
        #expect(try ImageSource(data: bytes, name: "odd.png").info.color.profile?.data == odd.data)
    }
}
