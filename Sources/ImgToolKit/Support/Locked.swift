#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`: imgtool's lock for shared mutable state.
///
/// Why not `Synchronization.Mutex`: on Linux its lock and unlock run inside the uninstrumented
/// Swift runtime, so ThreadSanitizer cannot see the ordering it provides and reports every guarded
/// access as a race, burying real ones. `pthread_mutex_lock` is intercepted by ThreadSanitizer, so
/// `swift test --sanitize=thread` stays meaningful. As with Nuke's locks, never call out to other
/// code while holding it.
///
/// `@unchecked Sendable` is sound here: this class wraps a C mutex handle, and the value is only
/// reached through ``withLock(_:)``, which holds the mutex.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value (`pthread_mutex_lock` / `pthread_mutex_unlock`).
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
