#if canImport(Glibc)
    import Glibc
#endif

/// A `pthread_mutex_t` with one `pthread_cond_t`: the lock for threads that wait for each other
/// (``DecodeAhead``'s helpers and reader, ``forkJoin(_:alongside:)``).
///
/// Plain pthreads for the same reason as ``Locked``: ThreadSanitizer intercepts them, so
/// `swift test --sanitize=thread` sees the ordering they provide. The owner guards its own state
/// with ``lock()`` and ``unlock()``; ``wait()`` must be called with the lock held.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock until another thread calls ``broadcast()``, then takes it again.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread in ``wait()``.
    func broadcast() { pthread_cond_broadcast(condition) }
}
