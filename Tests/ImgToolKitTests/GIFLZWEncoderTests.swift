import TestSupport
import Testing

@testable import ImgToolKit

/// The C LZW encoder, clearing a full table at once, writes exactly what the Swift encoder it
/// replaced wrote; what it chooses (a full table kept, pixels that may be transparent) is never
/// longer and giflib decodes it back to the indices.
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
            var chosen: [UInt8] = [0xAA]
            indices.withUnsafeBufferPointer {
                GIFLZWEncoder.encode(
                    $0, mayBeTransparent: nil, transparentIndex: nil, minimumCodeSize: minimumCodeSize,
                    keepingFullTable: false, into: &fast)
                GIFLZWEncoder.encode($0, minimumCodeSize: minimumCodeSize, into: &chosen)
                ReferenceGIFLZWEncoder.encode($0, minimumCodeSize: minimumCodeSize, into: &reference)
            }
            #expect(fast == reference, "minimum code size \(minimumCodeSize), \(count) indices, seed \(seed)")
            #expect(chosen.count <= fast.count)
            guard count > 0 else { continue }
            for data in [fast, chosen] {
                #expect(
                    Self.decoded(data, count: count, colors: colors) == .pixels(indices),
                    "giflib decodes \(count) indices, seed \(seed)")
            }
        }
    }

    @Test(
        "A full table kept while it pays: a repeated pattern compresses far better than with a clear each time the table fills"
    )
    func keepsFullTable() {
        var random = SeededRandom(seed: 7)
        let period = (0..<640).map { _ in UInt8(random.next() % 16) }
        let indices = (0..<128).flatMap { _ in period }
        var clearing: [UInt8] = []
        var chosen: [UInt8] = []
        indices.withUnsafeBufferPointer {
            GIFLZWEncoder.encode(
                $0, mayBeTransparent: nil, transparentIndex: nil, minimumCodeSize: 4, keepingFullTable: false,
                into: &clearing)
            GIFLZWEncoder.encode($0, minimumCodeSize: 4, into: &chosen)
        }
        #expect(Double(chosen.count) < Double(clearing.count) * 0.75, "\(chosen.count) against \(clearing.count) bytes")
        #expect(Self.decoded([0xAA] + chosen, count: indices.count, colors: 16) == .pixels(indices))
    }

    @Test(
        "Pixels that may be transparent: each decodes to its index or the transparent index, and the data is shorter than all drawn transparent",
        arguments: [2, 8])
    func mayBeTransparent(minimumCodeSize: Int) {
        let colors = 1 << minimumCodeSize
        let transparent = UInt8(colors - 1)
        for seed in UInt64(1)...12 {
            var random = SeededRandom(seed: seed)
            // Runs of colours (a drawing), most pixels unchanged (may be transparent), with
            // changed stretches that cut across the runs.
            let count = 20_480
            var indices: [UInt8] = []
            while indices.count < count {
                let color = UInt8(random.next() % UInt64(colors - 1))
                indices += [UInt8](repeating: color, count: 1 + Int(random.next() % 12))
            }
            var flags: [UInt8] = []
            while flags.count < count {
                let unchanged: UInt8 = random.next() % 4 != 0 ? 1 : 0
                flags += [UInt8](repeating: unchanged, count: 1 + Int(random.next() % 40))
            }
            indices = Array(indices.prefix(count))
            flags = Array(flags.prefix(count))
            let allTransparent = zip(indices, flags).map { $1 == 1 ? transparent : $0 }
            var choosing: [UInt8] = [0xAA]
            var fixed: [UInt8] = [0xAA]
            _ = indices.withUnsafeBufferPointer { indices in
                flags.withUnsafeBufferPointer { flags in
                    GIFLZWEncoder.encode(
                        indices, mayBeTransparent: flags, transparentIndex: transparent,
                        minimumCodeSize: minimumCodeSize, into: &choosing)
                }
            }
            allTransparent.withUnsafeBufferPointer {
                GIFLZWEncoder.encode($0, minimumCodeSize: minimumCodeSize, into: &fixed)
            }
            #expect(choosing.count < fixed.count, "seed \(seed): \(choosing.count) against \(fixed.count) bytes")
            guard case .pixels(let decoded) = Self.decoded(choosing, count: count, colors: colors) else {
                Issue.record("giflib refused the data, seed \(seed)")
                continue
            }
            let wrong = (0..<count).filter {
                decoded[$0] != indices[$0] && !(flags[$0] == 1 && decoded[$0] == transparent)
            }
            #expect(wrong.isEmpty, "seed \(seed): pixels \(wrong.prefix(5)) decode to neither value")
        }
    }

    /// `data` (one byte of padding first, then an image data block) decoded by giflib as a
    /// 256-wide image of `count` indices (a single row when fewer).
    static func decoded(_ data: [UInt8], count: Int, colors: Int) -> GIFCopyingLZWTests.Outcome {
        let width = count >= 256 ? 256 : count
        var gif = GIFBuilder(width: width, height: count / width, globalColors: (0..<colors).map { (UInt8($0), 0, 0) })
        gif.raw([0x2C, 0, 0, 0, 0] + GIFBuilder.word(width) + GIFBuilder.word(count / width) + [0])
        gif.raw(Array(data.dropFirst()))
        return GIFCopyingLZWTests.decode(gif.build(), copying: false)
    }
}
