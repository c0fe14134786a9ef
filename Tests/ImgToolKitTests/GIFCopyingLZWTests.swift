import TestSupport
import Testing

@testable import ImgToolKit

/// The copying LZW decoder (`CGif/gif_lzw.c`) must give giflib's pixels for every stream it
/// accepts, and hand every other stream back to giflib, so that errors and giflib's lenient
/// readings stay exactly as they were. Streams are drawn code by code, with giflib's table
/// rules, so that they reach the cases plain encoders never write: a code defined by itself,
/// a table left full without a clear, a code past the table, an early end code, data that ends
/// before the pixels or holds more than them.
@Suite("GIF copying LZW decoder", .timeLimit(.minutes(5)))
struct GIFCopyingLZWTests {
    /// What a decode gave: the frame's indices, or the error's code and message.
    enum Outcome: Equatable, CustomTestStringConvertible {
        case pixels([UInt8])
        case failed(ImgToolError.Code, String)

        var testDescription: String {
            switch self {
            case .pixels(let indices):
                "\(indices.count) indices, sum \(indices.reduce(0) { $0 &+ Int($1) }), first \(indices.prefix(8))"
            case .failed(let code, let message): "\(code): \(message)"
            }
        }
    }

    static func decode(_ bytes: [UInt8], copying: Bool) -> Outcome {
        do throws(ImgToolError) {
            let decoder = try GIFDecoder(data: bytes, copyingLZW: copying)
            defer { decoder.close() }
            _ = try decoder.nextRecord("the first record")
            let header = try decoder.readImageHeader("frame 0")
            let frame = GIFFrameIndices()
            try decoder.decodeIndices(
                header, into: frame, screenWidth: decoder.screenWidth, screenHeight: decoder.screenHeight,
                shouldStop: { false }, "frame 0")
            // The read position must be where giflib leaves it: the next record is the trailer.
            _ = try decoder.nextRecord("the record after frame 0")
            return .pixels(
                Array(UnsafeBufferPointer(start: frame.indices, count: frame.clip.width * frame.clip.height)))
        } catch {
            return .failed(error.code, error.message)
        }
    }

    /// Codes drawn with giflib's table rules and packed at giflib's widths.
    static func randomCodes(
        minimumCodeSize: Int, count: Int, clears: UInt64, oddities: UInt64, random: inout SeededRandom
    ) -> [UInt8] {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var runningCode = end + 1
        var bits = minimumCodeSize + 1
        var maxCode1 = 1 << bits
        var nextFree = clear + 2
        var last: Int?
        var packed = GIFLZW.BitWriter()
        for _ in 0..<count {
            let roll = random.next() % 1000
            let code: Int
            if roll < clears {
                code = clear
            } else if roll < clears + oddities {
                // An end code or a code past the table, somewhere in the stream.
                code = random.next() % 2 == 0 ? end : min(nextFree + 1 + Int(random.next() % 8), (1 << bits) - 1)
            } else if last == nil || roll % 2 == 0 {
                code = Int(random.next() % UInt64(clear))
            } else if roll % 7 == 1 && nextFree < 4096 {
                code = nextFree  // the entry this very code defines
            } else if nextFree > clear + 2 {
                code = clear + 2 + Int(random.next() % UInt64(nextFree - clear - 2))
            } else {
                code = Int(random.next() % UInt64(clear))
            }
            packed.write(code, width: bits)
            if runningCode < 4097 {
                runningCode += 1
                if runningCode > maxCode1 && bits < 12 {
                    maxCode1 <<= 1
                    bits += 1
                }
            }
            if code == clear {
                runningCode = end + 1
                bits = minimumCodeSize + 1
                maxCode1 = 1 << bits
                nextFree = clear + 2
                last = nil
            } else {
                if last != nil && runningCode - 2 < 4096 && runningCode - 2 == nextFree { nextFree += 1 }
                last = code
            }
        }
        return packed.finish()
    }

    static func gif(width: Int, height: Int, minimumCodeSize: Int, interlaced: Bool, data: [UInt8]) -> [UInt8] {
        let palette = (0..<256).map { (i: Int) -> GIFBuilder.RGB in (UInt8(i), UInt8(255 - i), UInt8(i / 2)) }
        var gif = GIFBuilder(width: width, height: height, globalColors: palette)
        gif.rawImage(width: width, height: height, minimumCodeSize: UInt8(minimumCodeSize), data: data)
        var bytes = gif.build()
        if interlaced { bytes[13 + 3 * 256 + 9] |= 0x40 }  // the image descriptor's packed field
        return bytes
    }

    @Test("random code streams decode as giflib decodes them", arguments: [2, 3, 5, 8])
    func randomStreams(minimumCodeSize: Int) {
        var accepted = 0
        var failures = 0
        for seed in UInt64(1)...150 {
            var random = SeededRandom(seed: seed &* 31 &+ UInt64(minimumCodeSize))
            let codes = 200 + Int(random.next() % 9000)
            let clears = seed % 3 == 0 ? 0 : random.next() % 4  // some streams fill the table
            let oddities = seed % 5 == 0 ? 1 + random.next() % 3 : 0
            let data = Self.randomCodes(
                minimumCodeSize: minimumCodeSize, count: codes, clears: clears, oddities: oddities, random: &random)
            // Frames smaller than the stream, about its size, and larger than it.
            let width = 1 + Int(random.next() % 97)
            let height = max(1, codes * (1 + Int(random.next() % 5)) / 2 / width)
            let bytes = Self.gif(
                width: width, height: height, minimumCodeSize: minimumCodeSize, interlaced: seed % 4 == 1, data: data)
            let fast = Self.decode(bytes, copying: true)
            let giflib = Self.decode(bytes, copying: false)
            #expect(fast == giflib, "minimum code size \(minimumCodeSize), seed \(seed)")
            if case .pixels = giflib { accepted += 1 } else { failures += 1 }
        }
        // Both kinds of stream were drawn.
        #expect(accepted > 20 && failures > 5, "\(accepted) decoded, \(failures) failed")
    }

    @Test("encoded frames, whole and with bytes changed or cut, decode as giflib decodes them")
    func mutatedFrames() {
        for seed in UInt64(1)...60 {
            var random = SeededRandom(seed: seed)
            let width = 1 + Int(random.next() % 120)
            let height = 1 + Int(random.next() % 60)
            let colors = [2, 4, 16, 256][Int(seed % 4)]
            let indices = (0..<width * height).map { i in
                UInt8((i / (1 + Int(seed % 5)) + Int(random.next() % 3)) % colors)
            }
            let palette = (0..<colors).map { (i: Int) -> GIFBuilder.RGB in (UInt8(i), 0, 0) }
            var gif = GIFBuilder(width: width, height: height, globalColors: palette)
            gif.image(width: width, height: height, indices: indices, interlaced: seed % 3 == 0)
            var bytes = gif.build()
            #expect(Self.decode(bytes, copying: true) == .pixels(indices), "seed \(seed): the frame as encoded")
            #expect(Self.decode(bytes, copying: true) == Self.decode(bytes, copying: false), "seed \(seed)")
            let dataStart = 13 + 3 * GIFBuilder.tableSize(colors) + 10 + 1
            for _ in 0..<8 {
                var changed = bytes
                let at = dataStart + Int(random.next() % UInt64(bytes.count - dataStart - 1))
                changed[at] ^= UInt8(1 + random.next() % 255)
                #expect(
                    Self.decode(changed, copying: true) == Self.decode(changed, copying: false),
                    "seed \(seed), byte \(at) changed")
            }
            bytes.removeLast(1 + Int(random.next() % UInt64(bytes.count - dataStart)))
            #expect(Self.decode(bytes, copying: true) == Self.decode(bytes, copying: false), "seed \(seed), cut")
        }
    }
}
