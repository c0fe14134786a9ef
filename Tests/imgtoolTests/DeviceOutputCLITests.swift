import Foundation
import TestSupport
import Testing

/// Outputs that are not regular files: devices and FIFOs are written in place, never replaced.
@Suite("imgtool output to devices and FIFOs (end to end)", .timeLimit(.minutes(5)))
struct DeviceOutputCLITests {
    /// The `S_IFMT` bits and the device number of `path`.
    static func kind(_ path: String) -> (type: mode_t, device: dev_t) {
        var status = stat()
        guard stat(path, &status) == 0 else { return (0, 0) }
        return (status.st_mode & S_IFMT, status.st_rdev)
    }

    @Test(
        "/dev/null stays a character device after convert, merge and resize with --force",
        .enabled(if: getuid() == 0, "only root could replace /dev/null (CI runs as root)"))
    func devNullStaysADevice() throws {
        let before = Self.kind("/dev/null")
        #expect(before.type == S_IFCHR)
        let spinner = ConvertCLITests.spinner
        let background = MergeCLITests.sample("background.png")
        for arguments in [
            ["convert", spinner, "/dev/null", "--format", "png", "--force"],
            ["convert", spinner, "/dev/null", "--format", "gif"],
            ["resize", spinner, "/dev/null", "--format", "webp", "--width", "50%", "--force"],
            ["merge", background, spinner, "-o", "/dev/null", "--format", "png", "--force"],
        ] {
            let run = try CLIRunner.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let after = Self.kind("/dev/null")
            #expect(after.type == S_IFCHR && after.device == before.device, "\(arguments)")
        }
    }

    @Test("a full device is an error naming it, in a command and in a batch")
    func fullDeviceFails() throws {
        let run = try CLIRunner.run(["convert", ConvertCLITests.spinner, "/dev/full", "--format", "png"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: /dev/full: writing the output failed"), "\(run.stderr)")
        #expect(Self.kind("/dev/full").type == S_IFCHR)
        let job = #"{"args":["convert","\#(ConvertCLITests.spinner)","/dev/full","--format","png"]}"#
        let batch = try CLIRunner.run(["batch", "-"], stdin: Array((job + "\n").utf8))
        #expect(batch.status == 1, "\(batch.stdout)")
        #expect(batch.stdout.contains(#""status":"failed""#), "\(batch.stdout)")
    }

    @Test("a FIFO receives the image in place, without --force")
    func fifoReceivesTheImage() throws {
        let folder = try makeTemporaryFolder("fifo-out")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = FIFOReader(fifo)
        let run = try CLIRunner.run(["convert", ConvertCLITests.spinner, fifo])
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = reader.wait()
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(Self.kind(fifo).type == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["pipe.png"])
    }
}

/// Commands whose standard output cannot be written fail instead of reporting success.
@Suite("imgtool standard output errors (end to end)", .timeLimit(.minutes(5)))
struct StandardOutputErrorCLITests {
    /// Runs `imgtool arguments...` with standard output on `/dev/full`; returns the status and stderr.
    static func runIntoFullDevice(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        defer { try? full.close() }
        let errors = Pipe()
        let process = try CLIRunner.start(arguments, stdout: full, stderr: errors)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("info, info --json, formats, animate --json and --dry-run into /dev/full exit 1 saying so")
    func fullStandardOutput() throws {
        let spinner = ConvertCLITests.spinner
        for arguments in [
            ["info", spinner], ["info", "--json", spinner], ["formats"],
            ["animate", spinner, "--json", "--speed", "100"], ["animate", spinner, "--dry-run"],
        ] {
            let run = try Self.runIntoFullDevice(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(
                run.stderr.hasSuffix("error: standard output: writing failed (No space left on device)\n"),
                "\(arguments): \(run.stderr)")
        }
    }
}

/// Inputs that never end: bytes no codec recognises are refused as soon as they are sniffed.
@Suite("imgtool endless inputs (end to end)", .timeLimit(.minutes(5)))
struct EndlessInputCLITests {
    @Test("/dev/zero as a file and as standard input is refused at once, whatever --max-bytes allows")
    func devZeroRefusedAtOnce() throws {
        let file = try CLIRunner.run(["info", "/dev/zero", "--max-bytes", "9223372036854775807"])
        #expect(file.status == 1)
        #expect(file.stderr.hasPrefix("error: /dev/zero: not a PNG, GIF, JPEG"), "\(file.stderr)")
        let zero = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/zero"))
        defer { try? zero.close() }
        let errors = Pipe()
        let process = try CLIRunner.start(
            ["info", "-", "--max-bytes", "9223372036854775807"], stdin: zero, stderr: errors)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text.hasPrefix("error: -: not a PNG, GIF, JPEG"), "\(text)")
    }
}
