import Foundation
import ImgToolKit
import TestSupport
import Testing

/// AVIF, JPEG XL and HEIC from the command line: every command gets them through the codec
/// registry, a JPEG goes to JPEG XL and back byte for byte, and a machine without libheif says
/// what to install.
@Suite("AVIF, JPEG XL and HEIC (end to end)", .serialized, .timeLimit(.minutes(5)))
struct ModernFormatsCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardized.path

    @Test("a JPEG converted to JPEG XL and back is the same file; info reads AVIF and JPEG XL")
    func jpegThroughJXL() throws {
        let folder = try makeTemporaryFolder("modern")
        let photo = folder + "/photo.jpg"
        #expect(
            try CLIRunner.run(["convert", Self.fixtures + "/avif/gradient.png", photo, "--resize", "400"]).status == 0)
        #expect(try CLIRunner.run(["convert", photo, folder + "/photo.jxl"]).status == 0)
        #expect(try CLIRunner.run(["convert", folder + "/photo.jxl", folder + "/back.jpg"]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: photo))
        let back = try Data(contentsOf: URL(fileURLWithPath: folder + "/back.jpg"))
        #expect(original == back)
        let jxlSize = try FileManager.default.attributesOfItem(atPath: folder + "/photo.jxl")[.size] as? Int
        #expect((jxlSize ?? .max) < original.count)

        let info = try CLIRunner.run(["info", Self.fixtures + "/avif/sequence.avifs", folder + "/photo.jxl"])
        #expect(info.status == 0)
        #expect(info.stdout.contains("AVIF 16x12") && info.stdout.contains("4 frames"))
        #expect(info.stdout.contains("JXL 400x240"))
    }

    @Test("operations and animation frames work on AVIF like on any format")
    func operationsOnAVIF() throws {
        let folder = try makeTemporaryFolder("modern")
        let result = try CLIRunner.run([
            "convert", Self.fixtures + "/avif/sequence.avifs", folder + "/out.avif", "--rotate", "90", "--reverse",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try CLIRunner.run(["info", "--json", folder + "/out.avif"])
        #expect(info.stdout.contains("\"width\":12") && info.stdout.contains("\"frames\":4"))
        let frames = try CLIRunner.run(["frames", Self.fixtures + "/avif/sequence.avifs", "-o", folder])
        #expect(frames.status == 0, "\(frames.stderr)")
    }

    @Test("without libheif, a HEIC fails with one line naming the input and the package; formats says so")
    func heicWithoutLibheif() throws {
        let heic = Self.fixtures + "/heif/photo.heic"
        let missing = "IMGTOOL_LIBHEIF=/nonexistent/libheif.so.1"
        let result = try CLIRunner.run(program: "/usr/bin/env", [missing, CLIRunner.executable.path, "info", heic])
        #expect(result.status == 1)
        #expect(result.stderr.contains(heic) && result.stderr.contains("apt-get install libheif1"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let formats = try CLIRunner.run(
            program: "/usr/bin/env", [missing, CLIRunner.executable.path, "formats", "--json"])
        let heif = formats.lines.first { $0.contains("\"format\":\"heif\"") } ?? ""
        #expect(heif.contains("\"available\":false") && heif.contains("libheif1"))
    }
    @Test(
        "without libavif or libjxl, reading and writing fail with one line naming the file and the package, writing nothing; formats says so",
        arguments: [
            ("IMGTOOL_LIBAVIF", "avif", "/avif/sequence.avifs", "libavif15"),
            ("IMGTOOL_LIBJXL", "jxl", nil, "libjxl0.7"),
        ] as [(String, String, String?, String)])
    func withoutLazyLibrary(variable: String, format: String, fixture: String?, package: String) throws {
        let folder = try makeTemporaryFolder("modern")
        let missing = "\(variable)=/nonexistent/lib\(format).so"
        let run = { (arguments: [String]) in
            try CLIRunner.run(program: "/usr/bin/env", [missing, CLIRunner.executable.path] + arguments)
        }
        // Reading: an existing file of that format (for JPEG XL, one written with the library).
        var input = fixture.map { Self.fixtures + $0 } ?? ""
        if fixture == nil {
            input = folder + "/in.jxl"
            #expect(try CLIRunner.run(["convert", Self.fixtures + "/avif/gradient.png", input]).status == 0)
        }
        let info = try run(["info", input])
        #expect(info.status == 1)
        #expect(info.stderr.contains(input) && info.stderr.contains("apt-get install \(package)"), "\(info.stderr)")
        #expect(info.stderr.split(separator: "\n").count == 1)
        // Writing: nothing is left behind.
        let output = folder + "/out.\(format)"
        let convert = try run(["convert", Self.fixtures + "/avif/gradient.png", output])
        #expect(convert.status == 1)
        #expect(convert.stderr.contains(output) && convert.stderr.contains("apt-get install \(package)"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.contains("out") })
        let formats = try run(["formats", "--json"])
        let row = formats.lines.first { $0.contains("\"format\":\"\(format)\"") } ?? ""
        #expect(row.contains("\"available\":false") && row.contains(package))
    }
}
