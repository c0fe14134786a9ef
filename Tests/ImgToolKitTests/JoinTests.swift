import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Making animations from several inputs: joins in time, boomerangs, montages and sprite sheets,
/// each checked pixel by pixel and delay by delay against a reference built here.
@Suite("Joins, boomerangs, montages and sprite sheets")
struct JoinTests {
    /// Every frame of `source`, in order.
    static func frames(_ source: any FrameSource, depth: SampleDepth? = .eight) throws -> [Frame] {
        let reader = try source.makeFrameReader(depth: depth)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    /// `image` drawn at (x, y) on a transparent `width` x `height` canvas, pixel by pixel.
    static func placed(_ image: PixelBuffer, on width: Int, _ height: Int, at x: Int, _ y: Int) -> PixelBuffer {
        var samples = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<image.height {
            for column in 0..<image.width {
                let (tx, ty) = (x + column, y + row)
                guard tx >= 0, ty >= 0, tx < width, ty < height else { continue }
                let pixel = pixelSamples(image, column, row).map(UInt8.init)
                for channel in 0..<4 { samples[(ty * width + tx) * 4 + channel] = pixel[channel] }
            }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    @Test("A join: an animation keeps its frames and delays, stills become one frame of the still delay, centred")
    func joinInTime() throws {
        // Given a 4x2 animation of 3 frames, a smaller still and a larger still
        let animation = FakeFrameSource(delaysMs: [30, 40, 50], plays: 0)
        let small = TestImages.noise8(width: 2, height: 1, seed: 1)
        let large = TestImages.noise8(width: 7, height: 4, seed: 2)
        let inputs = [
            JoinInput(source: animation, name: "anim"), JoinInput(source: StillImageSource(small), name: "small"),
            JoinInput(source: StillImageSource(large), name: "large"),
        ]
        // When they are joined with stills shown 250 ms
        let join = try JoinedFrameSource(inputs, stillDelay: .milliseconds(250))
        let frames = try Self.frames(join)
        // Then there are 5 frames on the first input's 4x2 canvas, delays kept, stills at 250 ms
        #expect(join.info.frameCount == 5 && frames.count == 5)
        #expect(frames.map(\.info.delay) == [30, 40, 50, 250, 250].map { Duration.milliseconds($0) })
        #expect(join.info.frames.map(\.delay) == frames.map(\.info.delay))
        #expect(join.info.width == 4 && join.info.height == 2 && join.info.plays == 0)
        #expect(join.info.delaysArePlayTimes)
        for index in 0..<3 {
            let level = UInt8(index)
            #expect(
                frames[index].image
                    == PixelBuffer(width: 4, height: 2, rgba8: (0..<8).flatMap { _ in [level, level, 0, 255] }))
        }
        // The small still is centred (at 1,0), the large one cut around its centre (from 1,1)
        #expect(frames[3].image == Self.placed(small, on: 4, 2, at: 1, 0))
        #expect(frames[4].image == Self.placed(large, on: 4, 2, at: -1, -1))
    }

    @Test("Joining animations only keeps their stored delays; a surrounding background is drawn")
    func joinAnimations() throws {
        let first = FakeFrameSource(delaysMs: [0, 20], plays: 3)
        let second = FakeFrameSource(delaysMs: [70])
        var still = StillImageSource(TestImages.noise8(width: 2, height: 2, seed: 3)).info
        still.frames[0].delay = .zero
        let join = try JoinedFrameSource([JoinInput(source: first), JoinInput(source: first)])
        #expect(join.info.frames.map(\.delay) == [0, 20, 0, 20].map { Duration.milliseconds($0) })
        #expect(!join.info.delaysArePlayTimes && join.info.plays == 3)
        // With a still in the join, stored delays are read as players show them (0 ms is 100 ms)
        let mixed = try JoinedFrameSource([JoinInput(source: first), JoinInput(source: second)])
        #expect(mixed.info.frames.map(\.delay) == [100, 20, 100].map { Duration.milliseconds($0) })
        // A background fills around a smaller input
        let image = TestImages.noise8(width: 2, height: 2, seed: 3)
        let framed = try JoinedFrameSource(
            [JoinInput(source: first), JoinInput(source: StillImageSource(image))], background: .white)
        let last = try #require(try Self.frames(framed).last)
        #expect(pixelSamples(last.image, 0, 0) == [255, 255, 255, 255])
        #expect(pixelSamples(last.image, 1, 0) == pixelSamples(image, 0, 0))
        #expect(pixelSamples(last.image, 3, 1) == [255, 255, 255, 255])
    }

    @Test("A join opens each file when it is reached, one at a time")
    func joinOpensLazily() throws {
        let folder = try makeTemporaryFolder("join-lazy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var inputs: [JoinInput] = []
        for index in 0..<3 {
            let path = folder + "/f\(index).png"
            try StillPNG.make(width: 3, height: 2, rgba: [UInt8(index * 50), 0, 0, 255]).write(to: path)
            inputs.append(try JoinInput.file(path))
        }
        let join = try JoinedFrameSource(inputs)
        let reader = try join.makeFrameReader(depth: nil)
        // The second file is removed after the first frame was read: only its reopening fails
        _ = try #require(try reader.nextFrame())
        try FileManager.default.removeItem(atPath: folder + "/f1.png")
        #expect(throws: ImgToolError.self) { _ = try reader.nextFrame() }
        #expect(inputs.map(\.name) == (0..<3).map { folder + "/f\($0).png" })
    }

    @Test("A reader can start at a later frame without reading the inputs before it")
    func joinStartsLater() throws {
        // Given a join of a 3-frame animation, a still and a 2-frame animation
        let first = FakeFrameSource(delaysMs: [30, 40, 50])
        let last = FakeFrameSource(delaysMs: [10, 20])
        let still = StillImageSource(TestImages.noise8(width: 4, height: 2, seed: 5))
        let join = try JoinedFrameSource([JoinInput(source: first), JoinInput(source: still), JoinInput(source: last)])
        let all = try Self.frames(join)
        for start in 0..<all.count {
            let readers = first.recorder.snapshot.readersMade
            // When a reader starts at frame `start`
            let reader = try join.frameReader(from: start, depth: .eight)
            var rest: [Frame] = []
            while let frame = try reader.nextFrame() { rest.append(frame) }
            // Then it gives the frames from `start` on, as a reader from frame 0 does
            #expect(rest.map(\.info.index) == Array(start..<all.count), "start \(start)")
            #expect(rest.map(\.image) == all[start...].map(\.image), "start \(start)")
            #expect(rest.map(\.info.delay) == all[start...].map(\.info.delay), "start \(start)")
            // And past the first input, that input is never read
            #expect((first.recorder.snapshot.readersMade == readers) == (start >= 3), "start \(start)")
        }
        // A source that cannot skip reads and drops the frames before the start
        let reader = try first.frameReader(from: 2, depth: .eight)
        #expect(try reader.nextFrame()?.info.index == 2)
        #expect(try reader.nextFrame() == nil)
    }

    @Test("A boomerang plays forwards then backwards, the ends not repeated, delays kept")
    func boomerang() async throws {
        let source = FakeFrameSource(delaysMs: [10, 20, 30, 40, 50], plays: 0)
        let bounced = try await source.applying([.timing(.boomerang)])
        let frames = try Self.frames(bounced)
        #expect(frames.count == 8 && bounced.info.frameCount == 8)
        #expect(frames.map { pixelSamples($0.image, 0, 0)[0] } == [0, 1, 2, 3, 4, 3, 2, 1])
        #expect(frames.map(\.info.delay) == [10, 20, 30, 40, 50, 40, 30, 20].map { Duration.milliseconds($0) })
        #expect(frames.map(\.index) == Array(0..<8) && bounced.info.plays == 0)
        // Two frames and a still stay as they are
        #expect(try await FakeFrameSource(delaysMs: [10, 20]).applying([.timing(.boomerang)]).info.frameCount == 2)
        #expect(try await FakeFrameSource(delaysMs: [10]).applying([.timing(.boomerang)]).info.frameCount == 1)
    }

    @Test("A montage lays inputs out in a grid and plays animations side by side on the union timeline")
    func montage() throws {
        // Given an animation of 60+60 ms, one of 40+40+40 ms (both looping), and a 3x1 still
        let a = FakeFrameSource(delaysMs: [60, 60], plays: 0)
        let b = FakeFrameSource(delaysMs: [40, 40, 40], plays: 0)
        let still = TestImages.noise8(width: 3, height: 1, seed: 4)
        let montage = try MontageFrameSource(
            [JoinInput(source: a), JoinInput(source: b), JoinInput(source: StillImageSource(still))],
            grid: GridLayout(columns: 2, rows: nil), gap: 1)
        // Then the grid is 2x2 cells of 4x2 with a 1-pixel gap: 9x5
        #expect(montage.info.width == 9 && montage.info.height == 5)
        // And frames change at 0, 40, 60, 80 ms (every change of either), for one 120 ms play
        #expect(montage.info.frames.map(\.delay) == [40, 20, 20, 40].map { Duration.milliseconds($0) })
        let shown = [(0, 0), (0, 1), (1, 1), (1, 2)]
        let frames = try Self.frames(montage)
        #expect(frames.count == 4)
        for (frame, (fa, fb)) in zip(frames, shown) {
            var expected = Self.placed(
                PixelBuffer(width: 4, height: 2, rgba8: (0..<8).flatMap { _ in [UInt8(fa), UInt8(fa), 0, 255] }),
                on: 9, 5, at: 0, 0)
            expected.draw(
                PixelBuffer(width: 4, height: 2, rgba8: (0..<8).flatMap { _ in [UInt8(fb), UInt8(fb), 0, 255] }),
                at: (5, 0), blend: .source)
            expected.draw(still, at: (0, 3), blend: .source)  // centred in its 4x2 cell: (0 + 0, 3 + 0)
            #expect(frame.image == expected)
        }
        // A grid too small is refused, naming both counts
        #expect(throws: ImgToolError.self) {
            _ = try MontageFrameSource(
                [JoinInput(source: a), JoinInput(source: b)], grid: GridLayout(columns: 1, rows: 1))
        }
    }

    @Test("A sprite sheet puts frame i at column i % COLS, row i / COLS, and describes every box and delay")
    func sheet() async throws {
        let source = FakeFrameSource(delaysMs: [0, 40, 60, 80, 90], plays: 0)
        let sheet = try #require(
            try await source.applying([.sheet(SheetOperation(grid: GridLayout(columns: 2, rows: nil)))])
                as? SpriteSheetSource)
        #expect(sheet.info.frameCount == 1 && sheet.info.width == 8 && sheet.info.height == 6)
        let image = try #require(try Self.frames(sheet).first).image
        for index in 0..<6 {
            let (x, y) = (index % 2 * 4, index / 2 * 2)
            let expected = index < 5 ? [index, index, 0, 255] : [0, 0, 0, 0]
            #expect(pixelSamples(image, x, y) == expected && pixelSamples(image, x + 3, y + 1) == expected)
        }
        #expect(sheet.layout.boxes[3] == FrameRegion(x: 4, y: 2, width: 4, height: 2))
        // Delays as players show them: a stored 0 is 100 ms
        #expect(sheet.layout.delays == [100, 40, 60, 80, 90].map { Duration.milliseconds($0) })
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(sheet.layout.json(imageName: "s\"1.png").utf8))
                as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.count == 5)
        #expect((frames[3]["frame"] as? [String: Int]) == ["x": 4, "y": 2, "w": 4, "h": 2])
        #expect(frames.map { $0["duration"] as? Int } == [100, 40, 60, 80, 90])
        let meta = try #require(json["meta"] as? [String: Any])
        #expect(meta["image"] as? String == "s\"1.png" && (meta["size"] as? [String: Int]) == ["w": 8, "h": 6])
        #expect(throws: ImgToolError.self) {
            _ = try SpriteSheetSource(source, grid: GridLayout(columns: 2, rows: 2))
        }
    }

    @Test("Folders list their images in natural order; patterns run from the lowest number present")
    func expansion() throws {
        let folder = try makeTemporaryFolder("join-expand")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["frame10.png", "frame2.png", "frame1.PNG", ".hidden.png", "notes.txt", "f-003.png", "f-004.png"]
            + ["f-005.png", "f-007.png", "f-1000.png"]
        {
            try [UInt8]().write(to: folder + "/" + name)
        }
        #expect(
            try InputExpansion.expand(folder).map { ($0 as NSString).lastPathComponent } == [
                "f-003.png", "f-004.png", "f-005.png", "f-007.png", "f-1000.png", "frame1.PNG", "frame2.png",
                "frame10.png",
            ])
        #expect(try InputExpansion.expand(folder + "/f-%03d.png") == [3, 4, 5].map { folder + "/f-00\($0).png" })
        #expect(try InputExpansion.expand(folder + "/frame%d.png") == [folder + "/frame2.png"])
        #expect(throws: ImgToolError.self) { _ = try InputExpansion.expand(folder + "/g-%d.png") }
        #expect(throws: ImgToolError.self) { _ = try InputExpansion.expand(folder + "/%d-%d.png") }
        #expect(try InputExpansion.expand("https://example.com/f%d.png") == ["https://example.com/f%d.png"])
        #expect(InputExpansion.naturallyBefore("a2b", "a10b") && !InputExpansion.naturallyBefore("a10", "a9"))
        let empty = try makeTemporaryFolder("join-empty")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: ImgToolError.self) { _ = try InputExpansion.expand(empty) }
    }

    @Test("--delay, --fps, --montage and --gap are taken out of the words; conflicts are refused")
    func arrangementWords() throws {
        let (arrangement, rest) = try InputArrangement.extract(
            from: ["--resize", "50%", "--fps=25", "--montage", "3x", "--gap", "4", "--flip"])
        #expect(rest == ["--resize", "50%", "--flip"])
        #expect(arrangement.stillDelay == .milliseconds(40) && arrangement.gap == 4)
        #expect(arrangement.montage == GridLayout(columns: 3, rows: nil))
        #expect(try InputArrangement.extract(from: ["--delay", "250"]).arrangement.stillDelay == .milliseconds(250))
        for words in [
            ["--delay", "10", "--fps", "5"], ["--gap", "2"], ["--delay", "0"], ["--fps"], ["--montage", "x"],
        ] {
            #expect(throws: ImgToolError.self) { _ = try InputArrangement.extract(from: words) }
        }
        #expect(try GridLayout(parsing: "x2", option: "--montage").resolved(for: 5, option: "", what: "") == (3, 2))
        // A grid decoded from JSON is checked as a parsed one
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(GridLayout.self, from: Data("{}".utf8)) }
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(GridLayout.self, from: Data("{\"columns\":0}".utf8))
        }
        let sheet = ImageOperation.sheet(
            SheetOperation(grid: GridLayout(columns: 3, rows: nil), descriptionFile: "s.json"))
        #expect(try JSONDecoder().decode(ImageOperation.self, from: JSONEncoder().encode(sheet)) == sheet)
    }
}
