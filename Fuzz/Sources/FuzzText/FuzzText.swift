import Foundation
import FuzzSupport
import ImgToolKit

/// `--text`'s renderer with a font file and a string as inputs: the first byte is the font size
/// (1 to 256 px), the second the stroke width (0 to 15 px), the third the wrap width (0: none,
/// else 8 px steps), the next two the string's length in bytes (little-endian), then the string
/// (UTF-8, decoded leniently) and the rest is the font file, written to a temporary file and named
/// by --font. Rasterising must succeed or throw an ``ImgToolError`` (a damaged font, a character no
/// font has, a caption over the limits), never trap; a caption that is drawn must fit the limits.
@main
enum FuzzText {
    static func main() { FuzzDriver.run(run) }

    /// Captions of at most 256 Ki pixels.
    static let limits = DecodingLimits(maxPixels: 1 << 18, maxFrames: 16, maxTotalPixels: 1 << 20)
    static let fontPath = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-font-\(getpid()).ttf")
        .path

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 5, bytes.count <= 1 << 20 else { return }
        let size = Double(bytes[0]) + 1
        let stroke = Double(bytes[1] & 15)
        let width = Int(bytes[2]) * 8
        let length = min(Int(bytes[3]) | Int(bytes[4]) << 8, bytes.count - 5)
        let string = String(decoding: bytes[5..<(5 + length)], as: UTF8.self)
        let font = bytes[(5 + length)...]
        guard FileManager.default.createFile(atPath: fontPath, contents: Data(font)) else {
            preconditionFailure("the fuzzer cannot write \(fontPath)")
        }
        let text = TextOperation(
            text: string, font: font.isEmpty ? nil : fontPath, fontSize: size, strokeWidth: stroke,
            width: width == 0 ? nil : width, alignment: TextAlignment.allCases[Int(bytes[2]) % 3])
        do throws(ImgToolError) {
            let caption = try text.rasterized(limits: limits)
            precondition(caption.width * caption.height <= limits.maxPixels, "a caption over the limit")
        } catch {
            precondition(!error.message.isEmpty, "an error without a message")
        }
    }
}
