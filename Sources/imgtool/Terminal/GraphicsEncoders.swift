/// Encodes whole frames for terminals that show pixels: the kitty graphics protocol and sixel.
enum GraphicsEncoder {
    /// A kitty graphics protocol command that shows `image` (24-bit RGB) at the cursor, replacing
    /// the previous frame (same image id and placement id), in 4096-byte base64 chunks.
    static func kitty(_ image: ScaledImage, columns: Int, rows: Int, into out: inout [UInt8]) {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(image.pixels.count * 3)
        for pixel in image.pixels {
            rgb += [UInt8(pixel >> 16 & 0xFF), UInt8(pixel >> 8 & 0xFF), UInt8(pixel & 0xFF)]
        }
        let encoded = base64(rgb)
        let chunkSize = 4096
        var offset = 0
        var first = true
        repeat {
            let end = min(offset + chunkSize, encoded.count)
            let more = end < encoded.count
            out += Array("\u{1B}_G".utf8)
            if first {
                out += Array("a=T,f=24,s=\(image.width),v=\(image.height),c=\(columns),r=\(rows),i=1,p=1,q=2,C=1,".utf8)
                first = false
            }
            out += Array("m=\(more ? 1 : 0);".utf8)
            out += encoded[offset..<end]
            out += [0x1B, 0x5C]
            offset = end
        } while offset < encoded.count
    }

    /// A sixel image of `image`, its colours reduced to the 6x6x6 colour cube.
    static func sixel(_ image: ScaledImage, into out: inout [UInt8]) {
        let width = image.width
        let height = image.height
        guard width > 0, height > 0 else { return }
        var indices = [UInt8](repeating: 0, count: width * height)
        var used = [Bool](repeating: false, count: 216)
        for (offset, pixel) in image.pixels.enumerated() {
            let r = (Int(pixel >> 16 & 0xFF) * 5 + 127) / 255
            let g = (Int(pixel >> 8 & 0xFF) * 5 + 127) / 255
            let b = (Int(pixel & 0xFF) * 5 + 127) / 255
            let index = r * 36 + g * 6 + b
            indices[offset] = UInt8(index)
            used[index] = true
        }
        out += Array("\u{1B}P0;1;0q\"1;1;\(width);\(height)".utf8)
        for index in 0..<216 where used[index] {
            let r = index / 36 * 20
            let g = index / 6 % 6 * 20
            let b = index % 6 * 20
            out += Array("#\(index);2;\(r);\(g);\(b)".utf8)
        }
        var band = 0
        var row = [UInt8](repeating: 0, count: width)
        while band < height {
            var inBand = [Bool](repeating: false, count: 216)
            for y in band..<min(band + 6, height) {
                for x in 0..<width { inBand[Int(indices[y * width + x])] = true }
            }
            var firstColor = true
            for color in 0..<216 where inBand[color] {
                if !firstColor { out.append(0x24) }  // $: back to the band's start
                firstColor = false
                for x in 0..<width {
                    var bits: UInt8 = 0
                    for bit in 0..<6 where band + bit < height && Int(indices[(band + bit) * width + x]) == color {
                        bits |= 1 << bit
                    }
                    row[x] = 63 + bits
                }
                out += Array("#\(color)".utf8)
                var x = 0
                while x < width {
                    var run = 1
                    while x + run < width && row[x + run] == row[x] { run += 1 }
                    if run >= 4 {
                        out += Array("!\(run)".utf8)
                        out.append(row[x])
                    } else {
                        out += Array(repeating: row[x], count: run)
                    }
                    x += run
                }
            }
            out.append(0x2D)  // -: next band
            band += 6
        }
        out += [0x1B, 0x5C]
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [
                alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)],
                alphabet[Int(value & 63)],
            ]
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest > 1 ? UInt32(bytes[index + 1]) << 8 : 0)
            out += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)]]
            out.append(rest > 1 ? alphabet[Int(value >> 6 & 63)] : 0x3D)
            out.append(0x3D)
        }
        return out
    }
}
