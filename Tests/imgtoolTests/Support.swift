import Foundation
import Testing

/// The output of one run of the built `imgtool`.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

enum Binary {
    /// The built `imgtool`, next to the test bundle in the build folder.
    static var url: URL { CLIRunner.executable }

    /// Runs `imgtool arguments...` with stdout and stderr captured (so stdout is not a terminal).
    static func run(_ arguments: [String]) throws -> RunResult {
        try CLIRunner.run(arguments)
    }

    /// Starts `imgtool arguments...` with stdout and stderr on pipes and stdin from /dev/null,
    /// without waiting for it.
    static func launch(_ arguments: [String]) throws -> (process: Process, stdout: Pipe, stderr: Pipe) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }
}

/// Writes small PNG files byte by byte (stored deflate blocks, CRC-32, Adler-32), so the
/// end-to-end tests need no image library.
enum PNGBuilder {
    /// An 8-bit RGBA PNG of `width` x `height` filled with `rgba`, except the left half with `left`.
    static func solid(width: Int, height: Int, rgba: [UInt8], left: [UInt8]? = nil) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0..<height {
            raw.append(0)  // filter type None
            for x in 0..<width { raw += (x < width / 2 ? left ?? rgba : rgba) }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// Writes `bytes` to a new file in the temporary folder and returns its path.
    static func temporaryFile(_ bytes: [UInt8], name: String = "still.png") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgtool-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}
