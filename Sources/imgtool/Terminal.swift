import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The signal that asked imgtool to stop (SIGINT, SIGTERM, SIGHUP), or 0.
///
/// Written only by ``Terminal``'s signal handler: storing to a lock-free atomic is
/// async-signal-safe, unlike anything that allocates or takes a lock. The player polls it
/// between frames and while waiting (no Dispatch source, no thread blocked in `sigwait`).
let pendingSignal = Atomic<Int32>(0)

/// Set by the SIGWINCH handler when the terminal was resized; the player re-reads the size.
let terminalResized = Atomic<Bool>(false)

/// The controlling terminal of an interactive `imgtool animate`: raw keyboard input, the
/// alternate screen, a hidden cursor, signal handling, and restoring all of it.
///
/// ``restore()`` undoes everything ``enter()`` did, in reverse, and is safe to call more than
/// once; callers put it in a `defer` right after `enter()`, so every exit path (the end of the
/// animation, `q`, Ctrl-C, SIGTERM, an error) leaves the terminal as it was.
struct Terminal {
    /// Terminal size in cells and, when the terminal reports it, in pixels.
    struct Size: Equatable, Sendable {
        var columns: Int
        var rows: Int
        var pixelWidth: Int
        var pixelHeight: Int
    }

    private var savedMode: termios?
    private var signals = SignalTrap()
    private var entered = false

    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// The size of the terminal on standard output, or `nil` when it reports none.
    /// The corresponding C call is `ioctl(TIOCGWINSZ)`.
    static func size() -> Size? {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return nil
        }
        return Size(
            columns: Int(window.ws_col), rows: Int(window.ws_row), pixelWidth: Int(window.ws_xpixel),
            pixelHeight: Int(window.ws_ypixel))
    }

    /// Installs the signal handlers, puts standard input in raw mode (no echo, no line
    /// buffering; Ctrl-C still raises SIGINT), switches to the alternate screen and hides the cursor.
    mutating func enter() {
        signals.install(resizes: true)
        if isatty(STDIN_FILENO) != 0 {
            var mode = termios()
            if tcgetattr(STDIN_FILENO, &mode) == 0 {
                savedMode = mode
                var raw = mode
                raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
                raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
                withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                    cc[Int(VMIN)] = 0
                    cc[Int(VTIME)] = 0
                }
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
            }
        }
        entered = true
        Terminal.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    }

    /// Shows the cursor, leaves the alternate screen, restores the input mode and the signal
    /// handlers that were there before. Safe to call twice.
    mutating func restore() {
        if entered {
            Terminal.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
            entered = false
        }
        if var mode = savedMode {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &mode)
            savedMode = nil
        }
        signals.restore()
    }

    /// The keys typed since the last call, without waiting. The corresponding C calls are
    /// `poll` and `read`.
    static func readKeys() -> [UInt8] {
        var result: [UInt8] = []
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 0) > 0, descriptor.revents & Int16(POLLIN) != 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            result += buffer[0..<count]
        }
        return result
    }

    /// Writes `text` to standard output whole, retrying after signals.
    static func write(_ text: String) {
        var copy = text
        copy.withUTF8 { write(bytes: $0) }
    }

    /// Writes `bytes` to standard output whole, retrying after signals.
    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write(bytes: $0) }
    }

    private static func write(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(STDOUT_FILENO, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}

/// Signal handlers that record a stop signal (and, optionally, resizes) in ``pendingSignal`` and
/// ``terminalResized`` instead of ending the process, so a player can finish cleanly: restore the
/// terminal, print its statistics, exit with 128+N. ``restore()`` puts back the handlers that
/// were there before.
struct SignalTrap {
    private var savedActions: [(Int32, sigaction)] = []

    /// Installs the handlers: SIGINT, SIGTERM and SIGHUP always, SIGWINCH when `resizes` is set.
    mutating func install(resizes: Bool) {
        // Touch the atomics first: a global's lazy initialisation is not async-signal-safe.
        pendingSignal.store(0, ordering: .relaxed)
        terminalResized.store(false, ordering: .relaxed)
        for signal in [SIGINT, SIGTERM, SIGHUP] + (resizes ? [SIGWINCH] : []) {
            var action = sigaction()
            if signal == SIGWINCH {
                action.__sigaction_handler.sa_handler = onResize
            } else {
                action.__sigaction_handler.sa_handler = onStopSignal
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var previous = sigaction()
            if sigaction(signal, &action, &previous) == 0 {
                savedActions.append((signal, previous))
            }
        }
    }

    /// Puts back the handlers that were there before ``install(resizes:)``. Safe to call twice.
    mutating func restore() {
        for (signal, action) in savedActions.reversed() {
            var previous = action
            sigaction(signal, &previous, nil)
        }
        savedActions = []
    }
}

/// Records a stop signal; async-signal-safe (one atomic store).
private func onStopSignal(_ signal: Int32) {
    pendingSignal.store(signal, ordering: .relaxed)
}

/// Records a resize; async-signal-safe (one atomic store).
private func onResize(_ signal: Int32) {
    terminalResized.store(true, ordering: .relaxed)
}
