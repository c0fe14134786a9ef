import TestSupport
import Testing

@testable import ImgToolKit

/// Hostile GIFs must give frames or a typed error, never a crash. Each case runs in a child
/// process (an exit test), so a trap fails one test instead of the whole run.
@Suite("GIF crash safety", .timeLimit(.minutes(5)))
struct GIFCrashTests {
    @Test("mutated and cut animations never crash the decoder")
    func mutatedFiles() async {
        await #expect(processExitsWith: .success) {
            var gif = GIFBuilder(width: 6, height: 5, globalColors: gifTestPalette)
            gif.loop(0)
            gif.control(delay: 3, disposal: 3, transparent: 1)
            gif.image(x: 1, y: 1, width: 4, height: 3, indices: (0..<12).map { UInt8($0 % 4) }, interlaced: true)
            gif.control(disposal: 2)
            gif.image(
                x: 3, y: 2, width: 5, height: 5, indices: (0..<25).map { UInt8($0 * 7 % 4) },
                localColors: gifTestPalette)
            gif.comment([])
            gif.image(width: 6, height: 5, indices: (0..<30).map { UInt8($0 % 3) })
            let original = gif.build()
            var generator = GIFTestRandom(seed: 7)
            for trial in 0..<3000 {
                var bytes = original
                for _ in 0...(trial % 4) {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                }
                if trial % 5 == 0 { bytes.removeLast(Int(generator.next() % UInt64(bytes.count))) }
                let limits = DecodingLimits(maxPixels: 1 << 20)
                do throws(ImgToolError) {
                    let source = try ImageSource(data: bytes, name: "fuzz.gif", limits: limits)
                    let reader = try source.makeFrameReader(depth: trial % 2 == 0 ? .eight : .sixteen)
                    while let frame = try reader.nextFrame() {
                        precondition(frame.image.width == source.info.width && frame.image.height == source.info.height)
                    }
                } catch {
                    precondition(error.input == "fuzz.gif")
                }
            }
        }
    }
}
