internal import CGif

/// A GIF's own records, for a GIF written from a GIF with nothing changed: the writer keeps them
/// when they are smaller than what it makes, so `convert in.gif out.gif` is never larger than its
/// input.
///
/// Only the records that draw are kept: the header and logical screen with their colour table,
/// the loop extension, each frame's Graphic Control Extension, image descriptor, colour table and
/// image data, and the trailer. Comments and other application extensions (XMP, ICC) are left
/// out, as the writer leaves them out of what it makes (metadata is dropped by default).
///
/// The file is kept only when every decoder draws it as imgtool does, so the copy shows exactly
/// what the input showed everywhere: each frame inside the logical screen, with a colour table
/// holding every index it uses, and LZW data that decodes to exactly its pixels by the plain
/// rules (``GIFDecoder``'s strict path), frame 0 covering the screen; at most one Graphic Control Extension before each frame
/// and none after the last, no disposal `previous` (decoders disagree on it), no plain text
/// extension, one loop extension at most, and a trailer. Anything else returns `nil`.
enum GIFPassThrough {
    /// The records of `data` that draw, or `nil` when the file is not one every decoder draws
    /// alike.
    static func drawingRecords(of data: [UInt8]) -> [UInt8]? {
        data.withUnsafeBufferPointer { bytes in records(bytes) }
    }

    /// The records of the file behind `source` to write instead of what the writer makes, when
    /// `source` is a GIF read as stored and `options` change nothing a GIF shows or carries
    /// (default colours, no flattening, the source's plays, no lossy compression, no metadata
    /// kept); else `nil`.
    static func candidate(for source: any FrameSource, options: ImageWriteOptions) -> [UInt8]? {
        guard let image = source as? ImageSource, let gif = image.codecSource as? GIFSource, gif.info.isComplete,
            options.lossy == 0, options.colors >= 256, options.background == nil, options.metadata == .none,
            options.plays == nil || options.plays == gif.info.plays
        else { return nil }
        return drawingRecords(of: gif.data)
    }

    private static func records(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 13, bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
        else { return nil }
        let screenWidth = Int(bytes[6]) | Int(bytes[7]) << 8
        let screenHeight = Int(bytes[8]) | Int(bytes[9]) << 8
        let hasGlobalTable = bytes[10] & 0x80 != 0
        let globalEntries = hasGlobalTable ? 2 << Int(bytes[10] & 7) : 0
        var position = 13 + globalEntries * 3
        guard position <= bytes.count else { return nil }
        var output = Array(bytes[0..<position])
        var pendingControl = false
        var sawLoop = false
        var sawImage = false
        var scratch: [UInt8] = []

        /// The end of the sub-blocks starting at `start` (just past the terminator), or `nil`.
        func subBlocksEnd(from start: Int) -> Int? {
            var at = start
            while at < bytes.count {
                let length = Int(bytes[at])
                if length == 0 { return at + 1 }
                at += 1 + length
            }
            return nil
        }

        while position < bytes.count {
            switch bytes[position] {
            case 0x3B:
                guard !pendingControl else { return nil }
                output.append(0x3B)
                return output
            case 0x21:
                guard position + 2 < bytes.count, let end = subBlocksEnd(from: position + 2) else { return nil }
                let label = bytes[position + 1]
                let first = position + 2
                switch label {
                case 0xF9:
                    // A Graphic Control Extension: one 4-byte block; disposal none or background.
                    guard !pendingControl, bytes[first] == 4, first + 5 < end else { return nil }
                    guard (bytes[first + 1] >> 2) & 7 <= 2 else { return nil }
                    pendingControl = true
                    output += bytes[position..<end]
                case 0xFF:
                    let length = Int(bytes[first])
                    guard length == 11, first + 1 + 11 <= end else { break }
                    let name = Array(bytes[(first + 1)..<(first + 12)])
                    if name == Array("NETSCAPE2.0".utf8) || name == Array("ANIMEXTS1.0".utf8) {
                        guard !sawLoop else { return nil }
                        sawLoop = true
                        output += bytes[position..<end]
                    }
                case 0x01:
                    return nil  // plain text: drawn by few decoders, differently
                default:
                    break  // comments and unknown extensions draw nothing
                }
                position = end
            case 0x2C:
                guard position + 10 <= bytes.count else { return nil }
                let x = Int(bytes[position + 1]) | Int(bytes[position + 2]) << 8
                let y = Int(bytes[position + 3]) | Int(bytes[position + 4]) << 8
                let width = Int(bytes[position + 5]) | Int(bytes[position + 6]) << 8
                let height = Int(bytes[position + 7]) | Int(bytes[position + 8]) << 8
                let packed = bytes[position + 9]
                guard width > 0, height > 0, x + width <= screenWidth, y + height <= screenHeight else { return nil }
                // Frame 0 covers the screen: some decoders fill what it leaves with the
                // background colour, others leave it transparent.
                if !sawImage { guard x == 0, y == 0, width == screenWidth, height == screenHeight else { return nil } }
                sawImage = true
                let localEntries = packed & 0x80 != 0 ? 2 << Int(packed & 7) : 0
                let entries = localEntries > 0 ? localEntries : globalEntries
                let codeSizeAt = position + 10 + localEntries * 3
                guard entries > 0, codeSizeAt + 1 < bytes.count else { return nil }
                let minimumCodeSize = Int(bytes[codeSizeAt])
                guard (2...8).contains(minimumCodeSize), let end = subBlocksEnd(from: codeSizeAt + 1) else {
                    return nil
                }
                let count = width * height
                if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
                let decoded = scratch.withUnsafeMutableBufferPointer { pixels in
                    imgtool_gif_lzw_decode(
                        bytes.baseAddress, bytes.count, codeSizeAt + 1, Int32(minimumCodeSize), pixels.baseAddress,
                        count) == 0 && !pixels[0..<count].contains { Int($0) >= entries }
                }
                guard decoded else { return nil }
                output += bytes[position..<end]
                pendingControl = false
                position = end
            default:
                return nil
            }
        }
        return nil  // no trailer
    }
}
