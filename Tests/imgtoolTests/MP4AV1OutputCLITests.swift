import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `convert` to `.mp4` without FFmpeg's libavcodec (the variable the loader reads pointing
/// nowhere, as ``VideoCLITests/withoutFFmpeg()`` simulates it): the video is AV1 by libaom, with a
/// note saying so, read back here with the libavcodec this process loads.
@Suite("MP4 output as AV1 (end to end)", .enabled(if: MP4Codec().isAvailable), .timeLimit(.minutes(5)))
struct MP4AV1OutputCLITests {
    @Test("Without libavcodec, convert in.gif out.mp4 writes AV1 with a note and exits 0: the GIF's frames and delays")
    func withoutLibavcodec() throws {
        let folder = try makeTemporaryFolder("mp4-av1-cli")
        let spinner = WebMOutputCLITests.spinner
        let output = folder + "/out.mp4"
        let run = try CLIRunner.run(
            program: "/usr/bin/env",
            ["IMGTOOL_LIBAVCODEC=/nonexistent/libavcodec.so", CLIRunner.executable.path, "convert", spinner, output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "note: \(output): written as AV1 (libaom), libavcodec.so.59 with its libx264 encoder is not installed"),
            "\(run.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(bytes.count > 32 && Array(bytes[4..<8]) == Array("ftyp".utf8))
        #expect(Array(bytes[16..<32]) == Array("isomiso2av01mp41".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.mp4"])

        // Without libaom too: one line naming both packages, exit 1, nothing written.
        let neither = try CLIRunner.run(
            program: "/usr/bin/env",
            [
                "IMGTOOL_LIBAVCODEC=/nonexistent/libavcodec.so", "IMGTOOL_LIBAOM=/nonexistent/libaom.so",
                CLIRunner.executable.path, "convert", spinner, folder + "/none.mp4",
            ])
        #expect(neither.status == 1)
        #expect(
            neither.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") } == [
                "error: \(folder)/none.mp4: writing MP4 needs libavcodec.so.59 with its libx264 encoder, or libaom.so.3 for AV1 (on Debian or Ubuntu: apt-get install libavcodec59, or libaom3)"
            ], "\(neither.stderr)")
        #expect(!neither.stderr.contains("AV1 (libaom)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.mp4"])

        let input = try ImageSource(contentsOf: spinner)
        let written = try ImageSource(contentsOf: output)
        #expect(written.info.format == .mp4 && written.info.frameCount == input.info.frameCount)
        #expect(written.info.width == input.info.width + input.info.width % 2)
        let delays = input.info.frames.map {
            Int((DelayPolicy.browser.effectiveDelay($0.delay, format: .gif) / .milliseconds(1)).rounded())
        }
        #expect(written.info.frames.map { Int($0.delay / .milliseconds(1)) } == delays)
    }
}
