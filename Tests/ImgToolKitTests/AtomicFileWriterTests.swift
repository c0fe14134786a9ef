import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

@Suite("Atomic writes", .timeLimit(.minutes(5)))
struct AtomicFileWriterTests {
    let folder: String

    init() throws {
        folder = try makeTemporaryFolder("atomic")
    }

    private func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    @Test("a failed write leaves the old file and no temporary file")
    func failureKeepsOld() throws {
        let path = folder + "/out.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: path) { (fd) throws(ImgToolError) in
                _ = write(fd, "partial", 7)
                throw ImgToolError(.writeFailed, "disk full")
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try listing() == ["out.png"])
    }

    @Test("a successful write replaces the file whole")
    func successReplaces() throws {
        let path = folder + "/out.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let image = TestImages.make8(width: 3, height: 3) { x, y in [UInt8(x), UInt8(y), 0, 255] }
        try AtomicFileWriter.write(to: path) { (fd) throws(ImgToolError) in
            try PNGEncoder().write(image, toFileDescriptor: fd)
        }
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try PNGDecoder().decode(data) == image)
        #expect(try listing() == ["out.png"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644 || mode == 0o664)  // a plain create's mode under the usual umasks
    }

    @Test("without replace, an existing file is never clobbered")
    func noClobber() throws {
        let path = folder + "/keep.png"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: path, existing: .fail) { (fd) throws(ImgToolError) in _ = write(fd, "new", 3)
            }
        }
        #expect(error.code == .writeFailed)
        #expect(error.description == "\(path): already exists; pass --force to replace it")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        #expect(try listing() == ["keep.png"])
    }

    @Test("a folder that does not exist is a clear error")
    func missingFolder() throws {
        let error = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: folder + "/no/such/out.png") { (_) throws(ImgToolError) in }
        }
        #expect(error.code == .writeFailed)
        #expect(error.input == folder + "/no/such/out.png")
    }
}
