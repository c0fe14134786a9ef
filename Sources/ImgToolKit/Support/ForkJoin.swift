import Foundation

/// Runs `side` on a second thread while `body` runs on the calling thread, and returns both
/// results once both have finished: the smallest fork and join, for splitting one synchronous C
/// job (a frame's LZW data) in two.
///
/// A plain thread, not a task, for the same reason as ``DecodeAhead``: `side` is milliseconds
/// of blocking C work. The thread is one of ``ForkWorker``'s, parked between jobs: an animation
/// forks several times a frame, and starting a thread each time (its stack handed back to the
/// kernel and faulted in again) cost more than the smaller jobs. The side has ended its work
/// when this returns.
func forkJoin<Side: Sendable, Main>(_ side: @escaping @Sendable () -> Side, alongside body: () -> Main) -> (
    side: Side, main: Main
) {
    let forked = fork(side)
    let main = body()
    return (forked.join(), main)
}

/// Starts `side` on a second thread (one of ``ForkWorker``'s) and returns at once; ``Forked/join()``
/// waits for its result. For a job that runs while the caller returns to its own caller: a frame
/// resized while the frame before it is worked on.
func fork<Side: Sendable>(_ side: @escaping @Sendable () -> Side) -> Forked<Side> {
    let slot = JoinSlot<Side>()
    ForkWorker.run({ slot.store(side()) }, then: slot.deliver)
    return Forked(slot: slot)
}

/// A job started by ``fork(_:)``.
struct Forked<Value>: Sendable {
    fileprivate let slot: JoinSlot<Value>

    /// The job's result, once it has finished; called once.
    func join() -> Value { slot.wait() }
}

/// ``forkJoin(_:alongside:)`` for two halves of one job that can fail: each is handed a
/// `shouldStop` that turns true once the other has failed (on the calling thread, also when the
/// current task is cancelled), so neither runs on for nothing. Returns both results, or throws
/// the first failure: the side's when the calling thread only stopped because of it.
func forkJoinStoppingOnFailure<Side: Sendable, Main>(
    _ side: @escaping @Sendable (_ shouldStop: () -> Bool) throws(ImgToolError) -> Side,
    alongside body: (_ shouldStop: () -> Bool) throws(ImgToolError) -> Main
) throws(ImgToolError) -> (side: Side, main: Main) {
    let stopped = Locked(false)
    let (side, main) = forkJoin(
        { () -> Result<Side, ImgToolError> in
            let result = Result { () throws(ImgToolError) in try side({ stopped.withLock { $0 } }) }
            if case .failure = result { stopped.withLock { $0 = true } }
            return result
        },
        alongside: { () -> Result<Main, ImgToolError> in
            let result = Result { () throws(ImgToolError) in
                try body({ Task.isCancelled || stopped.withLock { $0 } })
            }
            if case .failure = result { stopped.withLock { $0 = true } }
            return result
        })
    switch (main, side) {
    case (.success(let main), .success(let side)):
        return (side, main)
    case (.failure(let error), .failure(let sideError)) where error.code == .cancelled && !Task.isCancelled:
        throw sideError  // this thread stopped because the side failed
    case (.failure(let error), _), (_, .failure(let error)):
        throw error
    }
}

/// The side's result, handed from its thread to the joining one.
///
/// The value is moved, never copied: the side's thread stores it and keeps nothing of it, and
/// ``wait()`` takes it out, so once the join has returned the frame it holds belongs to the
/// joining thread alone and goes when that thread lets it go. (A copy left behind in a closure
/// context on the side's thread, released a moment after the join, kept a 16-bit frame alive
/// past the end of a fuzz input; LeakSanitizer cannot follow the tagged pointer of a
/// multi-payload enum such as ``PixelBuffer/Samples`` and reported it as a leak.)
///
/// `@unchecked Sendable`: `value` and `delivered` are only read or written while holding the lock.
private final class JoinSlot<Value>: @unchecked Sendable {
    private let filled = ConditionLock()
    private var value: Value?
    private var delivered = false

    /// Keeps the side's result, without waking the joiner yet.
    func store(_ result: consuming Value) {
        filled.lock()
        value = consume result
        filled.unlock()
    }

    /// Wakes the joiner: the side's thread has let go of everything the side captured.
    func deliver() {
        filled.lock()
        delivered = true
        filled.broadcast()
        filled.unlock()
    }

    func wait() -> Value {
        filled.lock()
        defer { filled.unlock() }
        while !delivered { filled.wait() }
        guard let result = value.take() else { preconditionFailure("a fork's result was taken twice") }
        return result
    }
}

/// A thread that runs one ``forkJoin(_:alongside:)`` side at a time and waits, parked on its
/// condition, for the next. Idle workers are kept in a list; a fork takes one, or starts one
/// when none is idle (forks nested in a side, or running at once), so there are never more
/// workers than forks ever ran at the same time: one or two for a command.
private final class ForkWorker: @unchecked Sendable {
    private static let idle = Locked<[ForkWorker]>([])

    private let ready = ConditionLock()
    /// The next job, which returns the delivery of its result; read and written with `ready` held.
    private var job: (@Sendable () -> @Sendable () -> Void)?

    /// Runs `work` on an idle worker, then `deliver` on that thread: after the worker is idle
    /// again, so that a caller woken by `deliver` finds it there, and after `work` and everything
    /// it captured are released, so that nothing the side held outlives the join (a frame
    /// captured by a resize).
    static func run(_ work: @escaping @Sendable () -> Void, then deliver: @escaping @Sendable () -> Void) {
        let worker = idle.withLock { $0.popLast() } ?? started()
        worker.ready.lock()
        worker.job = {
            work()
            return {
                idle.withLock { $0.append(worker) }
                deliver()
            }
        }
        worker.ready.broadcast()
        worker.ready.unlock()
    }

    private static func started() -> ForkWorker {
        let worker = ForkWorker()
        let thread = Thread { worker.serve() }
        thread.name = "imgtool.fork"
        thread.start()
        return worker
    }

    private func serve() -> Never {
        while true {
            ready.lock()
            while job == nil { ready.wait() }
            var work = job
            job = nil
            ready.unlock()
            let delivery = work?()
            work = nil  // the side's captures go before the joiner is woken
            delivery?()
        }
    }
}
