#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place where outputs are committed, and the switch that a stop signal throws so that
/// none is committed after it.
///
/// ``AtomicFileWriter`` registers each temporary file with ``shared`` and moves it into place only
/// while the gate is open; ``FrameExport`` registers each frame file it has written until the
/// whole export is done. ``close()`` (the command line calls it on SIGINT, SIGTERM or SIGHUP) makes
/// every later commit fail with `cancelled` and removes every file registered: an encode that
/// runs on inside a C library after Ctrl-C can no longer replace the user's file, and the process
/// can exit at once without leaving a temporary file or half an export behind.
public final class OutputGate: Sendable {
    private struct State {
        var closed = false
        var files: [Int: String] = [:]
        var nextToken = 0
    }

    /// The gate every output of the process goes through, unless a writer is given another.
    public static let shared = OutputGate()

    private let state = Locked(State())

    /// A gate of its own, open (tests close one without stopping the rest of the process).
    public init() {}

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the gate: every later commit fails, and every file registered now is removed.
    /// Safe to call more than once.
    /// - Returns: the paths removed.
    @discardableResult
    public func close() -> [String] {
        state.withLock { state in
            state.closed = true
            let files = state.files.keys.sorted().compactMap { state.files[$0] }
            for path in files { unlink(path) }
            state.files = [:]
            return files
        }
    }

    /// Registers `path` as a file to remove if the gate closes before ``unregister(_:)``.
    /// - Returns: the token for ``unregister(_:)`` and ``commit(_:_:)``, or `nil` when the gate
    ///   is already closed (the caller removes the file itself and gives up).
    func register(_ path: String) -> Int? {
        state.withLock { state in
            guard !state.closed else { return nil }
            state.nextToken += 1
            state.files[state.nextToken] = path
            return state.nextToken
        }
    }

    /// Forgets the file registered as `token`.
    func unregister(_ token: Int) {
        _ = state.withLock { $0.files.removeValue(forKey: token) }
    }

    /// Runs `move` (which puts the file registered as `token` into place) while the gate is
    /// open, and forgets the registration; returns `false` without running it when the gate has
    /// closed. The lock is held across `move`, so a commit is either done before ``close()``
    /// or not done at all.
    func commit(_ token: Int, _ move: () -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            move()
            state.files.removeValue(forKey: token)
            return true
        }
    }
}
