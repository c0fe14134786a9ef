import Foundation
import ImgToolKit
import TestSupport
import Testing

/// SIGTERM in the middle of writing: the command stops, exits 143, and leaves nothing behind
/// (no temporary file, no partial output, no frames written so far).
///
/// The signal is sent by a shell that watches the folder, not by this process: a test that waited
/// in Swift would need a free thread of the cooperative pool, which other CLI tests may hold.
@Suite("Stop signals while writing", .serialized, .timeLimit(.minutes(5)))
struct StopSignalTests {
    /// An APNG of `count` frames of `side` x `side`, a square moving across, 20 ms per frame.
    static func movingSquare(count: Int, side: Int) throws -> [UInt8] {
        let writer = try APNGWriter(width: side, height: side, frameCount: count, plays: 0)
        for index in 0..<count {
            let x = index % (side - 8)
            let frame = TestImages.make8(width: side, height: side) { px, py in
                (x..<x + 8).contains(px) && (8..<16).contains(py) ? [255, UInt8(index % 256), 0, 255] : [0, 0, 0, 0]
            }
            try writer.append(frame, delay: .milliseconds(20))
        }
        try writer.finish()
        return writer.data
    }

    /// Starts `imgtool arguments` in `folder`, waits until `marker` (a shell glob) names a file,
    /// sends SIGTERM, and returns the exit status and whether the marker was seen first.
    static func terminate(_ arguments: [String], in folder: String, when marker: String) throws -> (
        status: Int32, sawMarker: Bool
    ) {
        let (status, saw) = try CLIRunner.signal(
            SIGTERM, arguments, in: folder, when: "ls -d \(marker) >/dev/null 2>&1")
        return (status, saw)
    }

    @Test("merge writing an APNG: SIGTERM removes the temporary file and writes no output")
    func mergeStopped() throws {
        let folder = try makeTemporaryFolder("stop-merge")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeTestPNG(TestImages.gradient(width: 1500, height: 1500), to: folder + "/bg.png")
        try Data(Self.movingSquare(count: 400, side: 64)).write(to: URL(fileURLWithPath: folder + "/anim.png"))
        let (status, saw) = try Self.terminate(
            ["merge", "bg.png", "anim.png", "-o", "out.png"], in: folder, when: ".out.png.*")
        #expect(saw, "the merge ended before its temporary file was seen: the test proves nothing")
        #expect(status == 143)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["anim.png", "bg.png"])
    }

    @Test("frames: SIGTERM removes the frames written so far and the folder it made")
    func framesStopped() throws {
        let folder = try makeTemporaryFolder("stop-frames")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.movingSquare(count: 400, side: 256)).write(to: URL(fileURLWithPath: folder + "/anim.png"))
        let (status, saw) = try Self.terminate(
            ["frames", "anim.png", "-o", "out"], in: folder, when: "out/frame-0005.png")
        #expect(saw, "frames ended before frame 5 was seen: the test proves nothing")
        #expect(status == 143)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["anim.png"])
    }
}
