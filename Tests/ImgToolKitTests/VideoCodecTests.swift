import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Video input through libavformat and libavcodec, loaded at run time, on clips that ffmpeg makes
/// here (64x48, 10 frames). The frames are compared with ffmpeg's own decode of the same clip to
/// RGBA with the colour matrix and range named explicitly: the same libavcodec, so differences
/// come from the colour conversion (and its rounding) only, and the other matrix must fail.
@Suite(
    "Video codec", .enabled(if: MP4Codec().isAvailable && VideoClips.ffmpeg != nil), .serialized,
    .timeLimit(.minutes(5)))
struct VideoCodecTests {
    static let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]

    /// The mean and largest difference of the colour samples over all frames, and the largest of
    /// alpha.
    static func difference(_ frames: [Frame], _ reference: [[UInt8]]) -> (mean: Double, worst: Int, alpha: Int) {
        var total = 0
        var count = 0
        var worst = 0
        var alpha = 0
        for (frame, expected) in zip(frames, reference) {
            guard let actual = frame.image.rgba8, actual.count == expected.count else { return (.infinity, .max, .max) }
            for index in actual.indices {
                let difference = abs(Int(actual[index]) - Int(expected[index]))
                if index % 4 == 3 {
                    alpha = max(alpha, difference)
                    continue
                }
                total += difference
                count += 1
                worst = max(worst, difference)
            }
        }
        return (count == 0 ? .infinity : Double(total) / Double(count), worst, alpha)
    }

    static func frames(_ path: String, limits: DecodingLimits = .default) throws -> (ImageInfo, [Frame]) {
        let source = try ImageSource(contentsOf: path, limits: limits)
        let reader = try source.makeFrameReader(depth: .eight)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return (source.info, frames)
    }

    /// `first` is a filter ffmpeg applies before the conversion: `format=yuv420p` for 10-bit
    /// samples, which libswscale would otherwise convert on its scaling path, interpolating the
    /// chroma (imgtool, like libswscale's 8-bit path, takes each chroma sample for its 2x2 pixels).
    ///
    /// Within 1 on average and 4 at worst of ffmpeg's decode with the right matrix and range
    /// (libswscale rounds its tables differently: measured 0.8 and 3), and at least 3 on average
    /// and 15 at worst from its decode with the wrong matrix (measured 4 to 4.8, and 22 to 42).
    static func expectColours(
        _ path: String, frames: [Frame], matrix: String, wrongMatrix: String, range: String, first: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (width, height) = (frames[0].image.width, frames[0].image.height)
        let right = try VideoClips.decode(
            path, width: width, height: height, filters: first + "scale=in_color_matrix=\(matrix):in_range=\(range)")
        let wrong = try VideoClips.decode(
            path, width: width, height: height,
            filters: first + "scale=in_color_matrix=\(wrongMatrix):in_range=\(range)")
        #expect(right.count == frames.count, sourceLocation: sourceLocation)
        let near = difference(frames, right)
        let far = difference(frames, wrong)
        #expect(near.mean <= 1 && near.worst <= 4 && near.alpha == 0, "\(near)", sourceLocation: sourceLocation)
        #expect(far.mean >= 3 && far.worst >= 15, "\(far)", sourceLocation: sourceLocation)
    }

    @Test("H.264 in MP4, BT.709 limited range: 10 frames of 100 ms, colours as ffmpeg's BT.709 decode")
    func h264Limited() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "bt709.mp4", in: folder, filters: "scale=out_color_matrix=bt709:out_range=tv",
            encoder: Self.x264 + ["-colorspace", "bt709", "-color_range", "tv"])
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(32))
        #expect(ImageFormat.sniff(head) == .mp4)
        #expect(!AVIFCodec().sniff(head) && !HEIFCodec().sniff(head))
        let (info, frames) = try Self.frames(clip)
        #expect(info.format == .mp4 && info.width == 64 && info.height == 48 && info.colorType == .rgb)
        #expect(info.frameCount == 10 && frames.count == 10 && info.plays == 1 && info.isComplete)
        #expect(info.frames.map(\.delay) == Array(repeating: .milliseconds(100), count: 10))
        try Self.expectColours(clip, frames: frames, matrix: "bt709", wrongMatrix: "bt601", range: "tv")
    }

    @Test("H.264 in MP4, BT.709 full range: converted with full-range levels")
    func h264Full() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "full.mp4", in: folder, filters: "scale=out_color_matrix=bt709:out_range=pc",
            encoder: Self.x264 + ["-colorspace", "bt709", "-color_range", "pc"])
        let (_, frames) = try Self.frames(clip)
        try Self.expectColours(clip, frames: frames, matrix: "bt709", wrongMatrix: "bt601", range: "pc")
        // Read as limited range, the same clip is far off: the range is taken from the stream.
        let limited = try VideoClips.decode(
            clip, width: 64, height: 48, filters: "scale=in_color_matrix=bt709:in_range=tv")
        #expect(Self.difference(frames, limited).mean >= 3)
    }

    @Test("BT.601 (an untagged stream) is converted with BT.601 coefficients, as ffmpeg takes it")
    func bt601() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "bt601.mp4", in: folder, filters: "scale=out_color_matrix=bt601:out_range=tv", encoder: Self.x264)
        let (_, frames) = try Self.frames(clip)
        try Self.expectColours(clip, frames: frames, matrix: "bt601", wrongMatrix: "bt709", range: "tv")
    }

    @Test(
        "HEVC (10-bit) and AV1 in MP4, H.264 in QuickTime, BT.709: frames and colours as ffmpeg's decode",
        arguments: [
            (
                "hevc.mp4", "format=yuv420p,",
                [
                    "-c:v", "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast", "-pix_fmt",
                    "yuv420p10le",
                ]
            ),
            ("av1.mp4", "", ["-c:v", "libaom-av1", "-cpu-used", "8", "-usage", "realtime", "-pix_fmt", "yuv420p"]),
            ("h264.mov", "", ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]),
        ])
    func otherCodecs(name: String, first: String, encoder: [String]) throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            name, in: folder, filters: "scale=out_color_matrix=bt709:out_range=tv",
            encoder: encoder + ["-colorspace", "bt709", "-color_range", "tv"])
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(32))
        #expect(ImageFormat.sniff(head) == .mp4)
        let (info, frames) = try Self.frames(clip)
        #expect(info.frameCount == 10 && frames.count == 10 && info.width == 64 && info.height == 48)
        try Self.expectColours(
            clip, frames: frames, matrix: "bt709", wrongMatrix: "bt601", range: "tv", first: first)
    }

    @Test("HDR (PQ, HLG) and BT.2020 video is refused when opened, never shown washed out")
    func hdrRefused() throws {
        let folder = try makeTemporaryFolder("video")
        for (name, tags, words) in [
            ("pq.mp4", ["-colorspace", "bt2020nc", "-color_trc", "smpte2084", "-color_primaries", "bt2020"], "PQ"),
            (
                "hlg.mp4", ["-colorspace", "bt2020nc", "-color_trc", "arib-std-b67", "-color_primaries", "bt2020"],
                "HLG"
            ),
            (
                "bt2020.mp4", ["-colorspace", "bt2020nc", "-color_trc", "bt2020-10", "-color_primaries", "bt2020"],
                "BT.2020"
            ),
        ] {
            let clip = try VideoClips.make(name, in: folder, encoder: Self.x264 + tags, frames: 2)
            let error = #expect(throws: ImgToolError.self) { _ = try ImageSource(contentsOf: clip) }
            #expect(
                error?.code == .unsupportedFormat && error?.message.contains(words) == true,
                "\(String(describing: error))")
        }
    }

    @Test("a display matrix turning 90 degrees is applied: 48x64 frames as ffmpeg turns them")
    func rotation() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "plain.mp4", in: folder, filters: "scale=out_color_matrix=bt709:out_range=tv",
            encoder: Self.x264 + ["-colorspace", "bt709"])
        let turned = folder + "/turned.mp4"
        try VideoClips.run(["-i", clip, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned])
        let (info, frames) = try Self.frames(turned)
        #expect(info.width == 48 && info.height == 64 && info.storedSize == PixelSize(width: 64, height: 48))
        #expect(frames.allSatisfy { $0.image.width == 48 && $0.image.height == 64 })
        // ffmpeg turns the frames itself (autorotate) before the filters.
        try Self.expectColours(turned, frames: frames, matrix: "bt709", wrongMatrix: "bt601", range: "tv")
    }

    @Test("a display matrix that mirrors is not applied (FFmpeg 5.1 would read it as a half turn), with a warning")
    func mirrored() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make("plain.mp4", in: folder, encoder: Self.x264)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: clip)))
        // The track header's matrix starts 44 bytes after its type: its first value, a, set to -1.0.
        let type = Array("tkhd".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: type) })
        bytes.replaceSubrange(at + 44..<at + 48, with: [0xFF, 0xFF, 0, 0])
        let source = try ImageSource(data: bytes, name: "mirrored.mp4")
        #expect(source.info.width == 64 && source.info.appliedOrientation == .up)
        #expect(source.info.warnings.contains { $0.contains("mirrors the picture") }, "\(source.info.warnings)")
        let (_, plain) = try Self.frames(clip)
        #expect(try source.frame(at: 0).image == plain[0].image)
    }

    @Test("a variable frame rate is kept: each delay from the presentation timestamps")
    func variableFrameRate() throws {
        let folder = try makeTemporaryFolder("video")
        // Frames at 0, 0.1, ... 0.4 s, then 0.2 s later: 0.7, 0.8 ... 1.2 s.
        let clip = try VideoClips.make(
            "vfr.mkv", in: folder, filters: "setpts='(N+gte(N\\,5)*2)/(10*TB)'",
            encoder: Self.x264 + ["-fps_mode", "vfr"])
        let (info, frames) = try Self.frames(clip)
        #expect(info.format == .webm && frames.count == 10)
        let expected: [Duration] = [100, 100, 100, 100, 300, 100, 100, 100, 100, 100].map { .milliseconds($0) }
        #expect(info.frames.map(\.delay) == expected, "\(info.frames.map(\.delay))")
    }

    @Test(
        "VP9 and VP8 with alpha in WebM keep their alpha, as libvpx decodes it",
        arguments: [
            ("libvpx-vp9", ["-deadline", "realtime", "-cpu-used", "8"]), ("libvpx", ["-auto-alt-ref", "0"]),
        ])
    func alpha(codec: String, options: [String]) throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "alpha.webm", in: folder,
            filters: "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='X*4',format=yuva420p",
            encoder: ["-c:v", codec, "-pix_fmt", "yuva420p"] + options)
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(32))
        #expect(ImageFormat.sniff(head) == .webm)
        let (info, frames) = try Self.frames(clip)
        #expect(info.colorType == .rgba && frames.count == 10)
        let reference = try VideoClips.decode(
            clip, width: 64, height: 48, filters: "scale=in_color_matrix=bt601:in_range=tv",
            inputOptions: ["-c:v", codec])
        let difference = Self.difference(frames, reference)
        #expect(difference.mean <= 1 && difference.worst <= 4 && difference.alpha == 0, "\(difference)")
        // The alpha ramp survives: left columns nearly transparent, right ones nearly opaque.
        let alpha = frames[0].image.rgba8 ?? []
        #expect(alpha.count == 64 * 48 * 4 && alpha[3] < 16 && alpha[63 * 4 + 3] > 230)
    }

    @Test("an audio track is ignored: the same frames and delays as without it")
    func audioIgnored() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "silent.webm", in: folder, encoder: ["-c:v", "libvpx-vp9", "-deadline", "realtime"])
        let withAudio = folder + "/sound.webm"
        try VideoClips.run([
            "-i", clip, "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "copy", "-c:a", "libopus",
            "-shortest", withAudio,
        ])
        let (info, frames) = try Self.frames(withAudio)
        let (silentInfo, silentFrames) = try Self.frames(clip)
        #expect(info.frames == silentInfo.frames && frames.map(\.image) == silentFrames.map(\.image))
    }

    @Test("limits are checked from the stream header, before decoding")
    func limits() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make("small.mp4", in: folder, encoder: Self.x264)
        let pixels = #expect(throws: ImgToolError.self) {
            _ = try ImageSource(contentsOf: clip, limits: DecodingLimits(maxPixels: 1000))
        }
        #expect(pixels?.code == .tooLarge && pixels?.limit == .pixels, "\(String(describing: pixels))")
        let frames = #expect(throws: ImgToolError.self) {
            _ = try ImageSource(contentsOf: clip, limits: DecodingLimits(maxFrames: 5))
        }
        #expect(frames?.code == .tooLarge && frames?.limit == .frames, "\(String(describing: frames))")
    }

    @Test("a cut or damaged video gives the frames before the damage or a one-line error naming the input")
    func damaged() throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(
            "whole.webm", in: folder, encoder: ["-c:v", "libvpx-vp9", "-deadline", "realtime"])
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: clip)))
        for length in [40, file.count / 3, file.count / 2, file.count - 10] {
            do {
                let source = try ImageSource(data: Array(file.prefix(length)), name: "cut.webm")
                let reader = try source.makeFrameReader(depth: .eight)
                var count = 0
                while try reader.nextFrame() != nil { count += 1 }
                #expect(count <= source.info.frameCount && count < 10 || length == file.count - 10)
            } catch {
                #expect(error.input == "cut.webm")
                #expect(!error.description.contains("\n"))
            }
        }
        // MP4 written by ffmpeg keeps its index (moov) at the end: cut, nothing can be listed.
        let mp4 = Array(
            try Data(contentsOf: URL(fileURLWithPath: try VideoClips.make("whole.mp4", in: folder, encoder: Self.x264)))
        )
        let error = #expect(throws: ImgToolError.self) {
            _ = try ImageSource(data: Array(mp4.prefix(mp4.count / 2)), name: "cut.mp4")
        }
        #expect(error?.input == "cut.mp4" && [.corrupt, .truncated].contains(error?.code))
        #expect(error?.description.contains("\n") == false)
    }

    @Test(
        "an MP4 whose index comes first (faststart) or a WebM, cut: the frames before the cut, with a warning",
        arguments: [
            ("fast.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"]),
            ("cut.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime"]),
        ])
    func cutAfterIndex(name: String, encoder: [String]) throws {
        let folder = try makeTemporaryFolder("video")
        let clip = try VideoClips.make(name, in: folder, size: "160x120", encoder: encoder, frames: 20)
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: clip)))
        let source = try ImageSource(data: Array(file.prefix(file.count / 2)), name: name)
        #expect(!source.info.isComplete && source.info.frameCount > 0 && source.info.frameCount < 20)
        #expect(source.info.warnings.first?.contains("cut or damaged") == true)
        let reader = try source.makeFrameReader(depth: .eight)
        var count = 0
        while try reader.nextFrame() != nil { count += 1 }
        #expect(count == source.info.frameCount)
        // Whole, the same file says nothing of the kind.
        let whole = try ImageSource(data: file, name: name)
        #expect(whole.info.isComplete && whole.info.warnings.isEmpty && whole.info.frameCount == 20)
    }

    @Test(
        "a reader starting at a later frame seeks through the index to the key frame before it, and gives the frames a reader from the first gives",
        arguments: [
            ("keys.mp4", "MP4", ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "5"]),
            ("keys.webm", "WebM", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "5"]),
        ])
    func seeking(name: String, container: String, encoder: [String]) async throws {
        let folder = try makeTemporaryFolder("video")
        // Key frames every 5 frames (x264 with B-frames: decode order is not presentation order).
        let clip = try VideoClips.make(name, in: folder, encoder: encoder, frames: 20)
        let (_, frames) = try Self.frames(clip)
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: clip)))
        for start in [1, 4, 5, 9, 13, 19] {
            let file = try VideoFile(data: data, limits: .default, name: container)
            let usedIndex = try file.seek(to: start, name: container)
            // Before the second key frame there is nothing to seek to: decoding starts from the first.
            #expect(usedIndex == (start >= 5), "\(name) from \(start)")
            var decoded: [[UInt8]?] = []
            while let image = try file.nextFrame(name: container) { decoded.append(image.rgba8) }
            #expect(decoded == frames[start...].map(\.image.rgba8), "\(name) from \(start)")
            // The fallback for a seek that fails or cannot be trusted, taken on purpose: decoding
            // from the first frame (in decoding order, B-frames in the MP4), the frames before the
            // start dropped.
            let fallback = try VideoFile(data: data, limits: .default, name: container)
            #expect(try fallback.seek(to: start, name: container, useIndex: false) == false)
            var fromFirst: [[UInt8]?] = []
            while let image = try fallback.nextFrame(name: container) { fromFirst.append(image.rgba8) }
            #expect(fromFirst == frames[start...].map(\.image.rgba8), "\(name) from \(start), no index")
        }
        // Some frames only: the others are decoded but not converted.
        let picked = try ImageSource(contentsOf: clip).frameReader(selecting: [3, 7, 8, 16], depth: .eight)
        var pickedImages: [[UInt8]?] = []
        while let frame = try picked.nextFrame() {
            pickedImages.append(frame.image.rgba8)
            #expect(frame.index == [3, 7, 8, 16][pickedImages.count - 1])
        }
        #expect(pickedImages == [3, 7, 8, 16].map { frames[$0].image.rgba8 })
        // --time through the source: 1.3 s (frame 13) to the end.
        let source = try ImageSource(contentsOf: clip)
        let cut = try await source.applying([.timing(try TimingOperation.time(parsing: "1.3s.."))])
        let reader = try cut.makeFrameReader(depth: .eight)
        var images: [[UInt8]?] = []
        while let frame = try reader.nextFrame() { images.append(frame.image.rgba8) }
        #expect(images == frames[13...].map(\.image.rgba8))
        #expect(cut.info.frames.map(\.delay) == Array(repeating: .milliseconds(100), count: 7))
    }

    @Test("sniffing: MP4 and QuickTime brands and atoms, EBML; AVIF and HEIC stay theirs")
    func sniffing() throws {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let brands = compatible.flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(16 + brands.count)] + Array("ftyp\(major)".utf8) + [0, 0, 2, 0] + brands
        }
        #expect(ImageFormat.sniff(ftyp("qt  ", ["qt  "])) == .mp4)
        #expect(ImageFormat.sniff(ftyp("mp42", ["isom", "mp42"])) == .mp4)
        #expect(ImageFormat.sniff(ftyp("XXXX", ["isom"])) == .mp4)
        #expect(ImageFormat.sniff([0, 0, 0, 8] + Array("wide".utf8) + [0, 0, 0, 8] + Array("mdat".utf8)) == .mp4)
        #expect(!MP4Codec().sniff(ftyp("mif1", ["mif1", "heic", "isom"])))
        #expect(!MP4Codec().sniff(ftyp("avif", ["avif", "mif1", "miaf", "isom"])))
        for fixture in ["/avif/clap.avif", "/avif/sequence.avifs", "/heif/photo.heic"] {
            let head = Array(try Data(contentsOf: URL(fileURLWithPath: HEIFCodecTests.fixtures + fixture)).prefix(32))
            #expect(ImageFormat.sniff(head) != .mp4 && !MP4Codec().sniff(head), "\(fixture)")
        }
        #expect(ImageFormat.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01]) == .webm)
    }

    @Test("the YUV to RGB step: the matrices' primaries and grey at both ranges")
    func conversion() {
        // Limited-range white and black, full-range white and black.
        #expect(VideoColorCheck.rgb(235, 128, 128, bt709: true, full: false) == [255, 255, 255])
        #expect(VideoColorCheck.rgb(16, 128, 128, bt709: false, full: false) == [0, 0, 0])
        #expect(VideoColorCheck.rgb(255, 128, 128, bt709: true, full: true) == [255, 255, 255])
        // BT.709 limited red (Y 63, Cb 102, Cr 240) and BT.601 limited red (Y 81, Cb 90, Cr 240), to
        // within the rounding of the 8-bit samples; through the other matrix, another colour.
        func near(_ rgb: [UInt8], _ expected: [Int], within tolerance: Int) -> Bool {
            zip(rgb, expected).allSatisfy { abs(Int($0) - $1) <= tolerance }
        }
        #expect(near(VideoColorCheck.rgb(63, 102, 240, bt709: true, full: false), [255, 0, 0], within: 1))
        #expect(near(VideoColorCheck.rgb(81, 90, 240, bt709: false, full: false), [255, 0, 0], within: 1))
        #expect(!near(VideoColorCheck.rgb(63, 102, 240, bt709: false, full: false), [255, 0, 0], within: 10))
        #expect(!near(VideoColorCheck.rgb(81, 90, 240, bt709: true, full: false), [255, 0, 0], within: 10))
    }
}
