import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `--quality` and `--lossless` for the formats that store pixels either way (issue 41): a quality
/// given means lossy for WebP, AVIF and JPEG XL alike, from a lossless input too; without one a
/// lossless input stays lossless; `--lossless` wins over a quality; a batch job line does the
/// same as the command.
@Suite("--quality and --lossless (end to end)", .serialized, .timeLimit(.minutes(5)))
struct QualityLosslessCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardized.path

    /// A 200x120 PNG (the AVIF fixtures' gradient, enlarged) in a new folder.
    static func input() throws -> (folder: String, png: String) {
        let folder = try makeTemporaryFolder("quality")
        let png = folder + "/in.png"
        let made = try CLIRunner.run(["convert", fixtures + "/avif/gradient.png", png, "--resize", "200"])
        #expect(made.status == 0, "\(made.stderr)")
        return (folder, png)
    }

    /// The chunk names of a WebP file, in order (inside `RIFF`/`WEBP`).
    static func webpChunks(_ path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var chunks: [String] = []
        var at = 12
        while at + 8 <= bytes.count {
            chunks.append(String(decoding: bytes[at..<at + 4], as: UTF8.self))
            let size =
                Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            at += 8 + size + size % 2
        }
        return chunks
    }

    /// The first frame of the image at `path`.
    static func pixels(_ path: String) throws -> PixelBuffer {
        let source = try ImageSource(contentsOf: path)
        let reader = try source.makeFrameReader(depth: .eight)
        guard let frame = try reader.nextFrame() else { throw ImgToolError(.corrupt, "\(path): no frame") }
        return frame.image
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// Converts `png` to `name` in `folder` with `options`; the output's path.
    static func convert(_ png: String, _ folder: String, _ name: String, _ options: [String]) throws -> String {
        let output = folder + "/" + name
        let result = try CLIRunner.run(["convert", png, output] + options)
        #expect(result.status == 0, "\(name) \(options): \(result.stderr)")
        return output
    }

    @Test("WebP: --quality 50 writes VP8 (lossy); nothing, or --lossless with it, writes VP8L; a batch line agrees")
    func webp() throws {
        let (folder, png) = try Self.input()
        let lossy = try Self.convert(png, folder, "q50.webp", ["--quality", "50"])
        #expect(try Self.webpChunks(lossy).contains("VP8 "))
        #expect(try !Self.webpChunks(lossy).contains("VP8L"))
        let plain = try Self.convert(png, folder, "plain.webp", [])
        #expect(try Self.webpChunks(plain).contains("VP8L"))
        #expect(try firstDifference(Self.pixels(png), Self.pixels(plain)) == nil)
        let both = try Self.convert(png, folder, "both.webp", ["--lossless", "--quality", "50"])
        #expect(try Self.webpChunks(both).contains("VP8L"))
        #expect(try firstDifference(Self.pixels(png), Self.pixels(both)) == nil)

        // The same words as a batch job line.
        let job = BatchCLITests.line("q50", ["convert", png, folder + "/batch.webp", "--quality", "50"])
        try Data(job.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let batch = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try Self.webpChunks(folder + "/batch.webp") == Self.webpChunks(lossy))
        #expect(try Self.size(folder + "/batch.webp") == Self.size(lossy))
    }

    @Test("AVIF and JPEG XL: --quality 50 is lossy (smaller, not exact); --lossless with it is exact")
    func avifAndJXL() throws {
        let (folder, png) = try Self.input()
        let source = try Self.pixels(png)
        for format in ["avif", "jxl"] {
            let plain = try Self.convert(png, folder, "plain.\(format)", [])
            let lossy = try Self.convert(png, folder, "q50.\(format)", ["--quality", "50"])
            let both = try Self.convert(png, folder, "both.\(format)", ["--lossless", "--quality", "50"])
            #expect(try firstDifference(source, Self.pixels(plain)) == nil, "\(format) without options is lossless")
            #expect(try firstDifference(source, Self.pixels(lossy)) != nil, "\(format) --quality 50 is lossy")
            #expect(try Self.size(lossy) < Self.size(plain), "\(format) --quality 50 is smaller than lossless")
            #expect(try firstDifference(source, Self.pixels(both)) == nil, "\(format) --lossless wins")
        }
    }
}
