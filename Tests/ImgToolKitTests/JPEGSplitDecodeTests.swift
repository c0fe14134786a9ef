import TestSupport
import Testing

@testable import ImgToolKit

/// A large sequential JPEG is decoded in two parts on two threads (the second skips the rows
/// above the split with `jpeg_skip_scanlines`); these check that the result is exactly a decode in
/// one piece, for every layout and turn, and that damaged data gives the same errors and warnings.
@Suite("JPEG split decode", .timeLimit(.minutes(5)))
struct JPEGSplitDecodeTests {
    /// A photo-like picture: gradients plus seeded noise, so that the Huffman data is dense.
    static func photo(width: Int, height: Int) -> PixelBuffer {
        var random = SeededRandom(seed: 19)
        var samples = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                let noise = Int(random.next() % 48)
                samples[at] = UInt8(min(255, x * 200 / width + noise))
                samples[at + 1] = UInt8(min(255, y * 200 / height + noise))
                samples[at + 2] = UInt8(min(255, (x + y) * 100 / (width + height) + noise))
            }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }

    /// Both decodes of `bytes`: in two parts (as imgtool does) and in one piece.
    static func bothDecodes(_ bytes: [UInt8], scaleDenominator: Int = 1, orientation: ImageOrientation = .up)
        throws(ImgToolError) -> (
            split: (image: PixelBuffer, warnings: [String]), whole: (image: PixelBuffer, warnings: [String])
        )
    {
        var single = JPEGDecoder(limits: .default)
        single.splitPolicy = .never
        var twoParts = JPEGDecoder(limits: .default)
        twoParts.splitPolicy = .always
        let split = try twoParts.decode(bytes, scaleDenominator: scaleDenominator, orientation: orientation)
        let whole = try single.decode(bytes, scaleDenominator: scaleDenominator, orientation: orientation)
        return (split, whole)
    }

    @Test func scaledDecodesSplitToo() throws {
        // 2100x2050 at 1/2 is 1050x1025, just past the split threshold; at 1/4 it is not split.
        for quality in [70, 95] {  // 4:2:0 and 4:4:4
            let bytes = try JPEGEncoder(quality: quality).encode(Self.photo(width: 2100, height: 2050))
            let header = try JPEGDecoder(limits: .default).header(of: bytes)
            if availableProcessors > 1 {
                #expect(
                    JPEGDecoder.splitRow(
                        header: header, output: PixelSize(width: 1050, height: 1025), scaleDenominator: 2) != nil)
            }
            for denominator in [2, 4] {
                for orientation in [ImageOrientation.up, .right] {
                    let (split, whole) = try Self.bothDecodes(
                        bytes, scaleDenominator: denominator, orientation: orientation)
                    #expect(split.warnings.isEmpty && whole.warnings.isEmpty)
                    let mismatch = firstMismatch(split.image, whole.image)
                    #expect(mismatch == nil, "1/\(denominator) \(orientation) q\(quality): \(mismatch ?? "")")
                }
            }
        }
    }

    // 1024x1024 is the smallest image that is split; 1100x1003 has partial MCUs at both edges.
    // Restart interval 0: a file in one piece without restart markers; -1: as JPEGEncoder writes
    // an image this large, in two parts with a restart marker every MCU row.
    static let layouts: [(width: Int, height: Int, quality: Int, restart: Int)] = [
        (1024, 1024, 95, 0),  // 4:4:4
        (1100, 1003, 70, 0),  // 4:2:0
        (1100, 1003, 70, 5),  // 4:2:0 with restart markers
        (1100, 1003, 85, -1),  // 4:4:4 written in two parts
    ]

    @Test(arguments: layouts)
    func splitDecodeEqualsOnePiece(layout: (width: Int, height: Int, quality: Int, restart: Int)) throws {
        var encoder = JPEGEncoder(quality: layout.quality)
        encoder.restartInterval = max(layout.restart, 0)
        encoder.splitPolicy = layout.restart < 0 ? .always : .never
        let bytes = try encoder.encode(Self.photo(width: layout.width, height: layout.height))
        let header = try JPEGDecoder(limits: .default).header(of: bytes)
        let size = PixelSize(width: layout.width, height: layout.height)
        if availableProcessors > 1 {
            #expect(JPEGDecoder.splitRow(header: header, output: size, scaleDenominator: 1) != nil)
        }
        for orientation in [ImageOrientation.up, .down, .right, .leftMirrored] {
            let (split, whole) = try Self.bothDecodes(bytes, orientation: orientation)
            #expect(split.warnings.isEmpty && whole.warnings.isEmpty)
            let mismatch = firstMismatch(split.image, whole.image)
            #expect(mismatch == nil, "\(orientation): \(mismatch ?? "")")
        }
    }

    @Test func smallAndProgressiveImagesAreNotSplit() throws {
        let bytes = try JPEGEncoder(quality: 80).encode(Self.photo(width: 1024, height: 1024))
        let header = try JPEGDecoder(limits: .default).header(of: bytes)
        #expect(
            JPEGDecoder.splitRow(header: header, output: PixelSize(width: 1024, height: 1023), scaleDenominator: 1)
                == nil)
        #expect(
            JPEGDecoder.splitRow(header: header, output: PixelSize(width: 512, height: 512), scaleDenominator: 2) == nil
        )  // too small at that scale
        let progressive = try JPEGEncoder(quality: 80, progressive: true).encode(Self.photo(width: 1024, height: 1024))
        let progressiveHeader = try JPEGDecoder(limits: .default).header(of: progressive)
        #expect(
            JPEGDecoder.splitRow(
                header: progressiveHeader, output: PixelSize(width: 1024, height: 1024), scaleDenominator: 1)
                == nil)
        let (split, whole) = try Self.bothDecodes(progressive)
        #expect(split.image == whole.image)
    }

    /// Data cut in the second part, and scan bytes damaged in either part: the split decode gives
    /// up and decodes in one piece, so the error or the warnings and pixels are the same.
    @Test func damagedDataGivesTheSameOutcome() throws {
        var onePiece = JPEGEncoder(quality: 90)
        onePiece.splitPolicy = .never
        try damageGivesTheSameOutcome(try onePiece.encode(Self.photo(width: 1024, height: 1024)))
        // As imgtool writes it: a restart marker every MCU row.
        try damageGivesTheSameOutcome(try JPEGEncoder(quality: 90).encode(Self.photo(width: 1024, height: 1024)))
    }

    func damageGivesTheSameOutcome(_ bytes: [UInt8]) throws {
        for cut in [bytes.count * 9 / 10, bytes.count - 2] {
            let part = Array(bytes.prefix(cut))
            var single = JPEGDecoder(limits: .default)
            single.splitPolicy = .never
            let whole = try single.decode(part)
            var twoParts = JPEGDecoder(limits: .default)
            twoParts.splitPolicy = .always
            let split = try twoParts.decode(part)
            #expect(whole.warnings.first == "Premature end of JPEG file")
            #expect(split.warnings == whole.warnings)
            #expect(split.image == whole.image)
        }
        for fraction in [3, 8] {  // tenths of the way into the file: above and below the split
            var damaged = bytes
            let at = bytes.count * fraction / 10
            for offset in 0..<8 where damaged[at + offset] != 0xFF && damaged[at + offset - 1] != 0xFF {
                damaged[at + offset] ^= 0x5A
            }
            do {
                let (split, whole) = try Self.bothDecodes(damaged)
                #expect(split.warnings == whole.warnings)
                #expect(split.image == whole.image)
            } catch {
                var single = JPEGDecoder(limits: .default)
                single.splitPolicy = .never
                let wholeError = #expect(throws: ImgToolError.self) { try single.decode(damaged) }
                #expect(error.description == wholeError?.description)
            }
        }
    }

    /// The first differing pixel and how many differ, or `nil` when the images are equal.
    func firstMismatch(_ a: PixelBuffer, _ b: PixelBuffer) -> String? {
        guard a.width == b.width, a.height == b.height, let x = a.rgba8, let y = b.rgba8 else {
            return "sizes \(a.width)x\(a.height) and \(b.width)x\(b.height)"
        }
        var first: Int?
        var count = 0
        for index in stride(from: 0, to: x.count, by: 4) where x[index..<index + 4] != y[index..<index + 4] {
            first = first ?? index / 4
            count += 1
        }
        guard let first else { return nil }
        return "\(count) pixels differ, the first at (\(first % a.width), \(first / a.width))"
    }
}
