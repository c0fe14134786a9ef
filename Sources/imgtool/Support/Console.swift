#if canImport(Glibc)
    import Glibc
#endif

/// Writing to the standard streams. Data goes to stdout, diagnostics to stderr, a line each.
enum Console {
    /// Writes `line` and a newline to stdout.
    static func out(_ line: String) {
        print(line)
    }

    /// Writes `line` and a newline to stderr.
    static func error(_ line: String) {
        errorText(line + "\n")
    }

    /// Writes `text` to stderr as it is (no newline added).
    static func errorText(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// Whether stdout is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
}
