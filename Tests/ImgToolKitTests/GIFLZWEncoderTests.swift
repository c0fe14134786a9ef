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

    @Test(
        "Lossy: giflib decodes the indices it says it coded, each within 2.8x the error of its own colour, transparency kept, and the data shorter than exact"
    )
    func lossy() {
        // A 64-colour grey ramp dithered with noise, rows of 256, with transparent holes that must
        // stay and a band that may be transparent
        let table: [UInt32] = (0..<64).map { (value: Int) -> UInt32 in
            let grey = UInt8(value * 4)
            return GIFPixel.opaque(grey, grey, grey)
        }
        let transparent: UInt8 = 63
        for seed in UInt64(1)...6 {
            var random = SeededRandom(seed: seed)
            let (width, height) = (256, 64)
            var indices: [UInt8] = []
            var flags: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let ramp = x * 56 / width + Int(random.next() % 5)
                    let hole = (x / 16 + y / 16) % 7 == 0
                    indices.append(hole ? transparent : UInt8(ramp))
                    flags.append(!hole && y >= 48 ? 1 : 0)
                }
            }
            let maxError = GIFLossy.maxError(for: 80)
            var exact: [UInt8] = [0xAA]
            var lossy: [UInt8] = [0xAA]
            var coded = [UInt8](repeating: 0xEE, count: indices.count)
            indices.withUnsafeBufferPointer { indices in
                flags.withUnsafeBufferPointer { flags in
                    GIFLZWEncoder.encode(
                        indices, mayBeTransparent: flags, transparentIndex: transparent, minimumCodeSize: 6,
                        into: &exact)
                    coded.withUnsafeMutableBufferPointer { coded in
                        GIFLZWEncoder.encodeLossy(
                            indices, mayBeTransparent: flags, transparentIndex: transparent, minimumCodeSize: 6,
                            rowWidth: width, table: table, maxError: maxError, into: &lossy, coded: coded)
                    }
                }
            }
            #expect(
                Double(lossy.count) < Double(exact.count) * 0.8, "seed \(seed): \(lossy.count) against \(exact.count)")
            #expect(Self.decoded(lossy, count: indices.count, colors: 64) == .pixels(coded), "seed \(seed)")
            var worst: Float = 0
            for position in indices.indices {
                let (own, got) = (indices[position], coded[position])
                if own == transparent && flags[position] == 0 {
                    #expect(got == transparent, "seed \(seed): a hole at \(position) was drawn")
                } else if got == transparent {
                    #expect(flags[position] == 1, "seed \(seed): pixel \(position) turned transparent")
                } else {
                    worst = max(worst, OkLab(packed: table[Int(own)]).distance(to: OkLab(packed: table[Int(got)])))
                }
            }
            #expect(worst <= maxError * 2.8 + 1e-4, "seed \(seed): an error of \(worst)")
            #expect(worst > 0, "seed \(seed): nothing was approximated")
        }
    }

    @Test(
        "Flexible parsing: giflib decodes the same indices (transparent where allowed), for either table policy; smaller than greedy on most of a set of drawings",
        arguments: [false, true])
    func flexible(keepingFullTable: Bool) {
        var smaller = 0
        for seed in UInt64(1)...10 {
            var random = SeededRandom(seed: seed)
            let (colors, count) = (16, 24_576)
            let transparent = UInt8(colors - 1)
            var indices: [UInt8] = []
            while indices.count < count {
                let color = UInt8(random.next() % UInt64(colors - 1))
                indices += [UInt8](repeating: color, count: 1 + Int(random.next() % 9))
            }
            indices = Array(indices.prefix(count))
            let flags: [UInt8]? = seed % 2 == 0 ? (0..<count).map { _ in random.next() % 3 == 0 ? 1 : 0 } : nil
            var greedy: [UInt8] = [0xAA]
            var parsed: [UInt8] = [0xAA]
            indices.withUnsafeBufferPointer { indices in
                (flags ?? []).withUnsafeBufferPointer { flagged in
                    for flexible in [false, true] {
                        var data: [UInt8] = [0xAA]
                        GIFLZWEncoder.encode(
                            indices, mayBeTransparent: flags == nil ? nil : flagged, transparentIndex: transparent,
                            minimumCodeSize: 4, keepingFullTable: keepingFullTable, flexible: flexible, into: &data)
                        if flexible { parsed = data } else { greedy = data }
                    }
                }
            }
            if parsed.count < greedy.count { smaller += 1 }
            guard case .pixels(let decoded) = Self.decoded(parsed, count: count, colors: colors) else {
                Issue.record("giflib refused the data, seed \(seed)")
                continue
            }
            let wrong = (0..<count).filter {
                decoded[$0] != indices[$0] && !(flags?[$0] == 1 && decoded[$0] == transparent)
            }
            #expect(wrong.isEmpty, "seed \(seed): pixels \(wrong.prefix(5)) decode to neither value")
        }
        #expect(smaller >= 6, "flexible parsing smaller on \(smaller) of 10")
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

extension OkLab {
    /// The Euclidean distance to `other`.
    func distance(to other: OkLab) -> Float {
        let (dl, da, db) = (l - other.l, a - other.a, b - other.b)
        return (dl * dl + da * da + db * db).squareRoot()
    }
}
