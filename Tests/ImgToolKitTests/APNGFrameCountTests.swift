import Testing

@testable import ImgToolKit

/// acTL's num_frames against the fcTL chunks present: a value that is no count, or a count
/// below the fcTL chunks, gives way to the chunks, with a warning (issue 41: ffmpeg streaming an
/// APNG to a pipe leaves num_frames at 0xFFFFFFFF); a count above them is the APNG test suite's
/// "num_frames too high", an error that shows the default image.
@Suite("APNG frame count", .timeLimit(.minutes(5)))
struct APNGFrameCountTests {
    /// `count` frames of 3x2, each its own colour, 30 ms each, the default image frame 0.
    static func builder(frames count: Int) -> APNGBuilder {
        var builder = APNGBuilder(width: 3, height: 2)
        builder.frames = (0..<count).map { index in
            var frame = APNGBuilder.Frame(image: APNGBuilder.solid(3, 2, Self.color(index)))
            frame.delayNumerator = 3
            frame.delayDenominator = 100
            return frame
        }
        return builder
    }

    static func color(_ index: Int) -> [UInt8] { [UInt8(index * 40), 255 - UInt8(index * 40), 7, 255] }

    @Test(
        "num_frames that is no count, or below the fcTL count: every frame present is read, with a warning",
        arguments: [
            (0xFFFF_FFFF, "the value a writer streaming to a pipe leaves"),
            (0x8000_0000, "which the APNG specification does not allow"),
            (0, "which the APNG specification does not allow"),
            (1, "declares num_frames 1, but the file has 4 frames"),
            (3, "declares num_frames 3, but the file has 4 frames"),
        ] as [(UInt32, String)])
    func countDisagrees(_ declared: UInt32, _ evidence: String) throws {
        var builder = Self.builder(frames: 4)
        builder.declaredFrameCount = declared
        let (info, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(info.frameCount == 4)
        #expect(frames == (0..<4).map { APNGBuilder.solid(3, 2, Self.color($0)) })
        #expect(info.frames.map(\.delay) == Array(repeating: .milliseconds(30), count: 4))
        #expect(info.warnings.count == 1, "\(info.warnings)")
        let warning = info.warnings.first ?? ""
        #expect(warning.contains("num_frames \(declared)") && warning.contains(evidence), "\(warning)")
        #expect(warning.contains("reading the 4 frames that are there"), "\(warning)")
        #expect(!warning.contains("broken"), "\(warning)")
    }

    @Test(
        "a valid num_frames above the fcTL count is an error: the default image, with a warning", arguments: [5, 100])
    func countTooHigh(_ declared: UInt32) throws {
        var builder = Self.builder(frames: 4)
        builder.declaredFrameCount = declared
        let (info, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(info.frameCount == 1 && frames == [APNGBuilder.solid(3, 2, Self.color(0))])
        #expect(info.warnings.count == 1, "\(info.warnings)")
        let warning = info.warnings.first ?? ""
        #expect(
            warning.hasPrefix("broken APNG animation")
                && warning.contains("acTL declares num_frames \(declared), but the file has 4 fcTL chunks"),
            "\(warning)")
    }

    @Test("a count that agrees gives no warning")
    func countAgrees() throws {
        let (info, frames) = try APNGBuilder.decodeAll(Self.builder(frames: 3).build())
        #expect(info.frameCount == 3 && frames.count == 3)
        #expect(info.warnings.isEmpty)
    }

    @Test("frames are still read one at a time: the frame table holds offsets, not pixels")
    func framesStayOnDemand() throws {
        var builder = Self.builder(frames: 5)
        builder.declaredFrameCount = 0xFFFF_FFFF
        let source = try #require(try APNGSource(data: builder.build(), limits: .default))
        #expect(source.frames.count == 5)
        #expect(source.frames.allSatisfy { !$0.data.isEmpty })
        let reader = try source.makeFrameReader(depth: .eight)
        var count = 0
        while let frame = try reader.nextFrame() {
            #expect(frame.image == APNGBuilder.solid(3, 2, Self.color(count)))
            count += 1
        }
        #expect(count == 5)
    }
}
