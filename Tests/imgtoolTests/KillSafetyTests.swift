import Foundation
import ImgToolKit
import Testing

/// A run killed at any moment leaves either the old output or the new one, never a half file.
@Suite("Output survives SIGKILL", .timeLimit(.minutes(3)))
struct KillSafetyTests {
    @Test("merge --force killed at many points leaves the old file or the whole new one")
    func killedMerge() async throws {
        let folder = try makeTemporaryFolder("kill")
        // Noisy inputs, so that encoding takes long enough to be interrupted.
        var state: UInt32 = 12345
        let noise = TestPixels.make(width: 1200, height: 900) { _, _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return [UInt8(truncatingIfNeeded: state >> 24), UInt8(truncatingIfNeeded: state >> 16), 77, 255]
        }
        try writeTestPNG(noise, to: folder + "/a.png")
        try writeTestPNG(gradient(width: 300, height: 200), to: folder + "/b.png")
        let old = Data("the previous output".utf8)
        var expected: PixelBuffer?
        var outcomes: Set<String> = []
        for delay in [0, 5, 20, 40, 80, 120, 200, 300, 450, 700] {
            try old.write(to: URL(fileURLWithPath: folder + "/out.png"))
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["merge", "a.png", "b.png", "-o", "out.png", "--force"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let now = try Data(contentsOf: URL(fileURLWithPath: folder + "/out.png"))
            if now == old {
                outcomes.insert("old")
                continue
            }
            // Anything else must be the complete new image.
            let image = try ImageSource(data: [UInt8](now), name: "out.png").frame(at: 0).image
            if expected == nil {
                let full = try CLIRunner.run(["merge", "a.png", "b.png", "-o", "reference.png"], in: folder)
                #expect(full.status == 0)
                expected = try ImageSource(contentsOf: folder + "/reference.png").frame(at: 0).image
            }
            #expect(image == expected, "killed after \(delay) ms: a different image")
            outcomes.insert("new")
        }
        #expect(outcomes.contains("old"), "no kill landed before the rename: the test proves nothing")
    }
}

/// Deterministic test pictures for the end-to-end tests.
enum TestPixels {
    static func make(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
        var samples: [UInt8] = []
        samples.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width { samples += pixel(x, y) }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }
}
