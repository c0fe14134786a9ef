import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Support", .timeLimit(.minutes(5)))
struct SupportTests {
    @Test(
        "SHA-256 matches the FIPS 180-4 examples",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func sha256(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test("SHA-256 of a million 'a's, fed in odd pieces")
    func sha256Streaming() {
        var hash = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 999)
        for _ in 0..<1001 { hash.update(piece) }
        hash.update([UInt8](repeating: UInt8(ascii: "a"), count: 1))
        #expect(SHA256.hexString(hash.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("digests ignore the colour of invisible pixels")
    func digestConvention() {
        let a = TestImages.make8(width: 2, height: 1) { x, _ in x == 0 ? [9, 9, 9, 0] : [1, 2, 3, 4] }
        let b = TestImages.make8(width: 2, height: 1) { x, _ in x == 0 ? [0, 0, 0, 0] : [1, 2, 3, 4] }
        #expect(a.rgba8Digest() == b.rgba8Digest())
        #expect(a.converted(to: .sixteen).rgba16Digest() == b.converted(to: .sixteen).rgba16Digest())
    }

    @Test("format sniffing looks at bytes, not names")
    func sniffing() throws {
        #expect(ImageFormat.sniff(PNGBytes.signature) == .png)
        #expect(ImageFormat.sniff(Array("GIF89a".utf8)) == .gif)
        #expect(ImageFormat.sniff(Array("GIF87a".utf8)) == .gif)
        #expect(ImageFormat.sniff(Array("JFIF".utf8)) == nil)
        let error = try #require(throws: ImgToolError.self) {
            _ = try ImageSource(data: Array("hello".utf8), name: "x.png")
        }
        #expect(error.code == .unsupportedFormat)
        #expect(
            error.description
                == "x.png: not a PNG, GIF, JPEG, WebP, AVIF, JPEG XL, HEIF, MP4 or WebM file (starts with bytes 68 65 6c 6c 6f)"
        )
        let empty = try #require(throws: ImgToolError.self) { _ = try ImageSource(data: [], name: "e.gif") }
        #expect(empty.description == "e.gif: empty file: not an image")
    }

    @Test("a missing file and a folder are told apart")
    func fileErrors() throws {
        let missing = try #require(throws: ImgToolError.self) { _ = try ImageSource(contentsOf: "/nonexistent/a.png") }
        #expect(missing.code == .notFound)
        #expect(missing.description == "/nonexistent/a.png: no such file")
        let folder = try #require(throws: ImgToolError.self) { _ = try ImageSource(contentsOf: "/tmp") }
        #expect(folder.code == .unreadable)
    }
}
