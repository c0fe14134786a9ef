import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Something a player reacts to while it plays.
enum PlayerEvent: Equatable, Sendable {
    /// Keys typed on standard input.
    case keys([UInt8])
    /// SIGINT, SIGTERM or SIGHUP arrived (see ``SignalTrap``).
    case stopSignal(Int32)
    /// The terminal was resized (SIGWINCH).
    case resized
}

/// Watches for keys and signals without polling: one thread sleeps in `poll` on standard input
/// and on the process's wake pipe, which the handlers of ``SignalTrap`` write a byte to, and
/// turns what wakes it into ``events``.
///
/// A player that checked every few milliseconds instead would wake a thread, the main actor and
/// a timer fifty times a second for keys that almost never come; while an animation plays that
/// doubled the context switches of playback.
///
/// Call ``stop()`` when done: it ends ``events`` and returns once the thread has exited, so no
/// key typed after it is swallowed.
final class InputWatcher: Sendable {
    /// What happened, in order; ends after ``stop()``.
    let events: AsyncStream<PlayerEvent>

    private let continuation: AsyncStream<PlayerEvent>.Continuation
    private let stopping = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)

    /// Starts watching: for keys on standard input when `readingKeys` is set, and always for
    /// the signals a ``SignalTrap`` records (install it first).
    init(readingKeys: Bool) {
        WakePipe.prepare()
        (events, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
        let thread = Thread { [self] in watch(readingKeys: readingKeys) }
        thread.name = "imgtool.input"
        thread.start()
    }

    /// Ends ``events`` and waits for the watching thread to exit. Safe to call twice.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        WakePipe.wake()
        exited.wait()
        continuation.finish()
    }

    private func watch(readingKeys: Bool) {
        defer { exited.signal() }
        var watched = [
            pollfd(fd: WakePipe.readEnd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readingKeys ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
        ]
        var reportedSignal: Int32 = 0
        while !stopping.load(ordering: .acquiring) {
            // Checked before sleeping: a signal may have come before this thread started, and
            // its byte in the pipe wakes the poll below if it comes after this check.
            let signal = pendingSignal.load(ordering: .relaxed)
            if signal != 0 && signal != reportedSignal {
                reportedSignal = signal
                continuation.yield(.stopSignal(signal))
            }
            if terminalResized.exchange(false, ordering: .relaxed) { continuation.yield(.resized) }
            // Without a pipe (`pipe` failed), wake up now and then to look at the flags.
            let count = poll(&watched, nfds_t(watched.count), WakePipe.readEnd >= 0 ? -1 : 50)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            if watched[0].revents != 0 { WakePipe.drain() }
            if watched[1].revents != 0, !stopping.load(ordering: .acquiring) {
                if let keys = Self.readKeys() {
                    if !keys.isEmpty { continuation.yield(.keys(keys)) }
                } else {
                    watched[1].fd = -1  // End of input or an error: nothing more to read there.
                }
            }
        }
    }

    /// What one `read` of standard input returned: bytes, nothing (try again), or `nil` at its
    /// end or on an error.
    private static func readKeys() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if count > 0 { return Array(buffer[0..<count]) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
        return nil
    }
}

/// The process's wake pipe: ``SignalTrap``'s handlers write a byte to it so that an
/// ``InputWatcher`` asleep in `poll` wakes up.
///
/// Created once and never closed: a handler reads the descriptor and writes to it with no lock
/// (nothing else is async-signal-safe), so closing it could send that byte into whatever file
/// later reused the number. Both ends are non-blocking: a handler never waits on a full pipe
/// (a full pipe wakes the watcher as well as one more byte would).
enum WakePipe {
    private static let ends: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }()

    /// Creates the pipe if needed and hands its write end to ``wake()``; called by
    /// ``SignalTrap/install(resizes:)`` before it installs the handlers, and by ``InputWatcher``.
    static func prepare() {
        wakeDescriptor.store(ends.write, ordering: .relaxed)
    }

    /// The end an ``InputWatcher`` polls (-1 if the pipe could not be made: then only keys wake it).
    static var readEnd: Int32 { ends.read }

    /// Writes one byte; async-signal-safe (an atomic load and `write`, errno kept).
    static func wake() {
        let descriptor = wakeDescriptor.load(ordering: .relaxed)
        guard descriptor >= 0 else { return }
        let saved = errno
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
        errno = saved
    }

    /// Empties the pipe.
    static func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(ends.read, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// The write end of ``WakePipe`` once prepared, else -1; read by the signal handlers.
let wakeDescriptor = Atomic<Int32>(-1)
