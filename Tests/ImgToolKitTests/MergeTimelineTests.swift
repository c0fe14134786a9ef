import Testing

@testable import ImgToolKit

/// The union of timelines a merge of animations uses.
@Suite("Merge timeline", .timeLimit(.minutes(5)))
struct MergeTimelineTests {
    static func info(delaysMs: [Int], plays: Int = 0) -> ImageInfo {
        let frames = delaysMs.enumerated().map { index, delay in
            FrameInfo(
                index: index, delay: .milliseconds(delay), region: FrameRegion(x: 0, y: 0, width: 4, height: 4),
                disposal: .none, blend: .over)
        }
        return ImageInfo(
            format: .gif, width: 4, height: 4, bitDepth: 8, colorType: .palette, frames: frames, plays: plays)
    }

    static let still = info(delaysMs: [0])

    @Test("A still overlay on an animation keeps the animation's frames and delays")
    func stillOnAnimation() throws {
        let timeline = try MergeTimeline([Self.info(delaysMs: [100, 40, 70]), Self.still])
        #expect(timeline.segments.map(\.duration) == [.milliseconds(100), .milliseconds(40), .milliseconds(70)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [1, 0], [2, 0]])
    }

    @Test("Two animations change at the union of their change points, each keeping its timing")
    func union() throws {
        // Background: 0-100, 100-300; overlay: 0-150, 150-300 -> changes at 0, 100, 150
        let timeline = try MergeTimeline([Self.info(delaysMs: [100, 200]), Self.info(delaysMs: [150, 150])])
        #expect(timeline.segments.map(\.start) == [.zero, .milliseconds(100), .milliseconds(150)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [1, 0], [1, 1]])
        #expect(timeline.duration == .milliseconds(300))
        // Overlay of two frames (50, 60 ms) looping inside a 200 ms background of two frames
        let looped = try MergeTimeline([Self.info(delaysMs: [100, 100]), Self.info(delaysMs: [50, 60])])
        #expect(looped.segments.map(\.start) == [0, 50, 100, 110, 160].map { .milliseconds($0) })
        #expect(looped.segments.map(\.frames) == [[0, 0], [0, 1], [1, 1], [1, 0], [1, 1]])
        #expect(looped.segments.last?.duration == .milliseconds(40))
    }

    @Test("An input whose plays are over holds its last frame")
    func playsOver() throws {
        let timeline = try MergeTimeline(
            [Self.info(delaysMs: [150, 150]), Self.info(delaysMs: [50, 50], plays: 1)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [0, 1], [1, 1]])
        #expect(timeline.segments.map(\.duration) == [50, 100, 150].map { .milliseconds($0) })
    }

    @Test("Changes a few milliseconds apart fold into the frame before, which shows the later combination")
    func folding() throws {
        // Background changes at 0, 40, 80; overlay at 0, 45, 90 (period 135 ms).
        let background = Self.info(delaysMs: [40, 40, 40])
        let overlay = Self.info(delaysMs: [45, 45, 45])
        let raw = try MergeTimeline([background, overlay])
        #expect(raw.segments.map(\.duration) == [40, 5, 35, 10, 30, 15].map { .milliseconds($0) })
        let folded = try MergeTimeline([background, overlay], foldingAtOrBelow: .milliseconds(10))
        // 45 folds into 40, 90 into 80; the 15 ms frame at 120 stays.
        #expect(folded.segments.map(\.start) == [0, 40, 80, 120].map { .milliseconds($0) })
        #expect(folded.segments.map(\.frames) == [[0, 0], [1, 1], [2, 2], [0, 2]])
        #expect(folded.duration == .milliseconds(135))
        #expect(folded.segments.allSatisfy { $0.duration > .milliseconds(10) })
    }

    @Test("A last frame no longer than the fold is left out; the frame before it lasts to the end")
    func shortLastFrame() throws {
        // Background changes at 0, 50; the overlay's 45 ms frames loop: 0, 45, 90 (10 ms before the end).
        let timeline = try MergeTimeline(
            [Self.info(delaysMs: [50, 50]), Self.info(delaysMs: [45, 45])], foldingAtOrBelow: .milliseconds(10))
        #expect(timeline.segments.map(\.start) == [.zero, .milliseconds(45)])
        #expect(timeline.segments.map(\.duration) == [.milliseconds(45), .milliseconds(55)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [1, 1]])
    }

    @Test("Delays are read through the policy: a 0 ms GIF frame shows for 100 ms, as in browsers")
    func delayPolicy() throws {
        let blinking = Self.info(delaysMs: [0, 0])
        let raw = try MergeTimeline([Self.still, blinking])
        #expect(raw.frameCount == 1 && raw.duration == .zero)
        let browser = try MergeTimeline([Self.still, blinking], delayPolicy: .browser)
        #expect(browser.segments.map(\.duration) == [.milliseconds(100), .milliseconds(100)])
        #expect(browser.segments.map(\.frames) == [[0, 0], [0, 1]])
        #expect(browser.longestInput == 1)
    }

    @Test("A time on a play boundary is frame 0 of the next play, whatever the float rounding")
    func playBoundaries() {
        let third = Duration.seconds(1) / 3
        let delays = [third, third, third]
        let length = third * 3
        for play in 1...2000 {
            let start = length * play
            #expect(MergeTimeline.frame(delays: delays, plays: 0, length: length, at: start) == 0)
            #expect(MergeTimeline.frame(delays: delays, plays: 0, length: length, at: start + third) == 1)
            #expect(MergeTimeline.frame(delays: delays, plays: 0, length: length, at: start - .nanoseconds(1)) == 2)
        }
        #expect(MergeTimeline.frame(delays: delays, plays: 2, length: length, at: length * 2) == 2)
    }

    @Test("A still input has no timing of its own: an animation shorter than 100 ms is not cut")
    func stillHasNoLength() throws {
        // A still (delay 0, 100 ms under the browser policy were it animated) and 3 x 20 ms.
        let timeline = try MergeTimeline([Self.still, Self.info(delaysMs: [20, 20, 20])], delayPolicy: .browser)
        #expect(timeline.duration == .milliseconds(60))
        #expect(timeline.longestInput == 1)
    }

    @Test("A merge that could pass the frame limit is refused before the timeline is built")
    func frameLimit() throws {
        let long = Self.info(delaysMs: [300_000, 300_000])
        let fast = Self.info(delaysMs: [20, 20])
        #expect(throws: ImgToolError.self) { try MergeTimeline([long, fast], maxFrames: 1000) }
        do {
            _ = try MergeTimeline([long, fast], maxFrames: 1000)
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("30003 frames"))
        }
        #expect(try MergeTimeline([long, fast]).frameCount == 30000)
    }
}
