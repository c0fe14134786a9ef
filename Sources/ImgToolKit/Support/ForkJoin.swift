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
/// `@unchecked Sendable`: `value` is only read or written while holding the lock.
private final class JoinSlot<Value>: @unchecked Sendable {
    private let filled = ConditionLock()
    private var value: Value?

    func fill(_ result: Value) {
        filled.lock()
        value = result
        filled.broadcast()
        filled.unlock()
    }

    func wait() -> Value {
        filled.lock()
        defer { filled.unlock() }
        while true {
            if let value { return value }
            filled.wait()
        }
    }
}
