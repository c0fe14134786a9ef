import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `imgtool convert IN OUT [OPERATION...]` end to end: operations in the order written, usage
/// errors that name the option and write nothing, and batch jobs that write what the command writes.
/// Serialized: each run blocks a thread of the cooperative pool (two on this machine) while its
/// process runs, and nine at once starved other suites' tasks in a full `swift test`.
@Suite("imgtool convert with operations (end to end)", .serialized, .timeLimit(.minutes(5)))
struct OperationsCLITests {
    static let samples = InputKindsCLITests.samples

    static func frames(_ path: String) throws -> [PixelBuffer] {
        let reader = try ImageSource(contentsOf: path).makeFrameReader(depth: .eight)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return frames
    }

    @Test("A GIF cropped, turned and mirrored is written exactly, every frame and delay kept")
    func gifChain() throws {
        let folder = try makeTemporaryFolder("ops-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.samples + "/spinner.gif"
        let run = try CLIRunner.run(
            ["convert", input, "out.gif", "--crop", "60x40+10+20", "--rotate", "90", "--flop"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let original = try Self.frames(input)
        let written = try Self.frames(folder + "/out.gif")
        #expect(written.count == original.count)
        for (before, after) in zip(original, written) {
            #expect(after.width == 40 && after.height == 60)
            // Crop (10, 20) 60x40; turn 90 clockwise: (x, y) <- (y, 40 - 1 - x); flop: x -> 40 - 1 - x.
            for (x, y) in [(0, 0), (39, 0), (0, 59), (17, 23), (39, 59)] {
                let (tx, ty) = (40 - 1 - x, y)
                #expect(pixelSamples(after, x, y) == pixelSamples(before, 10 + ty, 20 + (40 - 1 - tx)))
            }
        }
        let info = try ImageSource(contentsOf: folder + "/out.gif").info
        #expect(info.frames.map(\.delay) == (try ImageSource(contentsOf: input)).info.frames.map(\.delay))
    }

    @Test("--speed 2 halves the delays, --reverse and --frames pick and order frames")
    func timing() throws {
        let folder = try makeTemporaryFolder("ops-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = Self.samples + "/bounce.png"
        let run = try CLIRunner.run(
            ["convert", input, "out.png", "--frames", "2..6", "--reverse", "--speed", "2"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let original = try Self.frames(input)
        #expect(try Self.frames(folder + "/out.png") == Array(original[2...6].reversed()))
        let info = try ImageSource(contentsOf: folder + "/out.png").info
        #expect(info.frames.map(\.delayMilliseconds) == Array(repeating: 25, count: 5))
        // An open range: frame 3 to the last.
        let tail = try CLIRunner.run(["convert", input, "tail.png", "--frames", "3.."], in: folder)
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(try Self.frames(folder + "/tail.png") == Array(original[3...]))
    }

    @Test(
        "Bad values are usage errors that name the option and value, and nothing is written",
        arguments: [
            ["--crop", "0x0+0+0"], ["--crop", "500x10+0+0"], ["--rotate", "45x"], ["--frames", "9..2"],
            ["--frames", "0..99"], ["--time", "0.5s..99s"], ["--time", "2s..1s"], ["--time", "1.5"], ["--fps", "0"],
            ["--blur", "-1"], ["--pad", "1,2"], ["--gravity", "north"], ["--bogus"],
        ])
    func usageErrors(arguments: [String]) throws {
        let folder = try makeTemporaryFolder("ops-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "out.gif"] + arguments, in: folder)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(arguments[0]), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.gif"))
    }

    @Test(
        "Extreme numbers are usage errors, not traps: the value is bounded where it is parsed or checked before use",
        arguments: [
            ["--speed", "1e-20"], ["--speed", "1e-21"], ["--speed", "0.001", "--speed", "0.001", "--speed", "0.001"],
            Array(repeating: ["--speed", "0.1"], count: 20).flatMap { $0 },
            ["--crop", "1:30000000000000000"], ["--crop", "9223372036854775807x1+0+0"], ["--timeout", "1e16"],
        ])
    func extremeValues(arguments: [String]) throws {
        let folder = try makeTemporaryFolder("ops-extreme")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["convert", Self.samples + "/spinner.gif", "out.gif"] + arguments, in: folder)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(arguments[0]), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("animate --speed out of 0.001...1000 is a usage error, not a trap", arguments: ["1e-20", "1e-4", "2000"])
    func animateSpeedBounded(speed: String) throws {
        let run = try CLIRunner.run(["animate", Self.samples + "/spinner.gif", "--dry-run", "--speed", speed])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--speed"), "\(run.stderr)")
    }

    @Test("A batch job with operations writes what the command writes")
    func batch() throws {
        let folder = try makeTemporaryFolder("ops-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let words = [
            Self.samples + "/background.png", "--crop", "16:9", "--resize", "50%", "--overlay",
            Self.samples + "/overlay.png", "--gravity", "southeast", "--overlay-size", "25%", "--blur", "0.8",
        ]
        let direct = try CLIRunner.run(["convert", words[0], "direct.webp"] + words.dropFirst(), in: folder)
        #expect(direct.status == 0, "\(direct.stderr)")
        let job = BatchCLITests.line("ops", ["convert", words[0], "batch.webp"] + words.dropFirst())
        try Data(job.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let a = FileManager.default.contents(atPath: folder + "/direct.webp")
        let b = FileManager.default.contents(atPath: folder + "/batch.webp")
        #expect(a != nil && a == b)
    }
}
