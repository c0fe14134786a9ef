import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Merges with animated inputs: the merged frames are the still merge of each input's frame on
/// the union timeline, and the APNG written holds exactly those frames and delays.
@Suite("Merging animations", .timeLimit(.minutes(5)))
struct MergeAnimationTests {
    /// A 6x4 GIF of `count` frames, each a different colour square moving right, `delay` cs each,
    /// with a transparent index so the background shows through.
    static func movingSquare(count: Int, delay: Int, loop: Int? = 0) -> [UInt8] {
        let colors: [GIFBuilder.RGB] = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
        var gif = GIFBuilder(width: 6, height: 4, globalColors: colors)
        if let loop { gif.loop(loop) }
        for frame in 0..<count {
            gif.control(delay: delay, disposal: 2, transparent: 0)
            var indices = [UInt8](repeating: 0, count: 24)
            for y in 1...2 {
                for x in frame % 5...frame % 5 + 1 { indices[y * 6 + x] = UInt8(1 + frame % 3) }
            }
            gif.image(width: 6, height: 4, indices: indices)
        }
        return gif.build()
    }

    /// Writes `files` into a new folder and returns their paths.
    static func write(_ files: [String: [UInt8]]) throws -> (folder: String, paths: [String: String]) {
        let folder = try makeTemporaryFolder("merge-animation")
        var paths: [String: String] = [:]
        for (name, bytes) in files {
            try MergeFixtures.write(bytes, to: folder + "/" + name)
            paths[name] = folder + "/" + name
        }
        return (folder, paths)
    }

    @Test("An animated overlay on a still background: one merged frame per overlay frame, composited exactly")
    func overlayAnimation() async throws {
        // Given a 10x8 translucent background and a 3-frame GIF overlay (40 ms, looping forever)
        let background = TestImages.noise8(width: 10, height: 8, seed: 21)
        let (folder, paths) = try Self.write([
            "bg.png": try MergeFixtures.png(background), "anim.gif": Self.movingSquare(count: 3, delay: 4),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let placement = try OverlayPlacement(gravity: .southEast, offsetX: -1, offsetY: 0, opacity: 0.6)
        // When they are merged
        let result = try await ImageMerger(placement: placement).merge(
            background: try ImageInput(paths["bg.png"] ?? ""), overlays: [try ImageInput(paths["anim.gif"] ?? "")])
        // Then the result is a 3-frame animation whose frames are the still merges of each overlay frame
        let animation = try #require(result.animation)
        #expect(animation.frameCount == 3 && animation.plays == 0 && !animation.isOpaque)
        let overlayFrames = try decodeGIFFrames(Self.movingSquare(count: 3, delay: 4), depth: .eight).1
        let reader = animation.makeFrameReader(depth: nil)
        for index in 0..<3 {
            let frame = try #require(try reader.nextFrame())
            let (image, delay) = (frame.image, frame.info.delay)
            let expected = OverlayCompositor.composite(
                [overlayFrames[index].image], onto: background, placement: placement)
            #expect(firstDifference(expected, image) == nil, "frame \(index)")
            #expect(delay == .milliseconds(40))
            if index == 0 { #expect(image == result.image) }
        }
        #expect(try reader.nextFrame() == nil)
        // And the APNG decodes to the same frames, delays and plays
        let (info, decoded) = try APNGBuilder.decodeAll(try await PNGCodec().encode(animation))
        #expect(info.frames.map(\.delay) == Array(repeating: .milliseconds(40), count: 3))
        #expect(info.plays == 0 && info.colorType == .palette)
        let again = animation.makeFrameReader(depth: nil)
        for frame in decoded { #expect(frame == (try again.nextFrame())?.image) }
    }

    @Test("Two animations of different lengths: the shorter loops inside the longer, which sets the plays")
    func twoAnimations() async throws {
        // Background: 2 frames of 150 ms, plays twice (loop value 1); overlay: 4 frames of 40 ms, forever.
        var gif = GIFBuilder(width: 6, height: 4, globalColors: [(10, 20, 30), (200, 100, 0)])
        gif.loop(1)
        for frame in 0..<2 {
            gif.control(delay: 15)
            gif.image(width: 6, height: 4, indices: (0..<24).map { UInt8(($0 + frame) % 2) })
        }
        let (folder, paths) = try Self.write([
            "bg.gif": gif.build(), "anim.gif": Self.movingSquare(count: 4, delay: 4),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await ImageMerger().merge(
            background: try ImageInput(paths["bg.gif"] ?? ""), overlays: [try ImageInput(paths["anim.gif"] ?? "")])
        let animation = try #require(result.animation)
        // Changes: background at 0 and 150; overlay at 0, 40, ..., 280 (160 starts its second
        // play). 160 is 10 ms after 150, a frame browsers would stretch to 100 ms, so it folds
        // into the frame at 150, which shows the overlay's frame 0 at once.
        #expect(
            animation.timeline.segments.map(\.start)
                == [0, 40, 80, 120, 150, 200, 240, 280].map { Duration.milliseconds($0) })
        #expect(
            animation.timeline.segments.map(\.frames) == [
                [0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3],
            ])
        #expect(animation.plays == 2)
        let (info, decoded) = try APNGBuilder.decodeAll(try await PNGCodec().encode(animation))
        #expect(info.frameCount == 8 && info.plays == 2)
        #expect(info.frames.map(\.delay) == animation.timeline.segments.map(\.duration))
        // Every decoded frame is the background frame with the overlay frame drawn over it.
        let backgroundFrames = try decodeGIFFrames(gif.build(), depth: .eight).1
        let overlayFrames = try decodeGIFFrames(Self.movingSquare(count: 4, delay: 4), depth: .eight).1
        for (segment, frame) in zip(animation.timeline.segments, decoded) {
            let expected = OverlayCompositor.composite(
                [overlayFrames[segment.frames[1]].image], onto: backgroundFrames[segment.frames[0]].image,
                placement: .centered)
            #expect(firstDifference(expected, frame) == nil, "segment at \(segment.start)")
        }
    }

    @Test("A merge gets the smallest storage that holds it (a palette for few colours); a 16-bit input keeps 16 bits")
    func layout() async throws {
        let opaque = TestImages.make8(width: 8, height: 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 7, 255] }
        let deep = TestImages.make16(width: 8, height: 8) { x, y in [UInt16(x * 999), UInt16(y * 77), 1, 65535] }
        let (folder, paths) = try Self.write([
            "opaque.png": try MergeFixtures.png(opaque), "deep.png": try PNGEncoder().encode(deep),
            "anim.gif": Self.movingSquare(count: 2, delay: 5),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let eight = try await ImageMerger().merge(
            background: try ImageInput(paths["opaque.png"] ?? ""), overlays: [try ImageInput(paths["anim.gif"] ?? "")])
        let eightInfo = try APNGBuilder.decodeAll(try await PNGCodec().encode(try #require(eight.animation))).info
        #expect(eightInfo.colorType == .palette && eightInfo.bitDepth == 8)
        let sixteen = try await ImageMerger().merge(
            background: try ImageInput(paths["deep.png"] ?? ""), overlays: [try ImageInput(paths["anim.gif"] ?? "")])
        let animation = try #require(sixteen.animation)
        #expect(animation.depth == .sixteen)
        let (info, frames) = try APNGBuilder.decodeAll(try await PNGCodec().encode(animation), depth: nil)
        #expect(info.colorType == .rgb && info.bitDepth == 16)
        #expect(frames.first == sixteen.image)
    }

    @Test("Overlay frames of 0 ms play as browsers show them (100 ms), not dropped")
    func zeroDelays() async throws {
        let (folder, paths) = try Self.write([
            "bg.png": try MergeFixtures.png(TestImages.noise8(width: 6, height: 4, seed: 2)),
            "fast.gif": Self.movingSquare(count: 3, delay: 0),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await ImageMerger().merge(
            background: try ImageInput(paths["bg.png"] ?? ""), overlays: [try ImageInput(paths["fast.gif"] ?? "")])
        let animation = try #require(result.animation)
        #expect(animation.timeline.segments.map(\.duration) == Array(repeating: .milliseconds(100), count: 3))
    }

    @Test("A merge past --max-frames or --max-total-pixels is refused as too large, naming the limit")
    func frameLimit() async throws {
        let (folder, paths) = try Self.write([
            "slow.gif": Self.movingSquare(count: 2, delay: 60_000), "fast.gif": Self.movingSquare(count: 2, delay: 2),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loader = ImageLoader(options: ImageLoader.Options(limits: DecodingLimits(maxFrames: 500)))
        do {
            _ = try await ImageMerger(loader: loader).merge(
                background: try ImageInput(paths["slow.gif"] ?? ""),
                overlays: [try ImageInput(paths["fast.gif"] ?? "")])
            Issue.record("a 60001-frame merge was accepted with --max-frames 500")
        } catch {
            #expect(error.code == .tooLarge && error.limit == .frames)
            #expect(error.message.contains("over the limit of 500"))
        }
        // Each input is within 100 pixels in all (96 and 3 x 24), the merge is not: 3 x 96.
        let (folder2, paths2) = try Self.write([
            "bg.png": try MergeFixtures.png(TestImages.noise8(width: 12, height: 8, seed: 2)),
            "anim.gif": Self.movingSquare(count: 3, delay: 5),
        ])
        defer { try? FileManager.default.removeItem(atPath: folder2) }
        let small = ImageLoader(options: ImageLoader.Options(limits: DecodingLimits(maxTotalPixels: 100)))
        do {
            _ = try await ImageMerger(loader: small).merge(
                background: try ImageInput(paths2["bg.png"] ?? ""), overlays: [try ImageInput(paths2["anim.gif"] ?? "")]
            )
            Issue.record("a merge of 288 pixels in all was accepted with --max-total-pixels 100")
        } catch {
            #expect(error.code == .tooLarge && error.message.contains("3 frames of 12x8"), "\(error)")
        }
    }
}
