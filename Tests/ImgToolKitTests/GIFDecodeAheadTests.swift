import Foundation

import Testing

@testable import ImgToolKit

/// Decoding GIF frames ahead on helper threads must change nothing but the speed: the same
/// frames in the same order, the same errors at the same frame, and helpers that end.
@Suite("GIF decode-ahead")
struct GIFDecodeAheadTests {
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

    @Test("stop() ends the helpers mid-animation, and nothing is decoded after it")
    func stopping() throws {
        let source = try GIFSource(data: Self.busyAnimation(frames: 30), limits: .default)
        let pipeline = GIFDecodeAhead(source: source, helpers: 2)
        let first = try pipeline.indices(of: 0, isCancelled: { false })
        #expect(first.clip == source.frames[0].info.region.clipped(toWidth: 24, height: 16))
        pipeline.recycle(first)
        pipeline.stop()  // returns only once both helpers have returned
        pipeline.stop()
        let error = try #require(throws: ImgToolError.self) { try pipeline.indices(of: 1, isCancelled: { false }) }
        #expect(error.code == .cancelled)
    }

    @Test("readers released part-way through free their helpers")
    func releasedReaders() throws {
        let source = try GIFSource(data: Self.busyAnimation(frames: 30), limits: .default)
        for taken in 0..<10 {
            let reader = GIFFrameReader(source: source, depth: .eight, helpers: 2)
            for _ in 0..<taken { _ = try reader.nextFrame() }
            // Released here; its deinit joins the helpers, so 10 readers never pile up threads.
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
    func helperPolicy() throws {
        let still = try GIFSource(data: Self.busyAnimation(frames: 1), limits: .default)
        #expect(GIFDecodeAhead.helpers(for: still) == 0)
        let small = try GIFSource(data: Self.busyAnimation(frames: 40), limits: .default)
        #expect(GIFDecodeAhead.helpers(for: small) == 0)
        var gif = GIFBuilder(width: 512, height: 256, globalColors: gifTestPalette)
        for index in 0..<3 {
            gif.image(width: 512, height: 256, indices: [UInt8](repeating: UInt8(index), count: 512 * 256))
        }
        let large = try GIFSource(data: gif.build(), limits: .default)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(GIFDecodeAhead.helpers(for: large) == min(cores - 1, 3))
    }
}
