import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Decoding frames ahead on helper threads must change nothing but the speed: the same frames
/// in the same order, the same errors at the same frame, and helpers that end.
@Suite("Decode-ahead", .timeLimit(.minutes(5)))
struct DecodeAheadTests {
    /// A 24x16 animation of `count` frames that exercises everything composition depends on:
    /// regions of every size (some reaching past the screen), interlacing, local palettes,
    /// transparency and every disposal.
    static func busyAnimation(frames count: Int, seed: UInt64 = 11) -> [UInt8] {
        var random = GIFTestRandom(seed: seed)
        let palette = gifTestPalette + [GIFTestColor.yellow]
        var gif = GIFBuilder(width: 24, height: 16, globalColors: palette)
        gif.loop(0)
        for index in 0..<count {
            let width = 1 + Int(random.next() % 30)
            let height = 1 + Int(random.next() % 20)
            let x = Int(random.next() % 24)
            let y = Int(random.next() % 16)
            let pixels = (0..<width * height).map { _ in UInt8(random.next() % 5) }
            gif.control(
                delay: index % 7, disposal: Int(random.next() % 4), transparent: index % 3 == 0 ? 2 : nil)
            gif.image(
                x: x, y: y, width: width, height: height, indices: pixels,
                localColors: index % 5 == 0 ? palette.reversed() : nil, interlaced: index % 4 == 1)
        }
        return gif.build()
    }

    static func frames(of source: GIFSource, helpers: Int) throws(ImgToolError) -> [Frame] {
        let reader = GIFFrameReader(source: source, depth: .eight, helpers: helpers)
        var frames: [Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    @Test("one, two or three helpers give exactly the frames of a serial decode", arguments: [1, 2, 3])
    func sameFrames(helpers: Int) throws {
        for seed in UInt64(1)...8 {
            let source = try GIFSource(data: Self.busyAnimation(frames: 40, seed: seed), limits: .default)
            let serial = try Self.frames(of: source, helpers: 0)
            #expect(serial.count == 40)
            #expect(try Self.frames(of: source, helpers: helpers) == serial, "seed \(seed)")
        }
    }

    @Test("broken LZW data in the middle: the frames before it, then its error, whoever decodes it")
    func brokenFrame() throws {
        var gif = GIFBuilder(width: 4, height: 4, globalColors: gifTestPalette)
        for index in 0..<12 {
            if index == 6 {
                gif.rawImage(width: 4, height: 4, minimumCodeSize: 2, data: [0x28])  // two pixels, then the end
            } else {
                gif.image(width: 4, height: 4, indices: [UInt8](repeating: UInt8(index % 4), count: 16))
            }
        }
        let source = try GIFSource(data: gif.build(), limits: .default)
        for helpers in [0, 1, 2, 3] {
            let reader = GIFFrameReader(source: source, depth: .eight, helpers: helpers)
            for index in 0..<6 { #expect(try reader.nextFrame()?.index == index) }
            let error = try #require(throws: ImgToolError.self) { try reader.nextFrame() }
            #expect(error.code == .corrupt, "\(helpers) helpers")
            #expect(error.message.contains("frame 6"), "\(helpers) helpers: \(error.message)")
            #expect(throws: ImgToolError.self) { try reader.nextFrame() }
        }
    }

    /// A pipeline over `count` fake frames whose decode records which thread decoded what.
    static func countingPipeline(frames count: Int, helpers: Int, failing: Int? = nil) -> DecodeAhead<Int> {
        DecodeAhead(frameCount: count, helpers: helpers) { index, _, shouldStop throws(ImgToolError) in
            if shouldStop() { throw ImgToolError(.cancelled, "stopped") }
            if index == failing { throw ImgToolError(.corrupt, "frame \(index) is broken") }
            return index * 10
        }
    }

    @Test("frames come out in order, each once, whoever decoded them", arguments: [0, 1, 2, 3])
    func order(helpers: Int) throws {
        for _ in 0..<50 {
            let pipeline = Self.countingPipeline(frames: 64, helpers: helpers)
            for index in 0..<64 {
                let value = try pipeline.decoded(index, isCancelled: { false })
                #expect(value == index * 10)
                pipeline.recycle(value)
            }
            pipeline.stop()
        }
    }

    @Test("a failed frame: the frames before it, then its error for it and every later frame", arguments: [0, 1, 2])
    func failure(helpers: Int) throws {
        let pipeline = Self.countingPipeline(frames: 20, helpers: helpers, failing: 7)
        defer { pipeline.stop() }
        for index in 0..<7 { #expect(try pipeline.decoded(index, isCancelled: { false }) == index * 10) }
        for _ in 0..<2 {
            let error = try #require(throws: ImgToolError.self) { try pipeline.decoded(7, isCancelled: { false }) }
            #expect(error.message == "frame 7 is broken")
        }
    }

    @Test(
        "helpers held for the first frame start only when frame 1 is asked for",
        .enabled(if: ProcessThreads.isAvailable, "needs /proc/self/task"))
    func helpersWaitForFrameOne() async {
        // In a child process, so that the only threads starting are this pipeline's helpers.
        await #expect(processExitsWith: .success) {
            let before = Set(ProcessThreads.states().keys)
            let decodedFrames = Locked<[Int]>([])
            let pipeline = DecodeAhead<Int>(frameCount: 12, helpers: 2, helpersStartAt: 1) {
                index, _, _ throws(ImgToolError) in
                decodedFrames.withLock { $0.append(index) }
                return index
            }
            defer { pipeline.stop() }
            let first = try pipeline.decoded(0, isCancelled: { false })
            precondition(first == 0)
            // Frame 0 is out, frame 1 not yet asked for: the helpers leave both cores to frame 0
            // being drawn and shown. Wait until both have started and are waiting.
            let parked = blockUntil {
                let helpers = ProcessThreads.states().filter { !before.contains($0.key) }
                return helpers.count >= 2 && helpers.values.allSatisfy { $0 == "S" }
            }
            precondition(parked, "the helpers never started, or never waited")
            precondition(decodedFrames.withLock { $0 } == [0], "helpers decoded before frame 1 was asked for")
            for index in 1..<12 {
                let frame = try pipeline.decoded(index, isCancelled: { false })
                precondition(frame == index)
            }
            precondition(decodedFrames.withLock { $0.sorted() } == Array(0..<12), "every frame decoded once")
        }
    }

    @Test("frames asked for out of order are refused, not waited for")
    func outOfOrder() throws {
        let pipeline = Self.countingPipeline(frames: 10, helpers: 1)
        defer { pipeline.stop() }
        _ = try pipeline.decoded(0, isCancelled: { false })
        let again = try #require(throws: ImgToolError.self) { try pipeline.decoded(0, isCancelled: { false }) }
        #expect(again.code == .invalidArgument)
        let skipped = try #require(throws: ImgToolError.self) { try pipeline.decoded(5, isCancelled: { false }) }
        #expect(skipped.code == .invalidArgument)
    }

    @Test("stop() ends the helpers mid-animation, and nothing is decoded after it")
    func stopping() throws {
        let pipeline = Self.countingPipeline(frames: 30, helpers: 2)
        #expect(try pipeline.decoded(0, isCancelled: { false }) == 0)
        pipeline.stop()  // returns only once both helpers have returned
        pipeline.stop()
        let error = try #require(throws: ImgToolError.self) { try pipeline.decoded(1, isCancelled: { false }) }
        #expect(error.code == .cancelled)
    }

    @Test(
        "readers released part-way through free their helpers",
        .enabled(if: ProcessThreads.isAvailable, "needs /proc/self/task"))
    func releasedReaders() async {
        // In a child process, so that the only threads starting are the readers' helpers.
        await #expect(processExitsWith: .success) {
            let source = try GIFSource(data: DecodeAheadTests.busyAnimation(frames: 30), limits: .default)
            let before = Set(ProcessThreads.states().keys)
            func helpers() -> Int { ProcessThreads.states().keys.filter { !before.contains($0) }.count }
            for taken in 0..<10 {
                do {
                    let reader = GIFFrameReader(source: source, depth: .eight, helpers: 2)
                    for _ in 0..<taken { _ = try reader.nextFrame() }
                    precondition(helpers() == 2, "a reader with 2 helpers runs 2 threads")
                }
                // Released: its deinit stops the helpers, and their threads end.
                precondition(blockUntil { helpers() == 0 }, "\(helpers()) helper threads outlive a reader")
            }
        }
    }

    @Test("a reader with helpers in a cancelled task stops with a cancelled error")
    func cancellation() async throws {
        let source = try GIFSource(data: Self.busyAnimation(frames: 30), limits: .default)
        let task = Task { () -> (shown: Int, code: ImgToolError.Code?) in
            let reader = GIFFrameReader(source: source, depth: .eight, helpers: 2)
            var shown = 0
            do throws(ImgToolError) {
                _ = try reader.nextFrame()
                shown += 1
                withUnsafeCurrentTask { $0?.cancel() }
                while try reader.nextFrame() != nil { shown += 1 }
                return (shown, nil)
            } catch {
                return (shown, error.code)
            }
        }
        let outcome = await task.value
        #expect(outcome.shown == 1)
        #expect(outcome.code == .cancelled)
    }

    @Test("helpers only for animations with enough pixels to pay for a thread")
    func helperPolicy() {
        #expect(DecodeAhead<Int>.helpers(frameCount: 1, pixels: 1 << 30) == 0)
        #expect(DecodeAhead<Int>.helpers(frameCount: 40, pixels: 40 * 24 * 16) == 0)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(DecodeAhead<Int>.helpers(frameCount: 3, pixels: 3 * 512 * 256) == min(cores - 1, 3))
    }

    @Test(
        "a window of one frame: nothing is decoded more than one frame after the one asked for", arguments: [1, 2, 3])
    func windowOfOne(helpers: Int) throws {
        let asked = Locked(0)
        let furthest = Locked(0)
        let pipeline = DecodeAhead<Int>(frameCount: 60, helpers: helpers, window: 1) { index, _, _ in
            let ahead = index - asked.withLock { $0 }
            furthest.withLock { $0 = max($0, ahead) }
            return index
        }
        defer { pipeline.stop() }
        for index in 0..<60 {
            asked.withLock { $0 = index }
            #expect(try pipeline.decoded(index, isCancelled: { false }) == index)
        }
        #expect(furthest.withLock { $0 } <= 1)
    }

    @Test("APNG: one or two helpers give exactly the frames of a serial decode", arguments: [1, 2])
    func apngFrames(helpers: Int) throws {
        var builder = APNGBuilder(width: 6, height: 5)
        var random = GIFTestRandom(seed: 3)
        for index in 0..<24 {
            // Frame 0 is the default image, so it covers the canvas.
            let width = index == 0 ? 6 : 1 + Int(random.next() % 6)
            let height = index == 0 ? 5 : 1 + Int(random.next() % 5)
            let rows = (0..<height).map { _ in
                (0..<width).map { _ in (0..<4).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
            }
            builder.frames.append(
                APNGBuilder.Frame(
                    image: APNGBuilder.image(rows), x: Int(random.next() % UInt64(7 - width)),
                    y: Int(random.next() % UInt64(6 - height)), dispose: UInt8(index % 3), blend: UInt8(index / 3 % 2)))
        }
        let source = try #require(try APNGSource(data: builder.build(), limits: .default))
        func frames(_ helpers: Int) throws -> [PixelBuffer] {
            let reader = APNGFrameReader(source: source, depth: .eight, helpers: helpers)
            var frames: [PixelBuffer] = []
            while let frame = try reader.nextFrame() { frames.append(frame.image) }
            return frames
        }
        let serial = try frames(0)
        #expect(serial.count == 24)
        #expect(try frames(helpers) == serial)
    }
}
