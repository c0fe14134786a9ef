import Foundation
import ImgToolKit
import TestSupport
import Testing

/// End-to-end runs of the colour and metadata options.
/// Serialized: each run blocks a thread of the cooperative pool (two on this machine) while its
/// process runs, and nine at once starved other suites' tasks in a full `swift test`.
@Suite("imgtool colour options (end to end)", .serialized, .timeLimit(.minutes(5)))
struct ColorCLITests {
    static let fixtures =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/color").path

    @Test("info names the profile and the metadata; --json has icc, xmp and gps")
    func info() throws {
        let run = try CLIRunner.run(["info", Self.fixtures + "/p3.jpg", Self.fixtures + "/gps-exif.jpg", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.lines[0].contains(
                #""icc":{"bytes":2644,"color_space":"RGB","description":"Display P3","usable":true}"#))
        #expect(run.lines[0].contains(#""gps":false"#) && run.lines[1].contains(#""gps":true"#))
        #expect(run.lines[1].contains(#""icc":null"#) && run.lines[1].contains(#""exif":{"#))
        let text = try CLIRunner.run(["info", Self.fixtures + "/adobe-rgb.jpg"])
        #expect(text.stdout.contains("colour ICC Adobe RGB (1998) (RGB)"), "\(text.stdout)")
    }

    @Test("--profile, --strip and --keep-gps: usage errors exit 64 and write nothing")
    func usageErrors() throws {
        let folder = try makeTemporaryFolder("color-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.fixtures + "/p3.jpg"
        for arguments in [
            ["--profile", "missing.icc"], ["--profile", Self.fixtures + "/broken-7.icc"],
            ["--profile", Self.fixtures + "/gray-22.icc"], ["--strip", "--keep-metadata"],
            ["--strip", "--profile", "srgb"],
        ] {
            let run = try CLIRunner.run(["convert", input, "out.png"] + arguments, in: folder)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"), "\(arguments)")
        }
        let gif = try CLIRunner.run(
            ["convert", input, "out.gif", "--profile", Self.fixtures + "/adobe-rgb.icc"], in: folder)
        #expect(gif.status == 1 && gif.stderr.contains("GIF cannot carry a colour profile"), "\(gif.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.gif"))
    }

    @Test("convert keeps the profile, --profile srgb converts, --keep-gps keeps the position")
    func writes() throws {
        let folder = try makeTemporaryFolder("color-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try CLIRunner.run(["convert", Self.fixtures + "/p3.jpg", "keep.webp"], in: folder).status == 0)
        #expect(try ImageSource(contentsOf: folder + "/keep.webp").info.color.profile?.description == "Display P3")
        #expect(
            try CLIRunner.run(["convert", Self.fixtures + "/p3.jpg", "srgb.png", "--profile", "srgb"], in: folder)
                .status == 0)
        let srgb = try ImageSource(contentsOf: folder + "/srgb.png").info.color
        #expect(srgb.profile == nil && srgb.hasSRGB)
        #expect(
            try CLIRunner.run(["convert", Self.fixtures + "/gps-exif.jpg", "gps.jpg", "--keep-gps"], in: folder)
                .status == 0)
        let gps = try ImageSource(contentsOf: folder + "/gps.jpg").info
        #expect(gps.hasGPS && gps.exifOrientation == 1)
        #expect(try CLIRunner.run(["convert", Self.fixtures + "/gps-exif.jpg", "plain.jpg"], in: folder).status == 0)
        #expect(try ImageSource(contentsOf: folder + "/plain.jpg").info.exif == nil)
    }

    @Test(
        "JPEG to JPEG XL: no GPS by default, in the file or in the JPEG it gives back; --keep-gps gives the JPEG back whole"
    )
    func jpegXLMetadata() throws {
        let folder = try makeTemporaryFolder("color-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.fixtures + "/gps-exif.jpg"
        #expect(try CLIRunner.run(["convert", input, "plain.jxl"], in: folder).status == 0)
        #expect(
            try CLIRunner.run(["convert", input, "all.jxl", "--keep-metadata", "--keep-gps"], in: folder).status == 0)
        let json = try CLIRunner.run(["info", "plain.jxl", "all.jxl", "--json"], in: folder)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.lines[0].contains(#""gps":false"#) && json.lines[1].contains(#""gps":true"#), "\(json.stdout)")
        // The EXIF summary of the file's Exif box: an object, with the GPS position in it.
        #expect(json.lines[1].contains(#""exif":{"#) && json.lines[1].contains(#""orientation":6"#), "\(json.stdout)")
        #expect(json.lines[1].contains(#""gps_latitude":"#), "\(json.stdout)")
        let text = try CLIRunner.run(["info", "all.jxl"], in: folder)
        #expect(text.stdout.contains("metadata EXIF GPS position"), "\(text.stdout)")
        // Back to JPEG: the file libjxl rebuilds, its metadata as the options say.
        #expect(try CLIRunner.run(["convert", "plain.jxl", "plain.jpg"], in: folder).status == 0)
        #expect(try CLIRunner.run(["convert", "all.jxl", "all.jpg", "--keep-gps"], in: folder).status == 0)
        #expect(try !ImageSource(contentsOf: folder + "/plain.jpg").info.hasGPS)
        #expect(
            FileManager.default.contents(atPath: folder + "/all.jpg") == FileManager.default.contents(atPath: input))
    }
}
