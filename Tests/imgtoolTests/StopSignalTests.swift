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

/// Ctrl-C during a long encode inside a C library (zlib at level 9, libwebp, libaom, libjxl),
/// which looks at no cancellation, 0.5 s and 2 s into it (at 2 s, PNG at 16 bits of the noise
/// enlarged to 6000x4500, and lossy WebP at quality 100, which take several seconds where the
/// 0.5 s cases end in about two; the PNG at 16 bits of 4000x3000 alone ended at 2 s in an
/// optimized AddressSanitizer build on an idle machine): the command still stops within a
/// second, the file it would have replaced is left byte for byte, and no temporary file is left.
@Suite("Stop signals during long encodes", .serialized, .timeLimit(.minutes(5)))
struct StopSignalEncodeTests {
    /// A 4000x3000 noise PNG, made once: slow to compress in every format (2000x1500 was written
    /// at zlib level 9 in under half a second, on two threads).
    static let noise = Result<String, any Error> {
        try makeTemporaryFile(
            try PNGEncoder(compressionLevel: 1).encode(TestImages.noise8(width: 4000, height: 3000, seed: 3)),
            name: "noise.png")
    }

    @Test(
        "SIGINT into a long encode over an existing output: exit 130 at once, the old file intact, nothing left",
        arguments: [
            (["out.png", "--level", "9"], 0.5), (["out.webp", "--lossless", "--level", "9"], 0.5),
            (["out.avif", "--lossless", "--level", "9"], 0.5), (["out.jxl", "--lossless", "--level", "9"], 0.5),
            (["out.png", "--level", "9", "--depth", "16", "--resize", "150%"], 2.0),
            (["out.webp", "--quality", "100", "--level", "9"], 2.0),
            (["out.avif", "--lossless", "--level", "9"], 2.0), (["out.jxl", "--lossless", "--level", "9"], 2.0),
        ])
    func interruptedEncode(output: [String], after seconds: Double) throws {
        let folder = try makeTemporaryFolder("stop-encode")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: try Self.noise.get(), toPath: folder + "/noise.png")
        let name = output[0]
        try Data("the user's file".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        let process = try CLIRunner.start(["convert", "noise.png"] + output + ["--force"], in: folder)
        // The shell waits until the encoder's temporary file exists, then `seconds` more.
        let script = """
            for i in $(seq 3000); do
                if ls .\(name).* >/dev/null 2>&1; then break; fi
                sleep 0.01
            done
            sleep \(seconds)
            if kill -0 "$0" 2>/dev/null; then kill -INT "$0"; echo sent; fi
            """
        let watcher = try CLIRunner.run(
            program: "/bin/sh", ["-c", script, String(process.processIdentifier)], in: folder)
        let sent = ContinuousClock.now
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - sent
        #expect(watcher.stdout == "sent\n", "\(name) finished before the signal: the test proves nothing")
        #expect(process.terminationStatus == 130)
        // 0.7 s of grace, then the process exits; the bound leaves room for a loaded machine.
        #expect(elapsed < .seconds(3), "\(name): exited \(elapsed) after SIGINT")
        #expect(try String(contentsOfFile: folder + "/" + name, encoding: .utf8) == "the user's file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [name, "noise.png"].sorted())
    }
}
