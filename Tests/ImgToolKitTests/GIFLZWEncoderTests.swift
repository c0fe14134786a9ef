import TestSupport
import Testing

@testable import ImgToolKit

/// The C LZW encoder writes exactly what the Swift encoder it replaced wrote, and giflib decodes
/// it back to the indices.
@Suite("GIF LZW encoder")
struct GIFLZWEncoderTests {
    @Test("the same bytes as the Swift reference, and giflib decodes them", arguments: [2, 3, 4, 8])
    func sameBytes(minimumCodeSize: Int) {
        for seed in UInt64(1)...40 {
            var random = SeededRandom(seed: seed &* 13 &+ UInt64(minimumCodeSize))
            // Empty, tiny, and long enough to fill the table several times; runs of one index
            // and noise.
            let count = [0, 1, 2, 255, 256, 4096, 20_480, 69_632][Int(seed % 8)]
            let colors = 1 << minimumCodeSize
            var indices: [UInt8] = []
            while indices.count < count {
                let index = UInt8(random.next() % UInt64(colors))
                indices += [UInt8](repeating: index, count: 1 + Int(random.next() % UInt64(1 + seed % 9)))
            }
            indices = Array(indices.prefix(count))
            var fast: [UInt8] = [0xAA]
            var reference: [UInt8] = [0xAA]
            indices.withUnsafeBufferPointer {
                GIFLZWEncoder.encode($0, minimumCodeSize: minimumCodeSize, into: &fast)
                ReferenceGIFLZWEncoder.encode($0, minimumCodeSize: minimumCodeSize, into: &reference)
            }
            #expect(fast == reference, "minimum code size \(minimumCodeSize), \(count) indices, seed \(seed)")
            guard count > 0 else { continue }
            let width = count >= 256 ? 256 : count
            var gif = GIFBuilder(
                width: width, height: count / width, globalColors: (0..<colors).map { (UInt8($0), 0, 0) })
            gif.raw([0x2C, 0, 0, 0, 0] + GIFBuilder.word(width) + GIFBuilder.word(count / width) + [0])
            gif.raw(Array(fast.dropFirst()))
            #expect(
                GIFCopyingLZWTests.decode(gif.build(), copying: false) == .pixels(indices),
                "giflib decodes \(count) indices, seed \(seed)")
        }
    }
}
