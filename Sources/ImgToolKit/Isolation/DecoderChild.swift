#if canImport(Glibc)
    import Glibc
#endif

/// One child decoder process, seen from the parent: started with `posix_spawn`, its standard
/// input and output one end of a Unix socket pair, its standard error ours, its signals at their
/// defaults and none blocked. Reads and writes wait
/// with `poll` in slices of 100 ms, so a cancelled task or a passed deadline is noticed within
/// that; either kills the child (`SIGKILL`). The child is always reaped: by ``finish()``, or
/// killed and reaped on deinit. A one-shot object used by one thread.
final class DecoderChild {
    private let pid: pid_t
    private let socket: Int32
    private var deadline: ContinuousClock.Instant
    private let timeout: Duration
    /// The library decoding in the child, for messages ("libheif").
    let library: String
    private var reaped = false

    /// Why talking to the child stopped.
    enum Failure: Error {
        /// The child closed its end (it exited or crashed): ask ``finish()`` which.
        case ended
        case cancelled
        case timedOut
        case system(String)
    }

    /// Starts `isolation`'s program with `SWIFT_BACKTRACE=enable=no` added to our environment.
    /// - Throws: ``ImgToolError`` `unsupportedFormat` when it cannot be started.
    init(_ isolation: DecoderIsolation, library: String) throws(ImgToolError) {
        self.library = library
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ImgToolError(
                .unsupportedFormat, "cannot start a \(library) decoder process: \(systemErrorText(errno))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        let environment =
            Self.environment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") } + ["SWIFT_BACKTRACE=enable=no"]
        let argv = ([isolation.executable] + isolation.arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        // The child starts with no signal blocked and every signal's default action: a thread
        // of ours may block some (the cooperative pool blocks SIGCHLD) or ignore them, and a
        // child that inherited that would not die of the crash it reports.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        sigdelset(&signals, SIGKILL)
        sigdelset(&signals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let started = posix_spawn(&pid, isolation.executable, &actions, &attributes, argv, envp)
        close(pair[1])
        guard started == 0 else {
            close(pair[0])
            throw ImgToolError(
                .unsupportedFormat,
                "cannot start a \(library) decoder process (\(isolation.executable)): \(systemErrorText(started))")
        }
        self.pid = pid
        socket = pair[0]
        timeout = isolation.timeout
        deadline = .now + isolation.timeout
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        close(socket)
    }

    private static func environment() -> [String] {
        var result: [String] = []
        var at = environ
        while let entry = at.pointee {
            result.append(String(cString: entry))
            at += 1
        }
        return result
    }

    /// Waits until the socket is ready for `events`, in slices of 100 ms.
    private func wait(for events: Int16) throws(Failure) {
        while true {
            if Task.isCancelled { throw .cancelled }
            let left = deadline - .now
            guard left > .zero else { throw .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = min(100, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .system(systemErrorText(errno)) }
        }
    }

    /// Gives the child its whole timeout again, from now: for a child asked a second question
    /// after waiting for it.
    func restartClock() {
        deadline = .now + timeout
    }

    /// Sends all of `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT))
            let count = Glibc.send(socket, bytes.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .ended }
                throw .system(systemErrorText(errno))
            }
            sent += count
        }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(Failure) {
        var failure: Failure?
        bytes.withUnsafeBytes { raw in
            do throws(Failure) {
                try send(raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Fills all of `buffer` from the child.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) {
        var filled = 0
        while filled < buffer.count {
            try wait(for: Int16(POLLIN))
            let count = recv(socket, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, 0)
            if count == 0 { throw .ended }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .ended }
                throw .system(systemErrorText(errno))
            }
            filled += count
        }
    }

    /// `count` bytes from the child.
    func receive(_ count: Int) throws(Failure) -> [UInt8] {
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(Failure) {
                try receive(into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
            }
            initialized = count
        }
        if let failure { throw failure }
        return bytes
    }

    /// How the child ended: waits for it. Called once it has closed its end of the socket (it
    /// sent its last record, or died), which it does only on its way out.
    func finish() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        reaped = true
        let signal = status & 0x7F
        return signal == 0 ? .exited(status >> 8 & 0xFF) : .signaled(signal)
    }

    /// How a child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// The error for a child that stopped answering: the signal that ended it, its exit status,
    /// cancellation or the timeout.
    func error(for failure: Failure) -> ImgToolError {
        switch failure {
        case .cancelled:
            return ImgToolError(.cancelled, "cancelled while \(library) was decoding (its process is killed)")
        case .timedOut:
            return ImgToolError(.corrupt, "\(library) took too long to decode it (its process is killed)")
        case .system(let text):
            return ImgToolError(.unreadable, "cannot read from the \(library) decoder process: \(text)")
        case .ended:
            switch finish() {
            case .signaled(let signal):
                return ImgToolError(.corrupt, "\(library) crashed decoding it (\(Self.name(ofSignal: signal)))")
            case .exited(let status):
                return ImgToolError(
                    .corrupt, "the \(library) decoder process ended without an answer (exit status \(status))")
            }
        }
    }

    /// `SIGSEGV` for 11, and so on; `signal N` for the rarer ones.
    static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT", SIGILL: "SIGILL", SIGFPE: "SIGFPE",
            SIGTRAP: "SIGTRAP", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
