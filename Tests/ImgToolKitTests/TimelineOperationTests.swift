import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `--time A..B` and `--fps N` on made-up animations whose timelines are known: which frames
/// are kept, their delays to the nanosecond, and where a source that can start at a later frame
/// (a video) is asked to start.
@Suite("Timeline operations", .timeLimit(.minutes(5)))
struct TimelineOperationTests {
    typealias ListSource = OperationsTests.ListSource

    /// Frames shown for 100, 200, 100, 300 and 100 ms: they start at 0, 100, 300, 400 and 700 ms
    /// and the play lasts 800 ms.
    static let delays = [100, 200, 100, 300, 100]

    static func animation(_ delays: [Int] = delays) -> ListSource {
        ListSource(
            delays.indices.map { TestImages.noise8(width: 5, height: 3, seed: UInt64($0 + 1)) }, delaysMs: delays)
    }

    static func milliseconds(_ values: [Int]) -> [Duration] { values.map { .milliseconds($0) } }

    /// The frames `source` gives, as indices of `original`'s images.
    static func shown(_ source: any FrameSource, of original: ListSource) throws -> [Int] {
        try OperationsTests.frames(source).map { frame in
            original.images.firstIndex(of: frame.image) ?? -1
        }
    }

    @Test("--time keeps the frames on screen between A and B, the first cut to start at A and the last to end at B")
    func timeRange() async throws {
        let source = Self.animation()
        func cut(_ text: String) async throws -> any FrameSource {
            try await source.applying([.timing(try TimingOperation.time(parsing: text))])
        }
        // 150 ms is inside frame 1 (100-300 ms), 500 ms inside frame 3 (400-700 ms).
        let middle = try await cut("150ms..500ms")
        #expect(try Self.shown(middle, of: source) == [1, 2, 3])
        #expect(middle.info.frames.map(\.delay) == Self.milliseconds([150, 100, 100]))
        #expect(middle.info.frames.map(\.index) == [0, 1, 2] && middle.info.delaysArePlayTimes)
        // From the start, to the end; an end on a frame's start leaves that frame out.
        let head = try await cut("..0.25s")
        #expect(
            try Self.shown(head, of: source) == [0, 1]
                && head.info.frames.map(\.delay) == Self.milliseconds([100, 150]))
        let tail = try await cut("0.7s..")
        #expect(try Self.shown(tail, of: source) == [4] && tail.info.frames.map(\.delay) == Self.milliseconds([100]))
        let one = try await cut("0.1s..0.3s")
        #expect(try Self.shown(one, of: source) == [1] && one.info.frames.map(\.delay) == Self.milliseconds([200]))
        let inside = try await cut("120ms..130ms")
        #expect(try Self.shown(inside, of: source) == [1] && inside.info.frames.map(\.delay) == Self.milliseconds([10]))
        let whole = try await cut("0..800ms")
        #expect(try Self.shown(whole, of: source) == [0, 1, 2, 3, 4])
        #expect(whole.info.frames.map(\.delay) == Self.milliseconds(Self.delays))
        // A range reaching past the end, or starting at it, is refused; so is a still.
        for outside in ["800ms..", "0.5s..0.9s", "1s..2s"] {
            await #expect(throws: ImgToolError.self, "\(outside)") { _ = try await cut(outside) }
        }
        let still = ListSource([TestImages.noise8(width: 2, height: 2, seed: 1)])
        await #expect(throws: ImgToolError.self) {
            _ = try await still.applying([.timing(.time(from: .zero, to: .seconds(1)))])
        }
    }

    @Test("--time values: seconds, milliseconds, a bare number of seconds, minutes:seconds; open ends")
    func timeParsing() throws {
        #expect(try TimingOperation.time(parsing: "1.5s..2000ms") == .time(from: .milliseconds(1500), to: .seconds(2)))
        #expect(try TimingOperation.time(parsing: "90..") == .time(from: .seconds(90), to: nil))
        #expect(try TimingOperation.time(parsing: "..1:30") == .time(from: .zero, to: .seconds(90)))
        #expect(
            try TimingOperation.time(parsing: "1:02:03.5..1:02:04")
                == .time(from: .milliseconds(3_723_500), to: .seconds(3724)))
        #expect(
            try TimingOperation.time(parsing: "0.25..0.5s") == .time(from: .milliseconds(250), to: .milliseconds(500)))
        for bad in [
            "2s..1s", "1s..1s", "1s", "..", "x..1", "-1..2", "1e3..", "nan..", "inf..", "1:60..", "1:2:3:4..",
            "1.5ms:2..",
            "1..2h", "1.2.3..", "..9999999999",
        ] {
            #expect(throws: ImgToolError.self, "\(bad)") { _ = try TimingOperation.time(parsing: bad) }
        }
        do {
            _ = try TimingOperation.time(parsing: "2s..1s")
        } catch {
            #expect(error.message.hasPrefix("--time 2s..1s:"), "\(error.message)")
        }
        #expect(throws: ImgToolError.self) { _ = try TimingOperation.fps(parsing: "0") }
        #expect(throws: ImgToolError.self) { _ = try TimingOperation.fps(parsing: "1001") }
        #expect(try TimingOperation.fps(parsing: "12.5") == .fps(12.5))
        let words = try ImageOperation.parse(words: ["--time", "1s..2s", "--fps=15", "--flip"])
        #expect(
            words == [
                .timing(.time(from: .seconds(1), to: .seconds(2))), .timing(.fps(15)), .mirror(MirrorOperation(.flip)),
            ])
    }

    @Test("--fps shows the frame on screen at each tick, merging ticks that show the same frame")
    func frameRate() async throws {
        let source = Self.animation()
        // At 5 fps the ticks are at 0, 200, 400 and 600 ms: frame 2 (300-400 ms) is on screen at none.
        let five = try await source.applying([.timing(.fps(5))])
        #expect(try Self.shown(five, of: source) == [0, 1, 3])
        #expect(five.info.frames.map(\.delay) == Self.milliseconds([200, 200, 400]) && five.info.delaysArePlayTimes)
        // At 4 fps (250 ms): 0, 250, 500 and 750 ms; the play ends on the tick after the end (1 s).
        let four = try await source.applying([.timing(.fps(4))])
        #expect(try Self.shown(four, of: source) == [0, 1, 3, 4])
        #expect(four.info.frames.map(\.delay) == Self.milliseconds([250, 250, 250, 250]))
        // At 10 fps every frame already starts and ends on a tick: nothing changes.
        let ten = try await source.applying([.timing(.fps(10))])
        #expect(ten.info.frames == source.info.frames)
        #expect(try Self.shown(ten, of: source) == [0, 1, 2, 3, 4])
        // Above the source's rate no frame is repeated: 100 ms frames at 30 fps last 3 ticks each.
        let even = Self.animation([100, 100, 100, 100])
        let thirty = try await even.applying([.timing(.fps(30))])
        let tick = TimingOperation.tick(rate: 30)
        #expect(tick == .nanoseconds(33_333_333))
        #expect(try Self.shown(thirty, of: even) == [0, 1, 2, 3])
        #expect(thirty.info.frames.map(\.delay) == Array(repeating: tick * 3, count: 4))
        // Timestamps rounded to the millisecond (a 30 fps WebM: 0, 33, 67, 100 ... ms) lose no frame at 30 fps.
        let webm = Self.animation([33, 34, 33, 33, 34, 33])
        let resampled = try await webm.applying([.timing(.fps(30))])
        #expect(try Self.shown(resampled, of: webm) == [0, 1, 2, 3, 4, 5])
        #expect(resampled.info.frames.map(\.delay) == Array(repeating: tick, count: 6))
        // A still is left as it is.
        let still = ListSource([TestImages.noise8(width: 2, height: 2, seed: 1)])
        #expect(try await still.applying([.timing(.fps(10))]).info.frames == still.info.frames)
        // In the chain with --time: 150..650 ms at 10 fps is frames 1 (150 ms), 2 (100 ms), 3 (250 ms).
        let both = try await source.applying([
            .timing(try TimingOperation.time(parsing: "150ms..650ms")), .timing(.fps(10)),
        ])
        #expect(try Self.shown(both, of: source) == [1, 2, 3])
        #expect(both.info.frames.map(\.delay) == Self.milliseconds([200, 100, 200]))
    }

    @Test("stills joined at --fps N are on N's ticks: resampling them at N changes nothing")
    func joinedStills() async throws {
        let stills = (0..<7).map { TestImages.noise8(width: 4, height: 4, seed: UInt64($0 + 1)) }
        for rate in [30.0, 25, 7, 0.5] {
            let (arrangement, rest) = try InputArrangement.extract(
                from: ["--fps", String(rate), "--flip"], keepingSteps: true)
            #expect(rest == ["--fps", String(rate), "--flip"])
            #expect(arrangement.stillDelay == TimingOperation.tick(rate: rate))
            let join = try arrangement.source(
                of: stills.map { JoinInput(source: StillImageSource($0)) }, background: nil)
            let resampled = try await join.applying([.timing(.fps(rate))])
            #expect(resampled.info.frames == join.info.frames, "\(rate)")
            #expect(try OperationsTests.frames(resampled).map(\.image) == stills)
        }
        // Without keepingSteps (a join's words alone), --fps is taken out as before.
        #expect(try InputArrangement.extract(from: ["--fps=25", "--flip"]).rest == ["--flip"])
    }

    /// A list source that can start at a later frame or give some frames only (as a video can),
    /// and says what it was asked: "from 2", "frames 0 1 3".
    struct SkippingSource: FrameSkippingSource, FrameSelectingSource {
        let list: ListSource
        let asked = Locked<[String]>([])
        var info: ImageInfo { list.info }

        func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            reader(Array(list.images.indices))
        }

        func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            asked.withLock { $0.append("from \(start)") }
            return reader(Array(start..<list.images.count))
        }

        func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
            asked.withLock { $0.append("frames " + frames.map(String.init).joined(separator: " ")) }
            return reader(frames)
        }

        func reader(_ indices: [Int]) -> any FrameReader {
            var next = 0
            let (images, frames) = (list.images, list.info.frames)
            return OperationsTests.OneByOne {
                guard next < indices.count else { return nil }
                defer { next += 1 }
                return Frame(info: frames[indices[next]], image: images[indices[next]])
            }
        }
    }

    @Test("a source that can start at a later frame (a video) is asked to start at --time's first frame")
    func startsAtTheRange() async throws {
        let list = Self.animation()
        let source = SkippingSource(list: list)
        let cut = try await source.applying([
            .mirror(MirrorOperation(.flop)), .timing(try TimingOperation.time(parsing: "0.35s..0.5s")),
            .resize(try ResizeOperation(size: "10x6")), .timing(.fps(10)),
        ])
        // 350-400 ms of frame 2 and 400-500 ms of frame 3, then ticks at 0 and 100 ms.
        #expect(cut.info.frames.map(\.delay) == Self.milliseconds([100, 100]))
        let frames = try OperationsTests.frames(cut)
        #expect(frames.count == 2)
        // --fps asks the steps before it for the frames it shows, down to the source.
        #expect(source.asked.withLock { $0 } == ["frames 2 3"])
        // --time alone starts the source at its first frame.
        let range = try await source.applying([.timing(try TimingOperation.time(parsing: "0.35s.."))])
        #expect(try OperationsTests.frames(range).count == 3)
        #expect(source.asked.withLock { $0 } == ["frames 2 3", "from 2"])
        // At 5 fps frame 2 is shown at no tick: the source is never asked for it, and nothing maps it.
        let five = try await source.applying([.mirror(MirrorOperation(.flop)), .timing(.fps(5))])
        #expect(try OperationsTests.frames(five).count == 3)
        #expect(source.asked.withLock { $0.last } == "frames 0 1 3")
        // The frames are the ones a reader from the first frame gives.
        let plain = try await list.applying([
            .mirror(MirrorOperation(.flop)), .timing(try TimingOperation.time(parsing: "0.35s..0.5s")),
            .resize(try ResizeOperation(size: "10x6")), .timing(.fps(10)),
        ])
        #expect(try OperationsTests.frames(plain).map(\.image) == frames.map(\.image))
    }
}
