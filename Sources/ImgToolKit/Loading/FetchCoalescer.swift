/// Runs each distinct fetch once: callers asking for a key that is already being fetched, or was
/// fetched for them, share its bytes (or its error).
///
/// The actor only keeps the table of keys; the fetch itself runs in the first caller's task,
/// off the actor (the `fetch` closure is a nonisolated async function), so a slow transfer never
/// holds the actor. Waiters are resumed after the table is updated.
///
/// Finished bytes are kept only for the uses announced with ``expect(_:)`` and dropped after the
/// last one, so a merge does not hold a file's compressed bytes next to its pixels.
///
/// Waiters follow the first caller: if it is cancelled, they get its `cancelled` error. Within
/// one ``ImageLoader`` or ``ImageMerger`` call every caller belongs to the same tree of tasks, so
/// they are cancelled together. A cancelled fetch is forgotten, so a later call tries again.
actor FetchCoalescer {
    private typealias Waiter = CheckedContinuation<Result<[UInt8], ImgToolError>, Never>

    private enum Entry {
        case inFlight(waiters: [Waiter])
        case done(Result<[UInt8], ImgToolError>)
    }

    private var entries: [String: Entry] = [:]
    private var pendingUses: [String: Int] = [:]
    /// How many fetches actually ran (for tests and diagnostics).
    private(set) var fetchCount = 0

    /// Announces that each key in `keys` will be asked for once more (a key may repeat).
    func expect(_ keys: [String]) {
        for key in keys { pendingUses[key, default: 0] += 1 }
    }

    /// The bytes for `key`, running `fetch` only if no other caller has started it.
    /// - Parameters:
    ///   - key: identifies the resource (an absolute URL).
    ///   - fetch: runs the transfer.
    func bytes(
        for key: String, fetch: @Sendable () async throws(ImgToolError) -> [UInt8]
    ) async throws(ImgToolError) -> [UInt8] {
        defer { used(key) }
        switch entries[key] {
        case .done(let result)?:
            return try result.get()
        case .inFlight?:
            let result = await withCheckedContinuation { (waiter: Waiter) in
                if case .inFlight(let waiters)? = entries[key] {
                    entries[key] = .inFlight(waiters: waiters + [waiter])
                } else if case .done(let result)? = entries[key] {
                    waiter.resume(returning: result)
                } else {
                    waiter.resume(returning: .failure(ImgToolError(.cancelled, "cancelled")))
                }
            }
            return try result.get()
        case nil:
            entries[key] = .inFlight(waiters: [])
            fetchCount += 1
            let result: Result<[UInt8], ImgToolError>
            do {
                result = .success(try await fetch())
            } catch {
                result = .failure(error)
            }
            finish(key, with: result)
            return try result.get()
        }
    }

    private func finish(_ key: String, with result: Result<[UInt8], ImgToolError>) {
        guard case .inFlight(let waiters)? = entries[key] else { return }
        if case .failure(let error) = result, error.code == .cancelled {
            entries[key] = nil
        } else {
            entries[key] = .done(result)
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// Counts one use of `key` and drops its finished bytes after the last announced use.
    private func used(_ key: String) {
        let remaining = (pendingUses[key] ?? 0) - 1
        pendingUses[key] = remaining > 0 ? remaining : nil
        if remaining <= 0, case .done? = entries[key] { entries[key] = nil }
    }
}
