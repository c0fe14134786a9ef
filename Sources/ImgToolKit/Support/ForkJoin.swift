import Foundation

/// Runs `side` on a new thread while `body` runs on the calling thread, and returns both
/// results once both have finished: the smallest fork and join, for splitting one synchronous C
/// job (a frame's LZW data) in two.
///
/// A plain thread, not a task, for the same reason as ``DecodeAhead``: `side` is milliseconds
/// of blocking C work. The thread has ended its work when this returns.
func forkJoin<Side: Sendable, Main>(_ side: @escaping @Sendable () -> Side, alongside body: () -> Main) -> (
    side: Side, main: Main
) {
    let slot = JoinSlot<Side>()
    let thread = Thread { slot.fill(side()) }
    thread.name = "imgtool.fork"
    thread.start()
    let main = body()
    return (slot.wait(), main)
}

/// The side's result, handed from its thread to the joining one.
///
/// `@unchecked Sendable`: `value` is only read or written while holding the mutex
/// (`pthread_mutex_t` and `pthread_cond_t`, which ThreadSanitizer understands; see ``Locked``).
private final class JoinSlot<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let filled: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value?

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        filled = .allocate(capacity: 1)
        filled.initialize(to: pthread_cond_t())
        pthread_cond_init(filled, nil)
    }

    deinit {
        pthread_cond_destroy(filled)
        filled.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func fill(_ result: Value) {
        pthread_mutex_lock(mutex)
        value = result
        pthread_cond_signal(filled)
        pthread_mutex_unlock(mutex)
    }

    func wait() -> Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value { return value }
            pthread_cond_wait(filled, mutex)
        }
    }
}
