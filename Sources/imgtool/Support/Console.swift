import ImgToolKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The first error a write to standard output met (an errno value), or 0: recorded by
/// ``Console`` and ``Terminal`` as they write, and turned into the exit status by
/// ``ImgTool/main()``, so that `imgtool info a.png > /dev/full` fails instead of exiting 0.
let standardOutputError = Atomic<Int32>(0)

/// Writing to the standard streams. Data goes to stdout, diagnostics to stderr, a line each.
enum Console {
    /// Writes `line` and a newline to stdout; a failure is recorded in ``standardOutputError``
    /// (and later writes are skipped: the output is already incomplete).
    static func out(_ line: String) {
        guard standardOutputError.load(ordering: .relaxed) == 0 else { return }
        if let failure = writeAll(line + "\n", to: STDOUT_FILENO) { recordOutputFailure(failure) }
    }

    /// Ends the process as SIGPIPE would (status 141) once the reader of standard output has
    /// gone (`EPIPE`; SIGPIPE itself is ignored, see ``ImgTool/main()``), after taking back every
    /// output not yet committed: a batch whose report is cut off by `| head` leaves no temporary
    /// file behind.
    static func exitIfReaderGone(_ code: Int32) {
        guard code == EPIPE else { return }
        OutputGate.shared.close()
        _exit(141)
    }

    /// Writes `line` and a newline to stderr.
    static func error(_ line: String) {
        errorText(line + "\n")
    }

    /// Writes `text` to stderr as it is (no newline added).
    static func errorText(_ text: String) {
        _ = writeAll(text, to: STDERR_FILENO)
    }

    /// Records `code` as standard output's error, unless one was recorded before.
    static func recordOutputFailure(_ code: Int32) {
        exitIfReaderGone(code)
        _ = standardOutputError.compareExchange(expected: 0, desired: code, ordering: .relaxed)
    }

    /// Writes all of `text` to `descriptor`, retrying short writes and interrupted calls.
    /// Returns errno when a write fails.
    private static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
    }

    /// Whether stdout is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
}
