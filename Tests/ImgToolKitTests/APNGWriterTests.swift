import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `APNGWriter` round trips through our own APNG decoder: frames, delays, plays, sub-frames.
@Suite("APNG writer", .timeLimit(.minutes(5)))
struct APNGWriterTests {
    /// `count` frames of `width` x `height`: noise, then each frame changes a random rectangle
    /// (sometimes nothing, sometimes everything) of the one before.
    static func frames(
        count: Int, width: Int, height: Int, depth: SampleDepth, opaque: Bool, seed: UInt64
    ) -> [PixelBuffer] {
        var generator = SeededRandom(seed: seed)
        func noise(_ w: Int, _ h: Int) -> PixelBuffer {
            var image =
                depth == .eight
                ? TestImages.noise8(width: w, height: h, seed: generator.next())
                : TestImages.noise16(width: w, height: h, seed: generator.next())
            if opaque {
                switch image.samples {
                case .rgba8(var samples):
                    for index in stride(from: 3, to: samples.count, by: 4) { samples[index] = .max }
                    image = PixelBuffer(width: w, height: h, rgba8: samples)
                case .rgba16(var samples):
                    for index in stride(from: 3, to: samples.count, by: 4) { samples[index] = .max }
                    image = PixelBuffer(width: w, height: h, rgba16: samples)
                }
            }
            return image
        }
        var result = [noise(width, height)]
        while result.count < count {
            var next = result[result.count - 1]
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: break  // unchanged
            case 1: next = noise(width, height)
            default:
                let w = Int.random(in: 1...width, using: &generator)
                let h = Int.random(in: 1...height, using: &generator)
                let x = Int.random(in: 0...width - w, using: &generator)
                let y = Int.random(in: 0...height - h, using: &generator)
                next.draw(noise(w, h), at: (x, y), blend: .source)
            }
            result.append(next)
        }
        return result
    }

    /// The frames a player shows: each run of equal consecutive frames as one, with their delays
    /// summed (what the writer stores when it can correct acTL).
    static func merged(_ frames: [PixelBuffer], delays: [Duration]) -> (frames: [PixelBuffer], delays: [Duration]) {
        var kept: [PixelBuffer] = []
        var summed: [Duration] = []
        for (frame, delay) in zip(frames, delays) {
            if let last = kept.last, last == frame {
                summed[summed.count - 1] += delay
            } else {
                kept.append(frame)
                summed.append(delay)
            }
        }
        return (kept, summed)
    }

    static func encode(
        _ frames: [PixelBuffer], delays: [Duration], plays: Int = 0, hasAlpha: Bool = true
    ) throws -> [UInt8] {
        let writer = try APNGWriter(
            width: frames[0].width, height: frames[0].height, frameCount: frames.count, plays: plays,
            depth: frames[0].depth, hasAlpha: hasAlpha)
        for (frame, delay) in zip(frames, delays) { try writer.append(frame, delay: delay) }
        try writer.finish()
        return writer.data
    }

    @Test(
        "Frames come back exactly: 8 and 16 bits, with and without alpha",
        arguments: [(SampleDepth.eight, false), (.eight, true), (.sixteen, false), (.sixteen, true)])
    func roundTrip(depth: SampleDepth, opaque: Bool) throws {
        for seed: UInt64 in 1...4 {
            let frames = Self.frames(count: 12, width: 23, height: 17, depth: depth, opaque: opaque, seed: seed)
            let delays = (0..<12).map { Duration.milliseconds(20 + 10 * $0) }
            let bytes = try Self.encode(frames, delays: delays, plays: 3, hasAlpha: !opaque)
            let (info, decoded) = try APNGBuilder.decodeAll(bytes, depth: nil)
            let shown = Self.merged(frames, delays: delays)
            #expect(info.format == .apng)
            #expect(info.colorType == (opaque ? .rgb : .rgba))
            #expect(info.bitDepth == (depth == .eight ? 8 : 16))
            #expect(info.plays == 3 && info.loopValue == 3)
            #expect(info.frames.map(\.delay) == shown.delays)
            #expect(decoded.count == shown.frames.count)
            for (index, (expected, actual)) in zip(shown.frames, decoded).enumerated() {
                #expect(firstDifference(expected, actual) == nil, "seed \(seed), frame \(index)")
            }
        }
    }

    @Test("Later frames store only the rectangle that changed; an unchanged frame adds its delay to the one before")
    func subFrames() throws {
        var second = TestImages.noise8(width: 40, height: 30, seed: 9)
        let first = second
        second.draw(MergeFixtures.solid([1, 2, 3, 4], width: 5, height: 3), at: (7, 11), blend: .source)
        var third = second
        third.draw(MergeFixtures.solid([200, 2, 3, 255]), at: (39, 29), blend: .source)
        let frames = [first, second, second, second, third]
        let delays: [Duration] = [
            .milliseconds(50), .milliseconds(50), .milliseconds(30), .milliseconds(20), .seconds(1),
        ]
        let bytes = try Self.encode(frames, delays: delays)
        let (info, decoded) = try APNGBuilder.decodeAll(bytes)
        #expect(
            info.frames.map(\.region) == [
                FrameRegion(x: 0, y: 0, width: 40, height: 30), FrameRegion(x: 7, y: 11, width: 5, height: 3),
                FrameRegion(x: 39, y: 29, width: 1, height: 1),
            ])
        #expect(info.frames.map(\.delay) == [.milliseconds(50), .milliseconds(100), .seconds(1)])
        #expect(info.frames.allSatisfy { $0.disposal == .none && $0.blend == .source })
        #expect(decoded == [first, second, third])
        // The fcTL and fdAT sequence numbers run 0, 1, 2, ... with IDAT for frame 0, and acTL
        // counts the frames stored.
        let chunks = PNGBytes.chunks(of: bytes)
        #expect(chunks.map(\.type) == ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fcTL", "fdAT", "IEND"])
        let actl = try #require(chunks.first { $0.type == "acTL" })
        #expect(Array(bytes[actl.offset + 8..<actl.offset + 12]) == [0, 0, 0, 3])
    }

    @Test("On a pipe, where acTL cannot be corrected, an unchanged frame stores one pixel and keeps its delay")
    func repeatsOnAPipe() async throws {
        let first = TestImages.noise8(width: 16, height: 9, seed: 4)
        var second = first
        second.draw(MergeFixtures.solid([9, 8, 7, 255], width: 2, height: 2), at: (3, 3), blend: .source)
        let frames = [first, first, second]
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = ends[0]
        let drained = Task.detached { () -> [UInt8] in
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            close(reader)
            return bytes
        }
        let writer = try APNGWriter(fileDescriptor: ends[1], width: 16, height: 9, frameCount: 3, plays: 0)
        for frame in frames { try writer.append(frame, delay: .milliseconds(40)) }
        try writer.finish()
        close(ends[1])
        let bytes = await drained.value
        let (info, decoded) = try APNGBuilder.decodeAll(bytes)
        #expect(info.frames.map(\.region)[1] == FrameRegion(x: 0, y: 0, width: 1, height: 1))
        #expect(info.frames.map(\.delay) == Array(repeating: .milliseconds(40), count: 3))
        #expect(decoded == frames)
    }

    @Test("A file descriptor gets the same bytes as memory, repeated frames merged there too")
    func toFileDescriptor() throws {
        var frames = Self.frames(count: 4, width: 64, height: 48, depth: .eight, opaque: false, seed: 3)
        frames.insert(frames[1], at: 2)
        let delays = Array(repeating: Duration.milliseconds(40), count: 5)
        let folder = try makeTemporaryFolder("apng-writer")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.png"
        try AtomicFileWriter.write(to: path) { (fd) throws(ImgToolError) in
            let writer = try APNGWriter(fileDescriptor: fd, width: 64, height: 48, frameCount: 5, plays: 0)
            for frame in frames { try writer.append(frame, delay: .milliseconds(40)) }
            try writer.finish()
            #expect(writer.data.isEmpty)
        }
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == (try Self.encode(frames, delays: delays)))
    }

    @Test("Misuse is refused with a sentence: wrong size, too many or too few frames, alpha without a channel")
    func misuse() throws {
        let writer = try APNGWriter(width: 4, height: 4, frameCount: 1, plays: 0, hasAlpha: false)
        #expect(throws: ImgToolError.self) { try writer.append(PixelBuffer(width: 3, height: 4), delay: .zero) }
        do {
            try writer.append(MergeFixtures.solid([1, 2, 3, 254], width: 4, height: 4), delay: .zero)
            Issue.record("a translucent frame was stored without alpha")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("translucent"))
        }
        do {
            try writer.finish()
            Issue.record("finished with no frame")
        } catch {
            #expect(error.message.contains("declared with 1 frames but 0 were added"))
        }
        try writer.append(MergeFixtures.solid([1, 2, 3, 255], width: 4, height: 4), delay: .zero)
        #expect(throws: ImgToolError.self) {
            try writer.append(MergeFixtures.solid([1, 2, 3, 255], width: 4, height: 4), delay: .zero)
        }
        try writer.finish()
        #expect(throws: ImgToolError.self) { try APNGWriter(width: 0, height: 4, frameCount: 1, plays: 0) }
        #expect(throws: ImgToolError.self) { try APNGWriter(width: 4, height: 4, frameCount: 0, plays: 0) }
        #expect(throws: ImgToolError.self) { try APNGWriter(width: 4, height: 4, frameCount: 1, plays: -1) }
    }

    @Test(
        "Delays with an exact 16-bit fraction are written exactly",
        arguments: [
            (Duration.milliseconds(40), 1, 25), (.milliseconds(70), 7, 100), (.seconds(1) / 3, 1, 3),
            (.zero, 0, 1), (.milliseconds(65535), 13107, 200), (.seconds(100), 100, 1),
            (.milliseconds(1001) / 7, 143, 1000),
        ])
    func exactDelays(delay: Duration, numerator: Int, denominator: Int) {
        let fraction = APNGDelay.exact(delay)
        #expect(fraction == APNGDelay(numerator: UInt16(numerator), denominator: UInt16(denominator)))
    }

    @Test("Delays without one are written in milliseconds whose running sum never drifts")
    func inexactDelays() {
        #expect(APNGDelay.exact(.microseconds(12_345)) == nil)
        #expect(APNGDelay.exact(.seconds(70_000)) == nil)
        var writer = APNGDelayWriter()
        var exact = Duration.zero
        var written = Duration.zero
        for _ in 0..<1000 {
            let delay = Duration.microseconds(12_345)
            exact += delay
            written += writer.next(delay).duration
            #expect(abs((written - exact) / .milliseconds(1)) <= 0.5)
        }
        // Too long for milliseconds: tenths of a second, then seconds.
        #expect(APNGDelay.milliseconds(70_000) == APNGDelay(numerator: 7000, denominator: 100))
        #expect(APNGDelay.milliseconds(100_000_000) == APNGDelay(numerator: 65535, denominator: 1))
    }

    @Test("append(from:) compresses on several tasks yet writes in order, reporting each frame written")
    func pipelined() async throws {
        let frames = Self.frames(count: 30, width: 40, height: 30, depth: .eight, opaque: false, seed: 11)
        let delays = (0..<30).map { Duration.milliseconds(10 * ($0 % 7) + 20) }
        let writer = try APNGWriter(width: 40, height: 30, frameCount: 30, plays: 1)
        var next = 0
        let reported = Locked<[Int]>([])
        try await writer.append(
            from: { () throws(ImgToolError) in
                defer { next += 1 }
                return next < frames.count ? (frames[next], delays[next]) : nil
            },
            progress: { written in reported.withLock { $0.append(written) } })
        try writer.finish()
        #expect(reported.withLock { $0 } == Array(1...30))
        #expect(writer.data == (try Self.encode(frames, delays: delays, plays: 1)))
    }
}
