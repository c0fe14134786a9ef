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
