import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `info --verify` decodes a still JPEG or PNG row by row without holding it, and fails as a
/// whole decode would.
@Suite("Verifying that a file decodes", .timeLimit(.minutes(5)))
struct VerifyDecodesTests {
    static let photo = TestImages.make8(width: 1500, height: 900) { x, y in
        [UInt8(x * 255 / 1499), UInt8(y * 255 / 899), UInt8((x ^ y) & 0xff), 255]
    }

    static func error(of body: () throws(ImgToolError) -> Void) -> ImgToolError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("whole JPEGs and PNGs verify")
    func goodFiles() throws {
        let jpeg = try JPEGEncoder(quality: 90).encode(Self.photo)
        let png = try PNGEncoder().encode(Self.photo)
        for (bytes, name) in [(jpeg, "a.jpg"), (png, "a.png")] {
            try ImageSource(data: bytes, name: name).verifyDecodes()
        }
    }

    @Test("a cut or damaged file fails with the error a whole decode gives")
    func badFiles() throws {
        let jpeg = try JPEGEncoder(quality: 90).encode(Self.photo)
        let png = try PNGEncoder().encode(Self.photo)
        var damaged = png
        damaged[damaged.count / 2] ^= 0xff  // an IDAT byte: the CRC no longer matches
        // A JPEG cut short decodes, grey below the cut (see JPEGTruncationTests); one whose frame
        // header names a quantization table it lacks opens, but does not decode.
        var badTable = jpeg
        let sof = try #require(badTable.indices.first { badTable[$0] == 0xFF && badTable[$0 + 1] == 0xC0 })
        badTable[sof + 12] = 3  // the first component's table
        for (bytes, name) in [(badTable, "bad.jpg"), (damaged, "bad.png")] {
            let source = try ImageSource(data: bytes, name: name)
            let verified = Self.error { () throws(ImgToolError) in try source.verifyDecodes() }
            let decoded = Self.error { () throws(ImgToolError) in
                let reader = try source.makeFrameReader(depth: nil)
                while try reader.nextFrame() != nil {}
            }
            #expect(decoded != nil, "\(name) does not decode")
            #expect(verified?.code == decoded?.code && verified?.message == decoded?.message, "\(name)")
        }
    }
}
