/// Runs `work` while `watch` runs beside it, and cancels whichever is still running when the
/// other ends: the pattern of a transfer raced against its idle timeout, or a command's work raced
/// against a stop signal.
///
/// - When `work` ends first, `watch` is cancelled and `work`'s result is returned.
/// - When `watch` returns first, `work` is cancelled and its result (usually a `cancelled`
///   error, or a value it finished anyway) is returned.
/// - When `watch` throws first, `work` is cancelled and `watch`'s error is thrown.
///
/// Both run as child tasks, so cancelling the caller cancels both; neither outlives the call.
public func race<Value: Sendable>(
    _ work: @escaping @Sendable () async throws -> Value,
    cancelledWhen watch: @escaping @Sendable () async throws -> Void
) async throws -> Value {
    let outcome = await withTaskGroup(of: RaceEnd<Value>.self) { group -> Result<Value, any Error> in
        group.addTask {
            do {
                return .work(.success(try await work()))
            } catch {
                return .work(.failure(error))
            }
        }
        group.addTask {
            do {
                try await watch()
                return .watch(nil)
            } catch {
                return .watch(error)
            }
        }
        var watchError: (any Error)?
        while let ended = await group.next() {
            switch ended {
            case .work(let result):
                group.cancelAll()
                if let watchError { return .failure(watchError) }
                return result
            case .watch(let error):
                watchError = error
                group.cancelAll()
            }
        }
        preconditionFailure("the work's task always ends with a result")
    }
    return try outcome.get()
}

/// Which side of a ``race(_:cancelledWhen:)`` ended, and how.
private enum RaceEnd<Value: Sendable>: Sendable {
    case work(Result<Value, any Error>)
    case watch((any Error)?)
}
