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
