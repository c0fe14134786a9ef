import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `imgtool convert IN... OUT [OPERATION...]` making animations end to end: joins of files,
/// folders and patterns, montages, boomerangs and sprite sheets written exactly, the output
/// named like the inputs refused, and batch job lines taking the same words.
/// Serialized: each run blocks a thread of the cooperative pool while its process runs.
@Suite("imgtool convert making animations (end to end)", .serialized, .timeLimit(.minutes(5)))
struct JoinCLITests {
    /// Every frame of the file at `path`, 8-bit, with its delay.
    static func frames(_ path: String) throws -> [Frame] {
        let reader = try ImageSource(contentsOf: path).makeFrameReader(depth: .eight)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    /// A `width` x `height` image of one colour.
    static func solid(_ width: Int, _ height: Int, _ rgba: [UInt8]) -> PixelBuffer {
        PixelBuffer(width: width, height: height, rgba8: (0..<width * height).flatMap { _ in rgba })
    }

    /// A folder with `frame1.png` ... `frame12.png`, frame i a 6x4 image of red level 20 i.
    static func numberedFolder() throws -> String {
        let folder = try makeTemporaryFolder("join-cli")
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        for index in 1...12 {
            try writeTestPNG(solid(6, 4, [UInt8(index * 20), 0, 0, 255]), to: folder + "/in/frame\(index).png")
        }
        return folder
    }

    @Test("A folder joins in natural order, each still shown 1000/--fps ms; a pattern from its lowest number")
    func folderAndPattern() throws {
        let folder = try Self.numberedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(["convert", "in", "out.gif", "--fps", "25"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Self.frames(folder + "/out.gif")
        #expect(frames.map { pixelSamples($0.image, 0, 0) } == (1...12).map { [$0 * 20, 0, 0, 255] })
        #expect(frames.allSatisfy { $0.info.delay == .milliseconds(40) })
        #expect(try ImageSource(contentsOf: folder + "/out.gif").info.plays == 0)
        // A pattern runs from frame3 on while the numbers are consecutive; --delay sets 250 ms
        try FileManager.default.removeItem(atPath: folder + "/in/frame1.png")
        try FileManager.default.removeItem(atPath: folder + "/in/frame2.png")
        try FileManager.default.removeItem(atPath: folder + "/in/frame7.png")
        let pattern = try CLIRunner.run(["convert", "in/frame%d.png", "p.png", "--delay", "250"], in: folder)
        #expect(pattern.status == 0, "\(pattern.stderr)")
        let written = try Self.frames(folder + "/p.png")
        #expect(written.map { pixelSamples($0.image, 0, 0)[0] } == [60, 80, 100, 120])
        #expect(written.allSatisfy { $0.info.delay == .milliseconds(250) })
    }

    @Test("Several inputs of other sizes are centred on the first's canvas, on --background")
    func inputsCentred() throws {
        let folder = try makeTemporaryFolder("join-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeTestPNG(Self.solid(6, 4, [0, 0, 255, 255]), to: folder + "/a.png")
        try writeTestPNG(Self.solid(2, 2, [0, 255, 0, 255]), to: folder + "/b.png")
        let run = try CLIRunner.run(
            ["convert", "a.png", "b.png", "a.png", "out.png", "--background", "white", "--delay", "70"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Self.frames(folder + "/out.png")
        #expect(frames.count == 3 && frames.allSatisfy { $0.info.delay == .milliseconds(70) })
        var expected = Self.solid(6, 4, [255, 255, 255, 255])
        expected.draw(Self.solid(2, 2, [0, 255, 0, 255]), at: (2, 1), blend: .source)
        #expect(frames[1].image == expected)
        #expect(frames[0].image == Self.solid(6, 4, [0, 0, 255, 255]))
    }

    @Test("--delay sets what a still becomes before any operation; --speed then changes the joined frames")
    func delayBeforeSpeed() throws {
        let folder = try Self.numberedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Written after --speed, --delay still applies first: 200 ms stills, then twice as fast
        let run = try CLIRunner.run(
            ["convert", "in/frame%d.png", "s.png", "--frames", "0..2", "--speed", "2", "--delay", "200"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frames(folder + "/s.png").map(\.info.delay) == Array(repeating: .milliseconds(100), count: 3))
        let both = try CLIRunner.run(["convert", "in", "t.gif", "--delay", "20", "--fps", "10"], in: folder)
        #expect(both.status == 64 && both.stderr.contains("give one"))
    }

    @Test("The last of several inputs named like the others is refused as the output, even with --force")
    func outputNamedLikeInputs() throws {
        let folder = try Self.numberedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/frame3.png"))
        let run = try CLIRunner.run(
            ["convert", "in/frame1.png", "in/frame2.png", "in/frame3.png", "--force"], in: folder)
        #expect(run.status == 64)
        #expect(run.stderr.contains("in/frame3.png is an existing image named like the input in/frame1.png"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in/frame3.png")) == before)
        // -o names the output: all three are inputs
        let named = try CLIRunner.run(
            ["convert", "in/frame1.png", "in/frame2.png", "in/frame3.png", "-o", "out.gif"], in: folder)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try Self.frames(folder + "/out.gif").count == 3)
        // Writing over an input is refused too
        let over = try CLIRunner.run(["convert", "in", "in/frame4.png", "-o", "in/frame4.png", "--force"], in: folder)
        #expect(over.status != 0 && over.stderr.contains("is also an input"))
    }

    @Test("--montage 2x1 --gap puts two animations side by side on one timeline; --boomerang bounces the result")
    func montageAndBoomerang() throws {
        let folder = try makeTemporaryFolder("join-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Two 3-frame APNGs written by imgtool itself from stills: 100 ms and 50 ms frames
        for (index, level) in [0, 100, 200].enumerated() {
            try writeTestPNG(Self.solid(4, 4, [UInt8(level), 0, 0, 255]), to: folder + "/a\(index).png")
            try writeTestPNG(Self.solid(2, 2, [0, UInt8(level), 0, 255]), to: folder + "/b\(index).png")
        }
        #expect(try CLIRunner.run(["convert", "a%d.png", "a.png"], in: folder).status == 0)
        #expect(try CLIRunner.run(["convert", "b%d.png", "b.png", "--delay", "50"], in: folder).status == 0)
        let run = try CLIRunner.run(
            ["convert", "a.png", "b.png", "m.png", "--montage", "2x1", "--gap", "2", "--boomerang"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        // b (150 ms, looping) plays twice during a's 300 ms: changes at 0, 50, 100, 150, 200, 250
        let shown = [(0, 0), (0, 1), (1, 2), (1, 0), (2, 1), (2, 2)]
        let bounced = shown + shown.dropFirst().dropLast().reversed()
        let frames = try Self.frames(folder + "/m.png")
        #expect(frames.count == bounced.count && frames.allSatisfy { $0.info.delay == .milliseconds(50) })
        for (frame, (a, b)) in zip(frames, bounced) {
            var expected = PixelBuffer(width: 10, height: 4)
            expected.draw(Self.solid(4, 4, [UInt8(a * 100), 0, 0, 255]), at: (0, 0), blend: .source)
            expected.draw(Self.solid(2, 2, [0, UInt8(b * 100), 0, 255]), at: (7, 1), blend: .source)
            #expect(frame.image == expected)
        }
    }

    @Test("--sheet 2x with --sheet-json writes the frames on one still and each box and delay")
    func sheet() throws {
        let folder = try Self.numberedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLIRunner.run(
            ["convert", "in/frame%d.png", "sheet.png", "--frames", "0..4", "--sheet", "2x", "--sheet-json", "s.json"],
            in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let image = try #require(try Self.frames(folder + "/sheet.png").first).image
        #expect(image.width == 12 && image.height == 12)
        for index in 0..<6 {
            let expected = index < 5 ? [(index + 1) * 20, 0, 0, 255] : [0, 0, 0, 0]
            #expect(pixelSamples(image, index % 2 * 6 + 5, index / 2 * 4 + 3) == expected)
        }
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/s.json")))
                as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(
            frames.map { $0["frame"] as? [String: Int] }
                == (0..<5).map { ["x": $0 % 2 * 6, "y": $0 / 2 * 4, "w": 6, "h": 4] })
        #expect(frames.allSatisfy { $0["duration"] as? Int == 100 })
        // The description is not written over an existing file without --force
        let again = try CLIRunner.run(
            ["convert", "in", "sheet2.png", "--sheet", "4x", "--sheet-json", "s.json"], in: folder)
        #expect(again.status == 1 && again.stderr.contains("s.json"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/sheet2.png"))
        let misplaced = try CLIRunner.run(["convert", "in", "x.png", "--sheet-json", "t.json"], in: folder)
        #expect(misplaced.status == 64 && misplaced.stderr.contains("write it after --sheet"))
    }

    @Test("A batch job line takes several inputs and the same words")
    func batchLine() throws {
        let folder = try Self.numberedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = BatchCLITests.line("join", ["convert", "in/frame1.png", "in/frame2.png", "j.gif", "--boomerang"])
        let run = try CLIRunner.run(["batch", "-"], in: folder, stdin: Array(job.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(BatchCLITests.reports(run.stdout)["join"]?["status"] as? String == "ok")
        #expect(try Self.frames(folder + "/j.gif").count == 2)
    }
}
