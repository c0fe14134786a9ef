import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// ffprobe, installed with ffmpeg.
private let ffprobePath = "/usr/bin/ffprobe"

/// WebM output (VP9 through libvpx, imgtool's own muxer), read back by ffprobe and ffmpeg (CI
/// installs ffmpeg, see .ci/run) and by imgtool's own WebM reader: frame count, duration, size,
/// timestamps from the delays, pixels within a stated PSNR of the source's, alpha, odd sizes, the
/// quality mapping, and the sizes the muxer patches in place.
@Suite(
    "WebM writer", .enabled(if: VideoClips.ffmpeg != nil && FileManager.default.isExecutableFile(atPath: ffprobePath)),
    .serialized, .timeLimit(.minutes(5)))
struct WebMWriterTests {
    static let ffprobe = ffprobePath

    /// Frames held in memory.
    struct Frames: FrameSource {
        var info: ImageInfo
        let images: [PixelBuffer]

        init(_ images: [PixelBuffer], delaysMs: [Int], format: ImageFormat = .gif, playTimes: Bool = false) {
            let (width, height) = (images[0].width, images[0].height)
            let frames = delaysMs.enumerated().map { index, delay in
                FrameInfo(
                    index: index, delay: .milliseconds(delay),
                    region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none, blend: .source)
            }
            info = ImageInfo(
                format: format, width: width, height: height, bitDepth: 8, colorType: .rgba, frames: frames,
                loopValue: 0, plays: 0)
            info.delaysArePlayTimes = playTimes
            self.images = images
        }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            Reader(source: self)
        }

        final class Reader: FrameReader {
            let source: Frames
            var next = 0
            init(source: Frames) { self.source = source }
            func nextFrame() throws(ImgToolError) -> Frame? {
                guard next < source.images.count else { return nil }
                defer { next += 1 }
                return Frame(info: source.info.frames[next], image: source.images[next])
            }
        }
    }

    /// A screencast-like frame: a light window with dark text lines, a coloured button and a
    /// pointer that moves with `step`; `alpha` for the pixels outside the window.
    static func screen(width: Int = 64, height: Int = 48, step: Int, alpha: UInt8 = 255) -> PixelBuffer {
        TestImages.make8(width: width, height: height) { x, y in
            let inside = x >= 2 && y >= 2 && x < width - 2 && y < height - 2
            if !inside { return [40, 40, 60, alpha] }
            if (x - 8 - 3 * step) * (x - 8 - 3 * step) + (y - 24) * (y - 24) < 16 { return [200, 30, 30, 255] }
            if y >= 6 && y < 30 && (y / 3) % 2 == 0 && x >= 6 && x < 6 + (x * 7 + y * 3) % 40 {
                return [30, 30, 30, 255]
            }
            if y >= 36 && y < 44 && x >= 40 && x < 58 { return [30, 110, 220, 255] }
            return [245, 245, 240, 255]
        }
    }

    /// Runs ffprobe on `path` and returns its `key=value` lines as a dictionary.
    static func probe(_ path: String) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=codec_name,width,height,nb_read_frames,pix_fmt,color_space,color_range:stream_tags=alpha_mode:format=duration",
            "-of", "default=nw=1", path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0].replacingOccurrences(of: "TAG:", with: "")] = parts[1] }
        }
        return values
    }

    /// The frames' presentation times in milliseconds, as ffprobe reads them.
    static func times(_ path: String) throws -> [Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "error", "-show_entries", "frame=pts", "-of", "csv=p=0", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // A frame with side data (x264's SEI) prints more fields after a comma.
        return text.split(separator: "\n").compactMap { line in
            line.split(separator: ",").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// ffmpeg's decode of `path` to RGBA frames, one per frame stored (no frame repeated to a
    /// constant rate); `decoder` picks the decoder (`libvpx-vp9` reads alpha).
    static func decode(_ path: String, width: Int, height: Int, decoder: String? = nil) throws -> [[UInt8]] {
        let input = decoder.map { ["-c:v", $0] } ?? []
        let bytes = try VideoClips.run(
            input + ["-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let size = width * height * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    }

    /// The PSNR in dB of the colour samples (not alpha) of `actual` against `expected`.
    static func psnr(_ expected: [[UInt8]], _ actual: [[UInt8]]) -> Double {
        var squares = 0.0
        var count = 0
        for (one, two) in zip(expected, actual) {
            for index in one.indices where index % 4 != 3 {
                let difference = Double(one[index]) - Double(two[index])
                squares += difference * difference
                count += 1
            }
        }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count)))
    }

    static func write(
        _ source: any FrameSource, to folder: String, name: String = "out.webm", options: ImageWriteOptions = .init()
    ) async throws -> String {
        let path = folder + "/" + name
        let bytes = try await WebMCodec().encode(source, options: options)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("A GIF made here to WebM: ffprobe reads VP9, 8 frames, the duration and timestamps from the delays")
    func gifToWebM() async throws {
        let folder = try makeTemporaryFolder("webm")
        let delays = [100, 50, 200, 100, 70, 130, 100, 250]
        let images = (0..<8).map { Self.screen(step: $0) }
        let gif = try await GIFCodec().encode(Frames(images, delaysMs: delays))
        let source = try ImageSource(data: gif, name: "screen.gif")
        let path = try await Self.write(source, to: folder)
        let probed = try Self.probe(path)
        #expect(probed["codec_name"] == "vp9" && probed["width"] == "64" && probed["height"] == "48")
        #expect(probed["nb_read_frames"] == "8" && probed["pix_fmt"] == "yuv420p")
        #expect(probed["color_space"] == "bt709" && probed["color_range"] == "tv")
        #expect(probed["duration"] == "1.000000", "\(probed)")
        #expect(try Self.times(path) == [0, 100, 150, 350, 450, 520, 650, 750])

        // The GIF's own frames (as imgtool reads them) against ffmpeg's decode of the WebM.
        var expected: [[UInt8]] = []
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() { expected.append(frame.image.rgba8 ?? []) }
        let decoded = try Self.decode(path, width: 64, height: 48)
        #expect(decoded.count == 8)
        // Measured 35.6 dB at the default quality (60, cq 25): 1-pixel text lines and red on white
        // lose colour to 4:2:0.
        #expect(Self.psnr(expected, decoded) >= 33, "\(Self.psnr(expected, decoded))")

        // imgtool's own WebM reader: the same frames and delays (measured 35.8 dB).
        if WebMCodec().isAvailable {
            let (info, frames) = try VideoCodecTests.frames(path)
            #expect(info.format == .webm && info.frameCount == 8 && info.width == 64 && info.height == 48)
            #expect(info.frames.map(\.delay) == delays.map { .milliseconds($0) })
            #expect(
                Self.psnr(expected, frames.map { $0.image.rgba8 ?? [] }) >= 33,
                "\(Self.psnr(expected, frames.map { $0.image.rgba8 ?? [] }))")
        }
    }

    @Test("A still is one frame of 100 ms; an odd size is padded to even with the last column and row repeated")
    func stillAndOddSize() async throws {
        let folder = try makeTemporaryFolder("webm")
        let still = Frames([Self.screen(width: 33, height: 25, step: 1)], delaysMs: [0], format: .png)
        let path = try await Self.write(still, to: folder)
        let probed = try Self.probe(path)
        #expect(probed["nb_read_frames"] == "1" && probed["duration"] == "0.100000", "\(probed)")
        #expect(probed["width"] == "34" && probed["height"] == "26")
        let frame = try Self.decode(path, width: 34, height: 26)[0]
        /// The pixel at (x, y), RGB.
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(frame[(y * 34 + x) * 4 + $0]) } }
        // The padding repeats the border (40, 40, 60) of the picture: within the codec's error.
        for (x, y) in [(33, 0), (33, 12), (10, 25), (33, 25)] {
            #expect(zip(pixel(x, y), [40, 40, 60]).allSatisfy { abs($0 - $1) <= 6 }, "\(x),\(y): \(pixel(x, y))")
        }
    }

    @Test("Frames with transparency: alpha mode 1, the alpha plane read back by ffmpeg and by imgtool")
    func alpha() async throws {
        let folder = try makeTemporaryFolder("webm")
        let images = (0..<4).map { Self.screen(step: $0, alpha: $0 == 0 ? 255 : 0) }
        let path = try await Self.write(Frames(images, delaysMs: [100, 100, 100, 100]), to: folder)
        #expect(try Self.probe(path)["alpha_mode"] == "1")
        let decoded = try Self.decode(path, width: 64, height: 48, decoder: "libvpx-vp9")
        #expect(decoded.count == 4)
        /// The alpha at (x, y) of frame `index`.
        func alpha(_ frame: [UInt8], _ x: Int, _ y: Int) -> Int { Int(frame[(y * 64 + x) * 4 + 3]) }
        #expect(alpha(decoded[0], 0, 0) >= 250 && alpha(decoded[2], 0, 0) <= 5 && alpha(decoded[2], 30, 20) >= 250)
        if WebMCodec().isAvailable {
            let (info, frames) = try VideoCodecTests.frames(path)
            #expect(info.colorType == .rgba && frames.count == 4)
            let read = frames.map { $0.image.rgba8 ?? [] }
            #expect(alpha(read[0], 0, 0) >= 250 && alpha(read[3], 1, 40) <= 5 && alpha(read[3], 30, 20) >= 250)
        }
        // Opaque frames of a source that cannot say so carry no alpha.
        let opaque = try await Self.write(
            Frames(images.prefix(1).map { $0 }, delaysMs: [100]), to: folder, name: "o.webm")
        #expect(try Self.probe(opaque)["alpha_mode"] == nil)
        // A background flattens.
        let flat = try await Self.write(
            Frames(images, delaysMs: [100, 100, 100, 100]), to: folder, name: "f.webm",
            options: ImageWriteOptions(background: .white))
        #expect(try Self.probe(flat)["alpha_mode"] == nil)
    }

    /// As ``MP4WriterTests/colourChartRoundTrip()``, through VP9 (the same conversion to BT.709
    /// limited-range 4:2:0): measured 1 level at worst.
    @Test("A colour chart comes back from imgtool's reader within 6 levels: BT.709, limited range, chroma in place")
    func colourChartRoundTrip() async throws {
        let folder = try makeTemporaryFolder("webm")
        let chart = MP4WriterTests.colourChart()
        let source = Frames([chart, chart], delaysMs: [100, 100])
        let path = try await Self.write(source, to: folder, options: ImageWriteOptions(quality: 90))
        let (_, frames) = try VideoCodecTests.frames(path)
        #expect(frames.count == 2)
        for frame in frames {
            let error = MP4WriterTests.chartError(frame.image.rgba8 ?? [])
            #expect(error <= 6, "largest difference \(error)")
        }
    }

    @Test("Higher quality, larger file; lossless gives every sample back, to ffmpeg and to imgtool's reader")
    func qualityAndLossless() async throws {
        let folder = try makeTemporaryFolder("webm")
        let images = (0..<4).map { Self.screen(step: $0) }
        let source = Frames(images, delaysMs: [100, 100, 100, 100], playTimes: true)
        var sizes: [Int] = []
        for quality in [10, 40, 70, 95] {
            sizes.append(try await WebMCodec().encode(source, options: ImageWriteOptions(quality: quality)).count)
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 4, "\(sizes)")
        #expect(WebMWriter.cqLevel(forQuality: 60) == 25 && WebMWriter.cqLevel(forQuality: 100) == 0)
        #expect(WebMWriter.cqLevel(forQuality: 0) == 63 && WebMWriter.cpuUsed(forLevel: 4) == 5)
        let path = try await Self.write(source, to: folder, options: ImageWriteOptions(lossless: true))
        #expect(try Self.probe(path)["pix_fmt"] == "gbrp")
        let decoded = try Self.decode(path, width: 64, height: 48)
        #expect(Self.psnr(images.map { $0.rgba8 ?? [] }, decoded) == .infinity)
        if WebMCodec().isAvailable {
            // imgtool's reader copies the RGB planes (GBRP) as they are.
            let (_, frames) = try VideoCodecTests.frames(path)
            #expect(frames.map { $0.image.rgba8 ?? [] } == images.map { $0.rgba8 ?? [] })
        }
        await #expect(throws: ImgToolError.self) {
            _ = try await WebMCodec().encode(source, options: ImageWriteOptions(quality: 101))
        }
    }

    @Test("The muxer's patched sizes: the segment spans the file, the SeekHead points at the Cues")
    func patchedSizes() async throws {
        let images = (0..<3).map { Self.screen(step: $0) }
        let bytes = try await WebMCodec().encode(Frames(images, delaysMs: [100, 100, 100]))
        /// An EBML variable-length number at `at`: its value and length.
        func number(_ at: Int, keepMarker: Bool = false) -> (value: Int, length: Int) {
            let length = bytes[at].leadingZeroBitCount + 1
            var value = keepMarker ? Int(bytes[at]) : Int(bytes[at]) & (0xFF >> length)
            for index in 1..<length { value = value << 8 | Int(bytes[at + index]) }
            return (value, length)
        }
        let header = number(4)
        var at = 4 + header.length + header.value
        #expect(number(at, keepMarker: true).value == 0x1853_8067)
        let size = number(at + 4)
        let segmentStart = at + 4 + size.length
        #expect(segmentStart + size.value == bytes.count)
        at = segmentStart
        #expect(number(at, keepMarker: true).value == 0x114D_9B74)
        // The last Seek names the Cues; its position is the last 8 bytes of the SeekHead.
        let seekHeadEnd = at + 4 + number(at + 4).length + number(at + 4).value
        let cuesPosition = bytes[seekHeadEnd - 8..<seekHeadEnd].reduce(0) { $0 << 8 | Int($1) }
        #expect(number(segmentStart + cuesPosition, keepMarker: true).value == 0x1C53_BB6B)
    }
}
