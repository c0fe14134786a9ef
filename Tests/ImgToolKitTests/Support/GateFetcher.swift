import Foundation
import ImgToolKit
import TestSupport
import Testing

/// A fake ``DataFetching`` for loader tests: no network, and every fetch can be frozen until
/// the test releases it, so order, concurrency and cancellation can be checked step by step.
final class GateFetcher: DataFetching {
    private struct State {
        var responses: [String: Result<[UInt8], ImgToolError>] = [:]
        var frozen = true
        var gates: [String: [CheckedContinuation<Bool, Never>]] = [:]
        var released: Set<String> = []
        var started: [String] = []
        var cancelled: [String] = []
        var finished: [String] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    private let state = Locked(State())

    /// - Parameter frozen: when `true`, every fetch waits for ``release(_:)``.
    init(frozen: Bool = true) {
        state.withLock { $0.frozen = frozen }
    }

    /// What fetching `url` gives.
    func respond(_ url: String, with result: Result<[UInt8], ImgToolError>) {
        state.withLock { $0.responses[url] = result }
    }

    /// Lets the fetches of `url` (waiting or future) finish.
    func release(_ url: String) {
        let waiters = state.withLock {
            $0.released.insert(url)
            return $0.gates.removeValue(forKey: url) ?? []
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    var started: [String] { state.withLock { $0.started } }
    var cancelled: [String] { state.withLock { $0.cancelled } }
    var finished: [String] { state.withLock { $0.finished } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Waits until `count` fetches have started.
    func waitUntilStarted(_ count: Int) async throws {
        try await waitUntil("\(count) fetches started") { $0.started.count >= count }
    }

    /// Waits until `count` fetches have been cancelled.
    func waitUntilCancelled(_ count: Int) async throws {
        try await waitUntil("\(count) fetches cancelled") { $0.cancelled.count >= count }
    }

    private func waitUntil(_ what: String, _ condition: @escaping (State) -> Bool) async throws {
        if try await TestSupport.waitUntil({ state.withLock { condition($0) } }) { return }
        Issue.record("\(what): not reached in time; started \(started), cancelled \(cancelled)")
    }

    func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        let key = url.absoluteString
        let mustWait = state.withLock {
            $0.started.append(key)
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
            return $0.frozen && !$0.released.contains(key)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if mustWait {
            let released = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let resumeNow: Bool? = state.withLock {
                        if $0.released.contains(key) { return true }
                        if Task.isCancelled { return false }
                        $0.gates[key, default: []].append(continuation)
                        return nil
                    }
                    if let resumeNow { continuation.resume(returning: resumeNow) }
                }
            } onCancel: {
                let waiters = state.withLock { $0.gates.removeValue(forKey: key) ?? [] }
                for waiter in waiters { waiter.resume(returning: false) }
            }
            if !released {
                state.withLock { $0.cancelled.append(key) }
                throw ImgToolError(.cancelled, "cancelled", input: name)
            }
        }
        let response =
            state.withLock { $0.responses[key] } ?? .failure(ImgToolError(.notFound, "HTTP status 404 (not found)"))
        state.withLock { $0.finished.append(key) }
        switch response {
        case .success(let bytes):
            progress(FetchProgress(bytesSoFar: bytes.count, total: bytes.count))
            return bytes
        case .failure(let error):
            throw error.naming(name)
        }
    }
}
