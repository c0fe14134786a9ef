import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `convert` to `.webm` end to end: a GIF written as VP9 in WebM, to a file and to a pipe (where
/// the muxer cannot patch sizes in place and writes the file whole), read back by ffprobe.
@Suite(
    "WebM output (end to end)",
    .enabled(if: VideoClips.ffmpeg != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")),
    .timeLimit(.minutes(5)))
struct WebMOutputCLITests {
    static let spinner = InputKindsCLITests.samples + "/spinner.gif"

    /// ffprobe's frame count and duration of the WebM in `bytes` (or at `path`).
    static func probe(_ path: String) throws -> String {
        let run = try CLIRunner.run(
            program: "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames:format=duration",
                "-of",
                "csv=p=0", path,
            ])
        return run.stdout.split(separator: "\n").joined(separator: ",")
    }

    @Test("A GIF to .webm, to standard output with --format webm, and to .mp4: the same frames and duration")
    func fileAndPipe() throws {
        let folder = try makeTemporaryFolder("webm-cli")
        let source = try ImageSource(contentsOf: Self.spinner)
        let frames = source.info.frameCount
        let milliseconds = source.info.frames.reduce(0) {
            $0 + Int((DelayPolicy.browser.effectiveDelay($1.delay, format: .gif) / .milliseconds(1)).rounded())
        }
        let expected = "vp9,\(frames),\(String(format: "%.6f", Double(milliseconds) / 1000))"
        let file = try CLIRunner.run(
            ["convert", Self.spinner, "out.webm", "--quality", "70", "--level", "6"], in: folder)
        #expect(file.status == 0, "\(file.stderr)")
        #expect(try Self.probe(folder + "/out.webm") == expected)
        // The GIF loops forever; a video has no play count, and the note says so.
        #expect(file.stderr.contains("note: out.webm: WebM has no play count"), "\(file.stderr)")
        let piped = try CLIRunner.run(["convert", Self.spinner, "-", "--format", "webm"], in: folder)
        #expect(piped.status == 0, "\(piped.stderr)")
        try Data(piped.output).write(to: URL(fileURLWithPath: folder + "/piped.webm"))
        #expect(try Self.probe(folder + "/piped.webm") == expected)
        // .mp4 picks the H.264 writer (when libavcodec and its libx264 encoder are installed).
        guard MP4Codec().isAvailable else { return }
        let mp4 = try CLIRunner.run(
            ["convert", Self.spinner, "out.mp4", "--quality", "60", "--level", "3"], in: folder)
        #expect(mp4.status == 0, "\(mp4.stderr)")
        #expect(try Self.probe(folder + "/out.mp4") == expected.replacingOccurrences(of: "vp9", with: "h264"))
        #expect(mp4.stderr.contains("note: out.mp4: MP4 has no play count"), "\(mp4.stderr)")
    }
}
