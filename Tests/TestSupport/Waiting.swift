import Foundation

/// Waits until `condition` holds, checking it every `interval`, for at most `timeout`; returns
/// whether it held. Tests wait on the condition they need, never for a fixed time.
///
/// The default timeout is only a guard against a hang, so it is long (4 minutes, inside the
/// suites' 5-minute limits): `swift test` starts every test at once on a pool of one thread per
/// core, and on a busy 2-core machine the task a test waits for can queue behind the CPU-bound
/// tests for over a minute (loader tests failed so at 60 s while other builds ran).
public func waitUntil(
    timeout: Duration = .seconds(240), interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: interval)
    }
}

/// ``waitUntil(timeout:interval:_:)`` for code outside Swift concurrency (a thread, an exit
/// test that must not start threads of its own): blocks the calling thread between checks.
public func blockUntil(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(2), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18)
    }
}

/// Reads the FIFO at `path` to its end on a thread of its own (not a task: the cooperative pool
/// may have every thread blocked in the writer's `open`, which waits for this reader), and
/// returns what it read once ``wait()`` is called.
public final class FIFOReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []

    /// Starts reading the FIFO at `path` (the thread blocks in `open` until a writer opens it).
    public init(_ path: String) {
        Thread.detachNewThread { [self] in
            if let handle = FileHandle(forReadingAtPath: path) {
                bytes = [UInt8](handle.readDataToEndOfFile())
                try? handle.close()
            }
            done.signal()
        }
    }

    /// What the reader read, once the writer has closed the FIFO.
    public func wait() -> [UInt8] {
        done.wait()
        return bytes
    }
}
