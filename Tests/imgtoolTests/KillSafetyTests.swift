import Foundation
import ImgToolKit
import TestSupport
import Testing

/// A run killed at any moment leaves either the old output or the new one, never a half file.
@Suite("Output survives SIGKILL", .timeLimit(.minutes(5)))
struct KillSafetyTests {
    @Test("merge --force killed at many points leaves the old file or the whole new one")
    func killedMerge() throws {
        let folder = try makeTemporaryFolder("kill")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Noisy inputs, so that encoding takes long enough to be interrupted.
        try writeTestPNG(TestImages.noise8(width: 1200, height: 900, seed: 12345), to: folder + "/a.png")
        try writeTestPNG(TestImages.gradient(width: 300, height: 200), to: folder + "/b.png")
        let full = try CLIRunner.run(["merge", "a.png", "b.png", "-o", "reference.png"], in: folder)
        #expect(full.status == 0, "\(full.stderr)")
        let expected = try ImageSource(contentsOf: folder + "/reference.png").frame(at: 0).image
        let old = Data("the previous output".utf8)
        // Kill points, each a shell test of the folder: at once, as soon as the temporary file
        // appears, and once it holds part of the output (if it is written in parts).
        let temporary = "find . -maxdepth 1 -name '.out.png.*'"
        let points = ["true", "\(temporary) | grep -q .", "\(temporary) -size +256k | grep -q ."]
        var outcomes: Set<String> = []
        for point in points {
            try old.write(to: URL(fileURLWithPath: folder + "/out.png"))
            _ = try CLIRunner.signal(
                SIGKILL, ["merge", "a.png", "b.png", "-o", "out.png", "--force"], in: folder, when: point)
            let now = try Data(contentsOf: URL(fileURLWithPath: folder + "/out.png"))
            if now == old {
                outcomes.insert("old")
                continue
            }
            // Anything else must be the complete new image.
            let image = try ImageSource(data: [UInt8](now), name: "out.png").frame(at: 0).image
            #expect(image == expected, "killed when `\(point)` held: a different image")
            outcomes.insert("new")
        }
        #expect(outcomes.contains("old"), "no kill landed before the rename: the test proves nothing")
    }
}
