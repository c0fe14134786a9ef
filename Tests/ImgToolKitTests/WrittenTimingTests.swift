import Testing

@testable import ImgToolKit

/// Frames of one colour each (frame i has red level 20 i), with given delays.
private struct TimedSource: FrameSource {
    var info: ImageInfo

    init(delaysMs: [Int], format: ImageFormat = .png, playTimes: Bool) {
        let frames = delaysMs.enumerated().map { index, delay in
            FrameInfo(
                index: index, delay: .milliseconds(delay), region: FrameRegion(x: 0, y: 0, width: 4, height: 4),
                disposal: .none, blend: .source)
        }
        info = ImageInfo(format: format, width: 4, height: 4, bitDepth: 8, colorType: .rgb, frames: frames, plays: 0)
        info.delaysArePlayTimes = playTimes
    }

    static func image(_ index: Int) -> PixelBuffer { APNGBuilder.solid(4, 4, [UInt8(20 * index), 90, 200, 255]) }

    var isOpaque: Bool { true }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        Reader(info: info)
    }

    final class Reader: FrameReader {
        let info: ImageInfo
        let image: (Int) -> PixelBuffer
        var next = 0
        init(info: ImageInfo, image: @escaping (Int) -> PixelBuffer = TimedSource.image) {
            self.info = info
            self.image = image
        }
        func nextFrame() throws(ImgToolError) -> Frame? {
            guard next < info.frameCount else { return nil }
            defer { next += 1 }
            return Frame(info: info.frames[next], image: image(next))
        }
    }
}

/// ``WrittenTiming``: no written frame under 20 ms, the play's total kept, each frame shown when
/// it is on screen in the source (issue 41).
@Suite("Written timing", .timeLimit(.minutes(5)))
struct WrittenTimingTests {
    static func ms(_ values: [Int]) -> [Duration] { values.map { .milliseconds($0) } }

    @Test("slots: 10 ms frames show every other one for 20 ms, long frames are kept, a short tail joins the one before")
    func examples() {
        let tens = WrittenTiming.slots(for: Self.ms(Array(repeating: 10, count: 10)))
        #expect(tens.map(\.frame) == [0, 2, 4, 6, 8])
        #expect(tens.map(\.delay) == Self.ms([20, 20, 20, 20, 20]))
        // A 15 ms frame before a 100 ms one: the long frame starts 5 ms late, at the 20 ms mark.
        let short = WrittenTiming.slots(for: Self.ms([15, 100]))
        #expect(short.map(\.frame) == [0, 1] && short.map(\.delay) == Self.ms([20, 95]))
        #expect(WrittenTiming.slots(for: Self.ms([100, 5])).map(\.delay) == Self.ms([105]))
        #expect(WrittenTiming.slots(for: Self.ms([0, 0, 0])).map(\.frame) == [2])
        let long = WrittenTiming.slots(for: Self.ms([20, 35, 1000, 20]))
        #expect(long.map(\.frame) == [0, 1, 2, 3] && long.map(\.delay) == Self.ms([20, 35, 1000, 20]))
    }

    @Test("every sequence of five delays from 0, 5, 10, 15, 20, 35 ms: the rules hold")
    func exhaustive() {
        let choices = [0, 5, 10, 15, 20, 35]
        var delays = [Int](repeating: 0, count: 5)
        func check() {
            let source = Self.ms(delays)
            let slots = WrittenTiming.slots(for: source)
            let total = source.reduce(.zero, +)
            let starts = source.indices.map { source[..<$0].reduce(.zero, +) }
            #expect(slots.reduce(.zero) { $0 + $1.delay } == total, "\(delays)")
            #expect(slots.count == 1 || slots.allSatisfy { $0.delay >= .milliseconds(20) }, "\(delays): \(slots)")
            #expect(zip(slots, slots.dropFirst()).allSatisfy { $0.frame < $1.frame }, "\(delays)")
            for slot in slots {
                // The frame shown is the one on screen when the slot starts: never early, < 20 ms late.
                let frame = slot.frame
                let onScreen =
                    starts[frame] <= slot.start
                    && (frame + 1 == starts.count || slot.start < starts[frame + 1])
                #expect(onScreen, "\(delays): \(slot)")
                #expect(slot.start - starts[frame] < .milliseconds(20), "\(delays): \(slot)")
            }
        }
        func fill(_ position: Int) {
            guard position < delays.count else { return check() }
            for choice in choices {
                delays[position] = choice
                fill(position + 1)
            }
        }
        fill(0)
    }

    /// The delays (ms) and frames of `bytes`, read back.
    static func readBack(_ bytes: [UInt8], _ name: String) throws -> (delays: [Double], frames: [PixelBuffer]) {
        let source = try ImageSource(data: bytes, name: name)
        let reader = try source.makeFrameReader(depth: .eight)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return (source.info.frames.map(\.delayMilliseconds), frames)
    }

    static let writers: [(String, any ImageCodec, ImageWriteOptions)] = [
        ("gif", GIFCodec(), ImageWriteOptions()),
        ("png", PNGCodec(), ImageWriteOptions()),
        ("webp", WebPCodec(), ImageWriteOptions(lossless: true)),
        ("avif", AVIFCodec(), ImageWriteOptions(compressionLevel: 9, lossless: true)),
        ("jxl", JXLCodec(), ImageWriteOptions(compressionLevel: 1, lossless: true)),
    ]

    @Test(
        "10 ms play times written to GIF, APNG, WebP, AVIF and JPEG XL: every delay 20 ms, the total kept, frames 0, 2, 4, ...",
        arguments: 0..<5)
    func shortFramesFold(_ writer: Int) async throws {
        let (name, codec, options) = Self.writers[writer]
        let source = TimedSource(delaysMs: Array(repeating: 10, count: 10), playTimes: true)
        let (delays, frames) = try Self.readBack(try await codec.encode(source, options: options), "out.\(name)")
        #expect(delays.allSatisfy { $0 >= 20 }, "\(name): \(delays)")
        #expect(abs(delays.reduce(0, +) - 100) <= 2, "\(name): \(delays)")
        #expect(frames == [0, 2, 4, 6, 8].map(TimedSource.image), "\(name)")
    }

    @Test("delays of 20 ms and more are written exactly, and the source is not wrapped", arguments: 0..<5)
    func longFramesKept(_ writer: Int) async throws {
        let (name, codec, options) = Self.writers[writer]
        let wanted = [20, 30, 50, 40, 1000]
        for playTimes in [false, true] {
            let source = TimedSource(delaysMs: wanted, playTimes: playTimes)
            #expect(source.timedForWriting(as: codec.format) is TimedSource)
            let (delays, frames) = try Self.readBack(try await codec.encode(source, options: options), "out.\(name)")
            #expect(delays == wanted.map(Double.init), "\(name)")
            #expect(frames == wanted.indices.map(TimedSource.image), "\(name)")
        }
    }

    @Test("a file's delays are written as stored, but folded into a GIF from another format")
    func storedShortDelays() async throws {
        // 0 and 10 ms play as 100 ms in browsers, whatever the format: kept, the output plays alike.
        let gif = TimedSource(delaysMs: [0, 10, 10, 40], format: .gif, playTimes: false)
        for format in [ImageFormat.gif, .apng, .webp, .avif, .jxl] {
            #expect(gif.timedForWriting(as: format) is TimedSource)
        }
        let (delays, frames) = try Self.readBack(try await WebPCodec().encode(gif), "out.webp")
        #expect(delays == [0, 10, 10, 40])
        #expect(frames.count == 4)
        // A GIF holds centiseconds: another format's delays are times, folded and rounded.
        let apng = TimedSource(delaysMs: [10, 10, 10, 10, 40], format: .apng, playTimes: false)
        let folded = try Self.readBack(try await GIFCodec().encode(apng), "out.gif")
        #expect(folded.delays == [20, 20, 40])
        #expect(folded.frames == [0, 2, 4].map(TimedSource.image))
    }

    @Test("a GIF's stored delays of 0 survive an operation: a cropped GIF written as a GIF keeps its frames")
    func derivedGIFKeepsStoredDelays() async throws {
        var gif = GIFBuilder(width: 2, height: 1, globalColors: [(0, 0, 0), (255, 255, 255), (255, 0, 0)])
        for index in 0..<3 {
            gif.control(delay: 0)
            gif.image(width: 2, height: 1, indices: [UInt8(index), 0])
        }
        let cropped = try await ImageSource(data: gif.build(), name: "zero.gif")
            .applying([.crop(CropOperation(.exact(FrameRegion(x: 0, y: 0, width: 1, height: 1))))])
        let (delays, frames) = try Self.readBack(try await GIFCodec().encode(cropped), "out.gif")
        #expect(delays == [0, 0, 0])
        #expect(frames.count == 3)
    }

    @Test("--speed 4 on 40 ms GIF frames: 10 ms play times, written to WebP as 20 ms frames, every other one")
    func speedThenWrite() async throws {
        let gif = try await GIFCodec().encode(TimedSource(delaysMs: Array(repeating: 40, count: 8), playTimes: false))
        let fast = try await ImageSource(data: gif, name: "in.gif").applying([.timing(.speed(4))])
        #expect(fast.info.delaysArePlayTimes)
        #expect(fast.info.frames.map(\.delay) == Array(repeating: .milliseconds(10), count: 8))
        let (delays, frames) = try Self.readBack(try await WebPCodec().encode(fast), "out.webp")
        #expect(delays == [20, 20, 20, 20])
        #expect(frames == [0, 2, 4, 6].map(TimedSource.image))
        // A GIF's stored 0 is the 100 ms players show: --speed 2 makes it 50 ms, as `animate --speed 2` plays it.
        var zero = GIFBuilder(width: 1, height: 1, globalColors: [(0, 0, 0), (255, 255, 255)])
        for index in 0..<2 {
            zero.control(delay: 0)
            zero.image(width: 1, height: 1, indices: [UInt8(index)])
        }
        let halved = try await ImageSource(data: zero.build(), name: "zero.gif").applying([.timing(.speed(2))])
        #expect(halved.info.frames.map(\.delay) == [.milliseconds(50), .milliseconds(50)])
    }
}

/// `count` frames of one and the same picture, each shown for `delay`.
private struct SameFrames: FrameSource {
    var info: ImageInfo

    init(count: Int, delay: Duration) {
        let frames = (0..<count).map { index in
            FrameInfo(
                index: index, delay: delay, region: FrameRegion(x: 0, y: 0, width: 4, height: 4), disposal: .none,
                blend: .source)
        }
        info = ImageInfo(format: .png, width: 4, height: 4, bitDepth: 8, colorType: .rgb, frames: frames, plays: 0)
        info.delaysArePlayTimes = true
        info.framesAreDerived = true
    }

    var isOpaque: Bool { true }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        TimedSource.Reader(info: info, image: { _ in TimedSource.image(3) })
    }
}

/// ``AnimationLimits``: a delay or a play count past what a format holds is clamped to it, with a
/// note, never stored modulo the field's width (issue 42).
@Suite("Animation limits", .timeLimit(.minutes(5)))
struct AnimationLimitsTests {
    /// Each writer's longest delay (ms) and most plays (`nil`: AVIF stores none; read back as 0).
    static let limits: [(longest: Double, plays: Int?)] = [
        (655_350, 65536), (65_535_000, Int(Int32.max)), (16_777_215, 65535), (4_294_967_295, nil),
        (4_294_967_295, Int(UInt32.max)),
    ]

    @Test("a delay past the format's range is clamped to it, not wrapped; plays too", arguments: 0..<5)
    func clamped(_ writer: Int) async throws {
        let (name, codec, base) = WrittenTimingTests.writers[writer]
        let (longest, mostPlays) = Self.limits[writer]
        // 5,000,000 s is past every format's range (2^32 ms wraps it to 705,032.704 s); 30,000 s
        // is past GIF's and WebP's.
        let source = TimedSource(delaysMs: [5_000_000_000, 40, 30_000_000], playTimes: true)
        var options = base
        options.plays = 5_000_000_000
        let bytes = try await codec.encode(source, options: options)
        let (delays, frames) = try WrittenTimingTests.readBack(bytes, "out.\(name)")
        let wanted = [5_000_000_000, 40, 30_000_000].map { min(Double($0), longest) }
        // AVIF's sequence lasts more than 2^32 ms: written in 10 ms units (AVIFWriter.timescale).
        let tolerance = name == "avif" ? 10.0 : 0
        #expect(zip(delays, wanted).allSatisfy { abs($0 - $1) <= tolerance }, "\(name): \(delays), wanted \(wanted)")
        #expect(frames == [0, 1, 2].map(TimedSource.image), "\(name)")
        #expect(try ImageSource(data: bytes, name: "out.\(name)").info.plays == mostPlays ?? 0, "\(name)")

        let notes = ImageOutput(path: "out.\(name)", codec: codec).notes(for: source, options: options)
        let limit = AnimationLimits.seconds(.milliseconds(Int(longest)))
        #expect(
            notes.contains {
                $0.contains("delays up to \(limit): frames 0 and 2 (up to 5000000 s) written as \(limit)")
            }
                || notes.contains { $0.contains("delays up to \(limit): frame 0 (5000000 s) written as \(limit)") },
            "\(name): \(notes)")
        if let mostPlays {
            #expect(
                notes.contains {
                    $0.contains(
                        "plays at most \(mostPlays) times (or forever): 5000000000 plays are written as \(mostPlays)")
                },
                "\(name): \(notes)")
        } else {
            #expect(
                notes.contains { $0.contains("no play count") && $0.contains("forever, not 5000000000 times") },
                "\(notes)")
        }
    }

    @Test("delays within range and plays 0 give no note")
    func noNote() {
        let source = TimedSource(delaysMs: [40, 655_350], playTimes: true)
        for (name, codec, options) in WrittenTimingTests.writers {
            #expect(
                ImageOutput(path: "out.\(name)", codec: codec).notes(for: source, options: options).isEmpty, "\(name)")
        }
    }

    @Test("GIF and APNG merge a repeated frame into the one before only while the sum fits a delay")
    func repeatsNotMergedPastTheLimit() async throws {
        for (name, codec, each) in [("gif", GIFCodec() as any ImageCodec, 400_000), ("png", PNGCodec(), 40_000_000)] {
            let source = SameFrames(count: 3, delay: .milliseconds(each))
            let (delays, _) = try WrittenTimingTests.readBack(try await codec.encode(source), "out.\(name)")
            // Merged whole, the three would need 3 x `each`, past the format's longest delay.
            #expect(delays == [Double(each), Double(each), Double(each)], "\(name): \(delays)")
        }
    }

    @Test("a WebP that would play longer than libwebp's 32-bit frame times is a clear error, not a wrapped time")
    func webPTotal() async {
        let source = TimedSource(delaysMs: Array(repeating: 16_777_215, count: 129), playTimes: true)
        await #expect {
            _ = try await WebPCodec().encode(source, options: ImageWriteOptions(lossless: true))
        } throws: { error in
            (error as? ImgToolError)?.code == .invalidArgument
                && (error as? ImgToolError)?.message.contains("libwebp's frame times end at 2147483.647 s") == true
        }
    }

    @Test("AVIF's timescale is coarser when the sequence's total would pass 2^32 - 1 of its units")
    func avifTimescale() throws {
        func scale(_ delaysMs: [Int]) throws -> UInt64 {
            try AVIFWriter.timescale(for: TimedSource(delaysMs: delaysMs, playTimes: true).info).timescale
        }
        #expect(try scale([40, 40]) == 1000)
        // Three frames of 2,000,000 s (--speed 0.001 --speed 0.001 --speed 0.02 on 40 ms): 6e9 ms
        // in all, which libavif 0.11 would store in mdhd and tkhd modulo 2^32.
        #expect(try scale([2_000_000_000, 2_000_000_000, 2_000_000_000]) == 100)
        #expect(try scale(Array(repeating: 4_294_967_295, count: 200)) == 1)
        #expect(throws: ImgToolError.self) { try scale(Array(repeating: 4_294_967_295, count: 2000)) }
    }

    @Test("frame lists and seconds as notes print them")
    func wording() {
        #expect(AnimationLimits.frameList([3]) == "frame 3")
        #expect(AnimationLimits.frameList(Array(0...23)) == "frames 0-23")
        #expect(AnimationLimits.frameList([1, 4, 5, 6, 9]) == "frames 1, 4-6 and 9")
        #expect(AnimationLimits.seconds(.milliseconds(655_350)) == "655.35 s")
        #expect(AnimationLimits.seconds(.milliseconds(16_777_215)) == "16777.215 s")
        #expect(AnimationLimits.seconds(.seconds(800)) == "800 s")
    }
}
