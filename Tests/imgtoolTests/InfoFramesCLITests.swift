import Foundation
import ImgToolKit
import TestSupport
import Testing

@Suite("imgtool info and frames, end to end", .timeLimit(.minutes(5)))
struct InfoFramesCLITests {
    @Test("info prints one line per file; --json one sorted object per file")
    func info() throws {
        let folder = try makeTemporaryFolder()
        try writeTestPNG(TestImages.gradient(width: 12, height: 7), to: folder + "/g.png")
        let text = try CLIRunner.run(["info", "g.png"], in: folder)
        #expect(text.status == 0)
        #expect(text.stdout == "g.png: PNG 12x7, palette 8-bit, 1 frame\n")  // 84 colours: the encoder stores a palette

        let json = try CLIRunner.run(["info", "--json", "g.png", "g.png"], in: folder)
        #expect(json.status == 0)
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines[0].hasPrefix(
                #"{"bit_depth":8,"color_type":"palette","complete":true,"compression":null,"delays_ms":[0],"#))
        #expect(lines[0].contains(#""exif":null,"file":"g.png","file_size":516,"format":"png","#))
        #expect(
            lines[0].contains(
                #""gps":false,"height":7,"icc":null,"iccp":false,"interlaced":false,"loop_count":null,"orientation":null,"orientation_applied":false,"plays":1,"srgb":false,"stored_height":7,"stored_width":12,"warnings":[],"width":12,"xmp":false,"xmp_problem":null}"#
            ))
    }

    @Test("a bad input among good ones is named on stderr and the exit status is 1")
    func infoErrors() throws {
        let folder = try makeTemporaryFolder()
        try writeTestPNG(TestImages.gradient(width: 2, height: 2), to: folder + "/ok.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/bad.png"))
        let result = try CLIRunner.run(["info", "ok.png", "missing.png", "bad.png"], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout == "ok.png: PNG 2x2, palette 2-bit, 1 frame\n")
        #expect(
            result.stderr == """
                error: missing.png: no such file
                error: bad.png: not a PNG, GIF, JPEG, WebP, AVIF, JPEG XL, HEIF, MP4 or WebM file (starts with bytes 6e 6f 74 20 61 6e 20 69)

                """)
    }

    @Test("usage errors exit with 64")
    func usage() throws {
        #expect(try CLIRunner.run(["info", "--bogus", "x.png"]).status == 64)
        #expect(try CLIRunner.run(["frames", "x.png", "-o", "d", "--depth", "12"]).status == 64)
        #expect(try CLIRunner.run(["nonsense"]).status == 64)
        let help = try CLIRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("info"))
        #expect(help.stdout.contains("frames"))
        #expect(help.stdout.contains("64 for a usage error"))
    }

    @Test("frames writes frame-0000.png that decodes to the input")
    func frames() throws {
        let folder = try makeTemporaryFolder()
        let image = TestImages.gradient(width: 9, height: 5)
        try writeTestPNG(image, to: folder + "/g.png")
        let result = try CLIRunner.run(["frames", "g.png", "-o", "out/nested"], in: folder)
        #expect(result.status == 1)  // nested folders are not created: the parent must exist
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"))

        let ok = try CLIRunner.run(["frames", "g.png", "-o", "out"], in: folder)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out") == ["frame-0000.png"])
        let written = try ImageSource(contentsOf: folder + "/out/frame-0000.png").frame(at: 0).image
        #expect(written == image)
    }

    @Test("frames of a 16-bit file keep 16 bits only with --depth 16")
    func framesDepth() throws {
        let folder = try makeTemporaryFolder()
        var samples: [UInt16] = []
        for i in 0..<16 { samples += [UInt16(i * 4000 + 1), 2, 3, 65535] }
        let image = PixelBuffer(width: 4, height: 4, rgba16: samples)
        try writeTestPNG(image, to: folder + "/deep.png")
        #expect(try CLIRunner.run(["frames", "deep.png", "-o", "d8"], in: folder).status == 0)
        #expect(try CLIRunner.run(["frames", "deep.png", "-o", "d16", "--depth", "16"], in: folder).status == 0)
        let eight = try ImageSource(contentsOf: folder + "/d8/frame-0000.png")
        let sixteen = try ImageSource(contentsOf: folder + "/d16/frame-0000.png")
        #expect(eight.info.bitDepth < 16)
        #expect(sixteen.info.bitDepth == 16)
        #expect(try sixteen.frame(at: 0).image == image)
        #expect(try eight.frame(at: 0).image == image.converted(to: .eight))
    }

    @Test("a rejected input writes nothing and leaves no empty folder")
    func framesRejected() throws {
        let folder = try makeTemporaryFolder()
        var bytes = try PNGEncoder().encode(TestImages.gradient(width: 30, height: 30))
        bytes[bytes.count - 20] ^= 0x55  // inside the IDAT data: its CRC no longer matches
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/broken.png"))
        let result = try CLIRunner.run(["frames", "broken.png", "-o", "out"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: broken.png: corrupt PNG: IDAT: "))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
    }
}
