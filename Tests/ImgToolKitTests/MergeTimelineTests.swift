import Testing

@testable import ImgToolKit

/// The union of timelines a merge of animations would use, and the refusal until an APNG
/// encoder exists.
@Suite("Merge timeline")
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
    func stillOnAnimation() {
        let timeline = MergeTimeline([Self.info(delaysMs: [100, 40, 70]), Self.still])
        #expect(timeline.segments.map(\.duration) == [.milliseconds(100), .milliseconds(40), .milliseconds(70)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [1, 0], [2, 0]])
    }

    @Test("Two animations change at the union of their change points, each keeping its timing")
    func union() {
        // Background: 0-100, 100-300; overlay: 0-150, 150-300 -> changes at 0, 100, 150
        let timeline = MergeTimeline([Self.info(delaysMs: [100, 200]), Self.info(delaysMs: [150, 150])])
        #expect(timeline.segments.map(\.start) == [.zero, .milliseconds(100), .milliseconds(150)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [1, 0], [1, 1]])
        #expect(timeline.duration == .milliseconds(300))
        // Overlay of two frames (50, 60 ms) looping inside a 200 ms background frame
        let looped = MergeTimeline([Self.info(delaysMs: [200]), Self.info(delaysMs: [50, 60])])
        #expect(looped.segments.map(\.start) == [0, 50, 110, 160].map { .milliseconds($0) })
        #expect(looped.segments.map { $0.frames[1] } == [0, 1, 0, 1])
        #expect(looped.segments.last?.duration == .milliseconds(40))
    }

    @Test("An input whose plays are over holds its last frame")
    func playsOver() {
        let timeline = MergeTimeline([Self.info(delaysMs: [300]), Self.info(delaysMs: [50, 50], plays: 1)])
        #expect(timeline.segments.map(\.frames) == [[0, 0], [0, 1]])
        #expect(timeline.segments.map(\.duration) == [.milliseconds(50), .milliseconds(250)])
    }

    @Test("An animated input is refused with unsupportedFormat naming it")
    func refusal() {
        let animated = LoadedImage(
            name: "anim.gif", info: Self.info(delaysMs: [100, 200]), image: PixelBuffer(width: 4, height: 4))
        let error = ImageMerger.animationRefusal(animated, timeline: MergeTimeline([animated.info, Self.still]))
        #expect(error.code == .unsupportedFormat)
        #expect(error.input == "anim.gif")
        #expect(error.message.contains("APNG encoder"))
        #expect(error.message.contains("2 frames"))
    }
}
