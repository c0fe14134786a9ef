import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Still PNG files are decoded straight from disk (libpng reading the file descriptor); these
/// tests hold that path to the same pixels and the same errors as decoding the bytes.
@Suite("PNG files decoded from disk", .timeLimit(.minutes(5)))
struct PNGFileStreamingTests {
    /// Writes `bytes` to a new temporary file and returns its path.
    static func file(_ bytes: [UInt8], named name: String = "image.png") throws -> String {
        let path = try makeTemporaryFolder("stream") + "/" + name
        try MergeFixtures.write(bytes, to: path)
        return path
    }

    @Test("every stored layout decodes from the file to the same pixels as from its bytes", arguments: 0..<4)
    func sameAsBytes(level: Int) throws {
        for (name, image, _, _) in PNGCodecTests.layouts {
            let encoded = try PNGEncoder(compressionLevel: [0, 1, 6, 9][level]).encode(image)
            let path = try Self.file(encoded)
            let source = try ImageSource(contentsOf: path)
            // Then the file is not held in memory, and the frame equals the decode of the bytes
            #expect(source.data.isEmpty, "\(name): a still PNG is streamed")
            let fromFile = try source.frame(at: 0, depth: image.depth).image
            let fromBytes = try PNGDecoder().decode(encoded, depth: image.depth)
            #expect(
                firstDifference(fromBytes, fromFile) == nil,
                "\(name): \(firstDifference(fromBytes, fromFile) ?? "")")
            #expect(fromFile.metadata == fromBytes.metadata)
        }
    }

    @Test("an interlaced file decodes from disk")
    func interlaced() throws {
        // Given an Adam7 file built by hand (the encoder never interlaces)
        let width = 9
        let height = 7
        var raw: [UInt8] = []
        // Adam7 passes of a 9x7 8-bit grey image, every row with filter 0 and sample x*10+y.
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        for (x0, y0, dx, dy) in passes {
            let columns = Array(stride(from: x0, to: width, by: dx))
            guard !columns.isEmpty else { continue }
            for y in stride(from: y0, to: height, by: dy) {
                raw.append(0)
                raw += columns.map { UInt8($0 * 10 + y) }
            }
        }
        let png =
            ImageFormat.pngSignature
            + PNGBytes.ihdr(width: 9, height: 7, bitDepth: 8, colorType: 0, interlace: 1)
            + PNGBytes.chunk("IDAT", APNGBuilder.storedZlib(raw)) + PNGBytes.chunk("IEND", [])
        let path = try Self.file(png)
        // Then the file and the bytes give the same pixels, and they are the ones written
        let fromFile = try ImageSource(contentsOf: path).frame(at: 0).image
        #expect(fromFile == (try PNGDecoder().decode(png)))
        #expect(fromFile.pixel8(x: 8, y: 6) == [86, 86, 86, 255])
    }

    @Test("every truncation point of a file gives a typed error naming the path")
    func truncation() throws {
        let image = TestImages.make8(width: 33, height: 17) { x, y in [UInt8(x * 7), UInt8(y * 13), 9, 255] }
        let encoded = try PNGEncoder(compressionLevel: 9).encode(image)
        let folder = try makeTemporaryFolder("stream-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for length in 0..<encoded.count - 12 {
            let path = folder + "/cut\(length).png"
            try MergeFixtures.write(Array(encoded.prefix(length)), to: path)
            do {
                _ = try ImageSource(contentsOf: path).frame(at: 0)
                Issue.record("\(length) bytes decoded")
            } catch {
                #expect([.truncated, .unsupportedFormat, .corrupt].contains(error.code), "\(length): \(error)")
                #expect(error.input == path)
            }
        }
    }

    @Test("a damaged IDAT in a file is rejected with libpng's reason")
    func damaged() throws {
        var encoded = try PNGEncoder().encode(TestImages.make8(width: 4, height: 4) { _, _ in [1, 2, 3, 255] })
        let idat = try #require(PNGBytes.chunks(of: encoded).first { $0.type == "IDAT" })
        encoded[idat.offset + 8 + idat.length] ^= 0xFF  // first CRC byte
        let path = try Self.file(encoded)
        let error = #expect(throws: ImgToolError.self) { try ImageSource(contentsOf: path).frame(at: 0) }
        #expect(error?.code == .corrupt)
        #expect(error?.description.hasPrefix(path + ": ") == true, "\(String(describing: error))")
        #expect(error?.description.contains("IDAT: CRC error") == true, "\(String(describing: error))")
    }

    @Test("a file replaced by a larger image after it was opened is an error, not a wrong buffer")
    func changedFile() throws {
        let small = try PNGEncoder().encode(TestImages.make8(width: 4, height: 4) { _, _ in [1, 2, 3, 255] })
        let large = try PNGEncoder().encode(TestImages.make8(width: 8, height: 8) { _, _ in [1, 2, 3, 255] })
        let path = try Self.file(small)
        let source = try ImageSource(contentsOf: path)
        try MergeFixtures.write(large, to: path)
        let error = #expect(throws: ImgToolError.self) { try source.frame(at: 0) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("changed while it was read") == true, "\(String(describing: error))")
    }

    @Test("an APNG file is read whole (its frames are decoded on demand); the file limit applies first")
    func othersReadWhole() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [
            .init(image: APNGBuilder.solid(2, 1, [255, 0, 0, 255])),
            .init(image: APNGBuilder.solid(2, 1, [0, 0, 255, 255])),
        ]
        let apng = builder.build()
        let path = try Self.file(apng)
        let source = try ImageSource(contentsOf: path)
        #expect(source.data == apng)
        #expect(source.info.frameCount == 2)
        let png = try PNGEncoder().encode(TestImages.make8(width: 4, height: 4) { _, _ in [1, 2, 3, 255] })
        let big = try Self.file(png)
        let error = #expect(throws: ImgToolError.self) {
            try ImageSource(contentsOf: big, name: "big", maxBytes: png.count - 1, limits: .default)
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.input == "big")
    }
}
