import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A reader that stops reading (a paused terminal, a stalled connection, a hung consumer) fills
/// the terminal's or the pipe's buffer, and a plain write then blocks for ever. SIGTERM must still
/// end playback, with the exit status 128+15, rather than leave a process nobody can stop short
/// of SIGKILL.
@Suite("imgtool animate stops on SIGTERM when nothing reads its output", .serialized, .timeLimit(.minutes(5)))
struct StalledOutputTests {
    static let spinner = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples/spinner.gif").path

    @Test("on a terminal that is never read")
    func stalledTerminal() async throws {
        // posix_openpt, unlockpt and ptsname by hand (Swift's Glibc module leaves them out):
        // TIOCSPTLCK and TIOCGPTN, as <asm-generic/ioctls.h> defines them on x86-64 and arm64.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        let process = try Self.start(
            ["animate", Self.spinner, "--loops", "0", "--speed", "10", "--protocol", "halfblock"], output: terminal)
        try await Self.expectStopsOnSIGTERM(process)
    }

    @Test("on a pipe that is never read (--json)")
    func stalledPipe() async throws {
        let pipe = Pipe()
        // A one-page pipe fills after a few dozen lines (F_SETPIPE_SZ, 1031 in <linux/fcntl.h>,
        // which Swift's Glibc module leaves out).
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, 1031, 4096)
        let process = try Self.start(
            ["animate", Self.spinner, "--json", "--loops", "0", "--speed", "10"], output: pipe.fileHandleForWriting)
        try await Self.expectStopsOnSIGTERM(process)
        _ = pipe
    }

    /// Starts `imgtool arguments...` under coreutils' `timeout`, which sends SIGTERM after 2 s
    /// (and SIGKILL 10 s later) and exits with imgtool's own status. The signal comes from
    /// outside this process on purpose: while imgtool is stalled it holds copies of other
    /// tests' pipes (children inherit them), and tests waiting on those pipes can occupy every
    /// thread of the pool this test would need to send the signal itself.
    static func start(_ arguments: [String], output: FileHandle) throws -> Process {
        try CLIRunner.start(
            arguments, through: ["/usr/bin/timeout", "--preserve-status", "--kill-after=10", "2"], stdout: output)
    }

    /// Waits for the SIGTERM `timeout` sends once the output has backed up, and requires imgtool
    /// to exit with 128+15 on its own, not by the SIGKILL that follows 10 s later.
    static func expectStopsOnSIGTERM(_ process: Process) async throws {
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started = ContinuousClock.now
        let exited = try await waitUntil(timeout: .seconds(20), interval: .milliseconds(20)) { !process.isRunning }
        #expect(exited, "imgtool did not exit after SIGTERM")
        if !process.isRunning {
            #expect(process.terminationStatus == 128 + SIGTERM)
            #expect(ContinuousClock.now - started >= .milliseconds(1900), "it played until the signal")
        }
    }
}
