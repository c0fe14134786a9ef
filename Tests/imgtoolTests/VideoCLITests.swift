import Foundation
import ImgToolKit
import TestSupport
import Testing

/// Video input end to end, on clips ffmpeg makes here: `info` lists the frames and their delays,
/// `convert` writes them as an animation, and without FFmpeg's libraries a video fails with one
/// line saying what to install.
@Suite(
    "Video input (end to end)", .enabled(if: MP4Codec().isAvailable && VideoClips.ffmpeg != nil),
    .timeLimit(.minutes(5)))
struct VideoCLITests {
    static func clip(in folder: String) throws -> String {
        try VideoClips.make(
            "clip.mp4", in: folder, encoder: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"])
    }

    @Test("info lists a clip's frames, delays and turn; convert writes it as a GIF with the same timing")
    func infoAndConvert() throws {
        let folder = try makeTemporaryFolder("video-cli")
        let clip = try Self.clip(in: folder)
        let info = try CLIRunner.run(["info", clip])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("MP4 64x48, rgb 8-bit, lossy, 10 frames, plays once"), "\(info.stdout)")
        #expect(info.stdout.contains("delays (ms): 100 100 100 100 100 100 100 100 100 100"))
        let gif = folder + "/out.gif"
        let convert = try CLIRunner.run(["convert", clip, gif])
        #expect(convert.status == 0, "\(convert.stderr)")
        let written = try ImageSource(contentsOf: gif)
        #expect(written.info.frameCount == 10 && written.info.width == 64 && written.info.height == 48)
        #expect(written.info.frames.allSatisfy { $0.delay == .milliseconds(100) })
    }

    @Test("--time 0.5s..1.5s --fps 10 on a 30 fps clip: 10 frames of 100 ms, source frames 15, 18 ... 42")
    func timeAndFrameRate() throws {
        let folder = try makeTemporaryFolder("video-cli")
        let clip = folder + "/clip30.mp4"
        // Two seconds at 30 fps, a key frame every 10 frames (the range starts after the second).
        try VideoClips.run(
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30", "-frames:v", "60", "-g", "10", "-c:v", "libx264",
                "-preset", "veryfast", "-pix_fmt", "yuv420p", clip,
            ])
        let gif = folder + "/out.gif"
        let convert = try CLIRunner.run(["convert", clip, gif, "--time", "0.5s..1.5s", "--fps", "10"])
        #expect(convert.status == 0, "\(convert.stderr)")
        let written = try ImageSource(contentsOf: gif)
        #expect(written.info.frameCount == 10 && written.info.frames.allSatisfy { $0.delay == .milliseconds(100) })
        // Losslessly (APNG), the frames are the clip's 15, 18 ... 42 as decoded from its first frame
        // here (the command's decoder process sought to the key frame at 10).
        let png = folder + "/out.png"
        let exact = try CLIRunner.run(["convert", clip, png, "--time", "0.5s..1.5s", "--fps", "10"])
        #expect(exact.status == 0, "\(exact.stderr)")
        func images(_ path: String) throws -> [[UInt8]?] {
            let reader = try ImageSource(contentsOf: path).makeFrameReader(depth: .eight)
            var images: [[UInt8]?] = []
            while let frame = try reader.nextFrame() { images.append(frame.image.rgba8) }
            return images
        }
        let all = try images(clip)
        #expect(try images(png) == stride(from: 15, to: 45, by: 3).map { all[$0] })
        // A range past the end, or backwards: one line naming the option and the value, exit 64.
        for range in ["1.5s..3s", "3s..", "1s..0.5s", "1.5x.."] {
            let bad = try CLIRunner.run(["convert", clip, folder + "/bad.gif", "--time", range])
            #expect(bad.status == 64 && bad.stderr.contains("--time"), "\(range): \(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/bad.gif"))
        }
    }

    /// Builds the crashing libavcodec (Tests/Fixtures/crashing-libavcodec) into `folder`.
    static func crashingLibavcodec(in folder: String) throws -> String {
        let library = folder + "/libavcodec-crashing.so"
        let source = ModernFormatsCLITests.fixtures + "/crashing-libavcodec/crashing_libavcodec.c"
        var failures: [String] = []
        for compiler in ["clang", "cc"] {
            let built = try CLIRunner.run(
                program: "/usr/bin/env",
                [compiler, "-shared", "-fPIC", "-o", library, source, "-Wl,--no-as-needed", "-l:libavcodec.so.59"])
            if built.status == 0 { return library }
            failures.append("\(compiler): \(built.stderr)")
        }
        Issue.record("cannot build the crashing libavcodec: \(failures)")
        return library
    }

    @Test("libavcodec crashing on the third frame costs the input, in one line; the output it would replace is kept")
    func crash() throws {
        let folder = try makeTemporaryFolder("video-cli")
        let clip = try Self.clip(in: folder)
        let library = try Self.crashingLibavcodec(in: folder)
        let output = folder + "/out.gif"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: output))
        let run = try DecoderIsolationCLITests.run(
            ["IMGTOOL_LIBAVCODEC=" + library], ["convert", "--force", clip, output])
        #expect(run.status == 1)
        #expect(run.stderr == "error: \(clip): libavcodec crashed decoding it (SIGSEGV)\n", "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data("kept".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                "clip.mp4", "libavcodec-crashing.so", "out.gif",
            ])
        // What the child lists before decoding comes back whole.
        let info = try DecoderIsolationCLITests.run(["IMGTOOL_LIBAVCODEC=" + library], ["info", clip])
        #expect(info.status == 0 && info.stdout.contains("10 frames"), "\(info.stderr)")
    }

    @Test("without FFmpeg's libraries, a video fails with one line naming the input and the packages; formats says so")
    func withoutFFmpeg() throws {
        let folder = try makeTemporaryFolder("video-cli")
        let clip = try Self.clip(in: folder)
        for variable in ["IMGTOOL_LIBAVFORMAT", "IMGTOOL_LIBAVCODEC"] {
            let missing = "\(variable)=/nonexistent/lib.so"
            let run = { (arguments: [String]) in
                try CLIRunner.run(program: "/usr/bin/env", [missing, CLIRunner.executable.path] + arguments)
            }
            let info = try run(["convert", clip, folder + "/out.gif"])
            #expect(info.status == 1)
            #expect(
                info.stderr.contains(clip) && info.stderr.contains("apt-get install libavformat59 libavcodec59"),
                "\(info.stderr)")
            #expect(info.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.gif"))
            let formats = try run(["formats", "--json"])
            for format in ["mp4", "webm"] {
                let row = formats.lines.first { $0.contains("\"format\":\"\(format)\"") } ?? ""
                #expect(row.contains("\"available\":false") && row.contains("libavcodec59"), "\(row)")
            }
        }
    }
}
