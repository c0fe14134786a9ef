import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// The code shown in the DocC articles, compiled and run here so that it stays true.
@Suite("Documentation examples", .timeLimit(.minutes(5)))
struct DocumentationTests {
    @Test("PlayingAnimations: animateImage with a stop flag")
    func animateImageExample() async throws {
        let folder = try makeTemporaryFolder("doc")
        let still = try PNGEncoder().encode(PixelBuffer(width: 3, height: 2))
        try Data(still).write(to: URL(fileURLWithPath: folder + "/spinner.png"))

        let seen = Locked<[Int]>([])
        let status = await animateImage(
            at: URL(fileURLWithPath: folder + "/spinner.png"),
            options: AnimationOptions(delayTime: .milliseconds(1), plays: 12, latePolicy: .wait)
        ) { index, frame, stop in
            seen.withLock { $0.append(frame.width) }
            if seen.withLock({ $0.count }) == 10 { stop = true }
        }
        #expect(status == .ok)
        #expect(seen.withLock { $0 } == Array(repeating: 3, count: 10))
    }

    @Test("PlayingAnimations: AnimationFrames as an async sequence")
    func framesExample() async throws {
        let bytes = try PNGEncoder().encode(PixelBuffer(width: 2, height: 2))
        var count = 0
        for try await frame in AnimationFrames(data: bytes, name: "anim.png") {
            #expect(frame.content.width == 2)
            count += 1
        }
        #expect(count == 1)
    }

    @Test("ImgToolKit landing page: open once, read frames in order")
    func landingExample() throws {
        let bytes = try PNGEncoder().encode(PixelBuffer(width: 5, height: 4))
        let source = try ImageSource(data: bytes, name: "anim.gif")
        #expect(source.info.frameCount == 1)
        let reader = try source.makeFrameReader()
        var digests: [String] = []
        while let frame = try reader.nextFrame() { digests.append(frame.image.rgba8Digest()) }
        #expect(digests.count == 1)
    }

    @Test("Architecture: open any input, write it through the registry")
    func architectureExample() async throws {
        let folder = try makeTemporaryFolder("doc-architecture")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MergeFixtures.write(MergeAnimationTests.movingSquare(count: 3, delay: 5), to: folder + "/anim.gif")
        // The article's code, with the folder in front of each name.
        let registry = CodecRegistry.standard
        let source = try await ImageInput(folder + "/anim.gif").open()
        let output = try ImageOutput(path: folder + "/anim.png", registry: registry)
        try await output.write(source)

        let written = try ImageSource(contentsOf: folder + "/anim.png")
        #expect(written.info.format == .apng && written.info.frameCount == 3)
    }

    @Test("MakingAnimations: a folder joined, bounced and written as a GIF")
    func makingAnimationsExample() async throws {
        let folder = try makeTemporaryFolder("doc-making")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/frames", withIntermediateDirectories: true)
        for index in [1, 2, 10] {
            try MergeFixtures.write(
                try MergeFixtures.png(TestImages.noise8(width: 6, height: 4, seed: UInt64(index))),
                to: folder + "/frames/frame\(index).png")
        }
        // The article's code, with the folder in front of each name.
        let names = try InputExpansion.expand(folder + "/frames/")
        let inputs = try names.map { (name) throws(ImgToolError) in try JoinInput.file(name) }
        let clip = try JoinedFrameSource(inputs, stillDelay: .milliseconds(40))
        let bounced = try await clip.applying([.timing(.boomerang)])
        try await ImageOutput(path: folder + "/clip.gif").write(bounced)

        #expect(names.map { ($0 as NSString).lastPathComponent } == ["frame1.png", "frame2.png", "frame10.png"])
        let info = try ImageSource(contentsOf: folder + "/clip.gif").info
        #expect(info.frameCount == 4 && info.frames.allSatisfy { $0.delay == .milliseconds(40) })
    }

    @Test("Merging: an animated overlay written as an APNG")
    func mergingExample() async throws {
        let folder = try makeTemporaryFolder("doc-merge")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MergeFixtures.write(
            try MergeFixtures.png(TestImages.noise8(width: 10, height: 8, seed: 4)), to: folder + "/photo.png")
        try MergeFixtures.write(MergeAnimationTests.movingSquare(count: 3, delay: 5), to: folder + "/sticker.gif")
        // The article's code, with the folder in front of each name (tests run in parallel, so
        // none may change the working directory).
        let result = try await ImageMerger().merge(
            background: try ImageInput(folder + "/photo.png"), overlays: [try ImageInput(folder + "/sticker.gif")])
        if let animation = result.animation {
            try await ImageOutput(path: folder + "/merged.png").write(animation)
        }

        let info = try ImageSource(contentsOf: folder + "/merged.png").info
        #expect(info.format == .apng && info.frameCount == 3)
    }

    @Test("Decoding: a GIF written as an APNG")
    func convertExample() async throws {
        let gif = try ImageSource(data: MergeAnimationTests.movingSquare(count: 4, delay: 4), name: "spinner.gif")
        let apng = try await gif.encodedPNG()  // same frames, delays and plays
        let info = try ImageSource(data: apng, name: "spinner.png").info
        #expect(info.format == .apng && info.frames.map(\.delay) == gif.info.frames.map(\.delay))
    }
}
