/// A place where one frame's LZW data can be cut in two, so that two giflib sessions decode the
/// halves at the same time: the first frame of a large GIF is shown in half the time.
///
/// LZW data can be cut at a clear code: the code table starts afresh there, so the codes after
/// it decode without anything before them. Finding a clear code needs the codes' widths, which
/// grow with the table, so ``find(in:at:minimumCodeSize:pixelCount:)`` walks the codes (not the
/// pixels: it tracks only each table entry's length, to count the pixels before the cut) with
/// the same table rules as giflib's decoder. It stops at the first clear code past the middle of
/// the frame, so the walk costs a fraction of a decode.
///
/// The second half is handed to giflib as a GIF of its own (``tail``): the codes after the clear
/// code, shifted to start on a byte boundary and put back into sub-blocks, behind a header and
/// an image descriptor; a fresh giflib session starts with a fresh table, exactly as after a
/// clear code. Anything unexpected in the walk (a code past the table, data that ends, no clear
/// code in the second half) gives no split, and the frame is decoded in one piece, where giflib
/// reports whatever is wrong.
struct GIFLZWSplit: Sendable {
    /// Pixels decoded before the cut, in file order.
    let pixelOffset: Int
    /// A complete GIF whose one image holds the codes after the cut.
    let tail: [UInt8]

    /// Looks for a clear code in the second half of the frame whose LZW data starts at `start`
    /// (the first sub-block's length byte, just after the minimum code size).
    /// - Parameter pixelCount: the frame's width x height.
    static func find(in data: [UInt8], at start: Int, minimumCodeSize: Int, pixelCount: Int) -> GIFLZWSplit? {
        guard (2...8).contains(minimumCodeSize), pixelCount >= 2 else { return nil }
        let codes = subBlockContents(of: data, at: start)
        guard let cut = walk(codes, minimumCodeSize: minimumCodeSize, pixelCount: pixelCount) else { return nil }
        let rest = shifted(codes, fromBit: cut.bit)
        return GIFLZWSplit(
            pixelOffset: cut.pixels,
            tail: tailFile(
                codes: rest, minimumCodeSize: minimumCodeSize, pixelCount: pixelCount - cut.pixels))
    }

    /// The image data's sub-blocks joined, without their length bytes.
    private static func subBlockContents(of data: [UInt8], at start: Int) -> [UInt8] {
        var out: [UInt8] = []
        var position = start
        while position < data.count {
            let length = Int(data[position])
            guard length > 0, position + 1 + length <= data.count else { break }
            out.append(contentsOf: data[position + 1..<position + 1 + length])
            position += 1 + length
        }
        return out
    }

    /// The bit just after the first clear code found once at least half the pixels are decoded,
    /// and how many pixels come before it.
    private static func walk(_ codes: [UInt8], minimumCodeSize: Int, pixelCount: Int) -> (bit: Int, pixels: Int)? {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        let totalBits = codes.count * 8
        let half = pixelCount / 2
        return codes.withUnsafeBufferPointer { bytes -> (bit: Int, pixels: Int)? in
            // Length of each table entry's string; literals are 1.
            var lengths = [Int](repeating: 1, count: 4096)
            var width = minimumCodeSize + 1
            var next = end + 1
            var previousLength = 0
            var hasPrevious = false
            var pixels = 0
            var bit = 0
            while bit + width <= totalBits {
                // Read `width` bits, least significant first, from up to three bytes.
                let byte = bit >> 3
                var window = Int(bytes[byte])
                if byte + 1 < bytes.count { window |= Int(bytes[byte + 1]) << 8 }
                if byte + 2 < bytes.count { window |= Int(bytes[byte + 2]) << 16 }
                let code = (window >> (bit & 7)) & ((1 << width) - 1)
                bit += width
                if code == clear {
                    if pixels >= half && pixels > 0 { return (bit, pixels) }
                    width = minimumCodeSize + 1
                    next = end + 1
                    hasPrevious = false
                    continue
                }
                if code == end { return nil }
                let length: Int
                if !hasPrevious {
                    guard code < clear else { return nil }
                    length = 1
                } else {
                    if code < next {
                        length = lengths[code]
                    } else if code == next {
                        length = previousLength + 1
                    } else {
                        return nil
                    }
                    if next < 4096 {
                        lengths[next] = previousLength + 1
                        next += 1
                    }
                }
                pixels += length
                guard pixels < pixelCount else { return nil }
                previousLength = length
                hasPrevious = true
                if next == 1 << width && width < 12 { width += 1 }
            }
            return nil
        }
    }

    /// The bits of `codes` from `start` on, moved to start at bit 0.
    private static func shifted(_ codes: [UInt8], fromBit start: Int) -> [UInt8] {
        let first = start >> 3
        let shift = start & 7
        guard shift > 0 else { return Array(codes[first...]) }
        var out = [UInt8](repeating: 0, count: codes.count - first)
        for i in 0..<out.count {
            let low = codes[first + i] >> shift
            let high = first + i + 1 < codes.count ? codes[first + i + 1] << (8 - shift) : 0
            out[i] = low | high
        }
        return out
    }

    /// A GIF with one image of at least `pixelCount` pixels whose LZW data is `codes`.
    private static func tailFile(codes: [UInt8], minimumCodeSize: Int, pixelCount: Int) -> [UInt8] {
        let width = min(pixelCount, 65535)
        let height = (pixelCount + width - 1) / width
        func word(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var out: [UInt8] = Array("GIF89a".utf8)
        out += word(width) + word(height) + [0, 0, 0]  // no global colour table
        out += [0x2C] + word(0) + word(0) + word(width) + word(height) + [0]
        out.append(UInt8(minimumCodeSize))
        out.reserveCapacity(out.count + codes.count + codes.count / 255 + 3)
        var position = 0
        while position < codes.count {
            let length = min(255, codes.count - position)
            out.append(UInt8(length))
            out += codes[position..<position + length]
            position += length
        }
        out += [0, 0x3B]
        return out
    }
}
