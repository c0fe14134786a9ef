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

    @Test("a FIFO is written in place, without --force, and stays a FIFO")
    func fifoWrittenInPlace() throws {
        let path = folder + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        // The reader opens the FIFO and reads to its end while the writer writes.
        let reader = FIFOReader(path)
        try AtomicFileWriter.write(to: path, existing: .fail) { (fd) throws(ImgToolError) in
            var sink = ByteSink(fileDescriptor: fd)
            try sink.append(Array("through the pipe".utf8))
        }
        #expect(reader.wait() == Array("through the pipe".utf8))
        #expect(AtomicFileWriter.existingKind(path) == S_IFIFO)
        #expect(try listing() == ["pipe"])
    }

    @Test(
        "a character device is written in place and stays one; its write errors are reported",
        .enabled(if: getuid() == 0, "mknod needs root (CI runs as root)"))
    func deviceWrittenInPlace() throws {
        // Twins of /dev/null (1, 3) and /dev/full (1, 7) in the test's own folder (Linux dev_t: major << 8 | minor).
        let null = folder + "/null"
        let full = folder + "/full"
        #expect(mknod(null, S_IFCHR | 0o666, 0x103) == 0)
        #expect(mknod(full, S_IFCHR | 0o666, 0x107) == 0)
        try AtomicFileWriter.write(to: null, existing: .replace) { (fd) throws(ImgToolError) in
            var sink = ByteSink(fileDescriptor: fd)
            try sink.append([UInt8](repeating: 7, count: 9000))
        }
        #expect(AtomicFileWriter.existingKind(null) == S_IFCHR)
        let error = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: full, existing: .replace) { (fd) throws(ImgToolError) in
                var sink = ByteSink(fileDescriptor: fd)
                try sink.append([UInt8](repeating: 7, count: 9000))
            }
        }
        #expect(error.code == .writeFailed)
        #expect(error.input == full)
        #expect(error.description.contains("No space left on device"))
        #expect(AtomicFileWriter.existingKind(full) == S_IFCHR)
        #expect(try listing() == ["full", "null"])
    }

    @Test("a socket is refused before anything is written")
    func socketRefused() throws {
        let path = folder + "/socket"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        let error = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: path, existing: .replace) { (_) throws(ImgToolError) in
                Issue.record("the body ran for a socket")
            }
        }
        #expect(error.description == "\(path): is a socket; imgtool writes files, character devices and FIFOs")
        #expect(AtomicFileWriter.existingKind(path) == S_IFSOCK)
    }

    @Test("a closed gate keeps the old file: the temporary file goes at once and nothing is moved into place")
    func closedGateKeepsOld() throws {
        let path = folder + "/out.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let gate = OutputGate()
        let error = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: path, existing: .replace, gate: gate) { (fd) throws(ImgToolError) in
                _ = write(fd, "new", 3)
                // A stop signal while the encoder writes: its temporary file is removed now.
                #expect(try! listing().count == 2)
                #expect(gate.close().count == 1)
                #expect(try! listing() == ["out.png"])
                _ = write(fd, "more", 4)
            }
        }
        #expect(error.code == .cancelled)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try listing() == ["out.png"])
        // Once closed, nothing more is written at all.
        let later = try #require(throws: ImgToolError.self) {
            try AtomicFileWriter.write(to: folder + "/other.png", gate: gate) { (_) throws(ImgToolError) in
                Issue.record("the body ran after the gate closed")
            }
        }
        #expect(later.code == .cancelled)
        #expect(try listing() == ["out.png"])
        // Another gate is unaffected.
        try AtomicFileWriter.write(to: folder + "/other.png", gate: OutputGate()) { (fd) throws(ImgToolError) in
            _ = write(fd, "x", 1)
        }
        #expect(try listing() == ["other.png", "out.png"])
    }
}
