import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The signal that asked imgtool to stop (SIGINT, SIGTERM, SIGHUP), or 0.
///
/// Written only by ``SignalTrap``'s handler: storing to a lock-free atomic is
/// async-signal-safe, unlike anything that allocates or takes a lock. The handler then wakes
/// an ``InputWatcher`` through ``WakePipe``, which reports it to the player.
let pendingSignal = Atomic<Int32>(0)

/// Set by the SIGWINCH handler when the terminal was resized; the player re-reads the size.
let terminalResized = Atomic<Bool>(false)

/// Where ``Terminal/write(_:)-swift.type.method`` writes: while a player is on screen, a
/// non-blocking descriptor of standard output (see ``Terminal/takeOutput()``); otherwise
/// standard output itself.
private let outputDescriptor = Atomic<Int32>(STDOUT_FILENO)

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
        Terminal.takeOutput()
        entered = true
        Terminal.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    }

    /// Shows the cursor, leaves the alternate screen, restores the input mode and the signal
    /// handlers that were there before. Safe to call twice.
    mutating func restore() {
        if entered {
            Terminal.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
            entered = false
            Terminal.releaseOutput()
        }
        if var mode = savedMode {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &mode)
            savedMode = nil
        }
        signals.restore()
    }

    /// Points ``write(_:)-swift.type.method`` at a descriptor of its own for standard output
    /// that never blocks, when standard output is a terminal or a pipe: a reader that stops
    /// reading (Ctrl-S, a stalled connection, a consumer that hangs) then cannot hold a player
    /// past a stop signal. The descriptor is opened anew through /proc: making standard output
    /// itself non-blocking would change it for the shell or pipeline that shares it too. Undo
    /// with ``releaseOutput()``; elsewhere (a file, no /proc) writes go to standard output.
    static func takeOutput() {
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0 else { return }
        let kind = status.st_mode & S_IFMT
        guard (kind == S_IFCHR && isatty(STDOUT_FILENO) != 0) || kind == S_IFIFO else { return }
        let own = open("/proc/self/fd/\(STDOUT_FILENO)", O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard own >= 0 else { return }
        let previous = outputDescriptor.exchange(own, ordering: .relaxed)
        if previous != STDOUT_FILENO { close(previous) }
    }

    /// Sends writes to standard output again and closes the descriptor ``takeOutput()`` opened.
    static func releaseOutput() {
        let own = outputDescriptor.exchange(STDOUT_FILENO, ordering: .relaxed)
        if own != STDOUT_FILENO { close(own) }
    }

    /// How long a write waits for a terminal that takes nothing more once a stop signal is
    /// pending, before the rest is dropped and the player goes on to quit.
    static let stopGrace: Duration = .milliseconds(500)

    /// Writes `text` to the terminal whole (see ``write(_:)-swift.type.method``).
    static func write(_ text: String) {
        var copy = text
        copy.withUTF8 { write(bytes: $0) }
    }

    /// Writes `bytes` to the terminal whole: retries after signals, and waits while the terminal
    /// takes nothing (a paused or slow terminal loses nothing). Once a stop signal is pending
    /// the wait is bounded by ``stopGrace``, so SIGTERM ends a player whose terminal has stopped
    /// reading. Gives up silently when the terminal is gone.
    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write(bytes: $0) }
    }

    private static func write(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let descriptor = outputDescriptor.load(ordering: .relaxed)
        var offset = 0
        var stopSeen: ContinuousClock.Instant?
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
                continue
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    Console.recordOutputFailure(errno)
                    return
                }
            }
            if pendingSignal.load(ordering: .relaxed) != 0 {
                let now = ContinuousClock.now
                guard let seen = stopSeen else {
                    stopSeen = now
                    continue
                }
                if now - seen > stopGrace { return }
            }
            var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&room, 1, 50)
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
        WakePipe.prepare()
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

/// Records a stop signal and wakes the input watcher; async-signal-safe (atomics and `write`).
private func onStopSignal(_ signal: Int32) {
    pendingSignal.store(signal, ordering: .relaxed)
    WakePipe.wake()
}

/// Records a resize and wakes the input watcher; async-signal-safe (atomics and `write`).
private func onResize(_ signal: Int32) {
    terminalResized.store(true, ordering: .relaxed)
    WakePipe.wake()
}
