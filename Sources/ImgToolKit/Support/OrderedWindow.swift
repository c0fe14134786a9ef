/// Runs jobs in a bounded window of child tasks and hands their outputs back in the order the
/// jobs were made: the pattern of every streaming writer (make frame N in this task, compress it
/// on another core, write the outputs in order).
///
/// `produce` runs in the calling task and returns the next job, or `nil` after the last; each
/// job's `work` runs in a child task on the cooperative pool, at most `width` at once (the
/// caller waits for the oldest before making more, so memory stays at `width` jobs); `consume`
/// runs in the calling task with each output, strictly in job order.
///
/// The first error, from `produce`, `work` or `consume`, cancels the jobs in flight; every output
/// that finished but was not consumed is handed to `discard` (so a writer can remove a file it
/// made), and the error is thrown once every child has ended. Cancelling the calling task stops
/// the window with ``ImgToolError/Code/cancelled``.
public func withOrderedWindow<Job: Sendable, Output: Sendable>(
    width: Int,
    produce: () throws(ImgToolError) -> Job?,
    work: @escaping @Sendable (Job) async throws(ImgToolError) -> Output,
    consume: (Output) throws(ImgToolError) -> Void,
    discard: (Output) -> Void = { _ in }
) async throws(ImgToolError) {
    let width = max(width, 1)
    let failure: ImgToolError? = await withTaskGroup(of: (Int, Result<Output, ImgToolError>).self) { group in
        var finished: [Int: Output] = [:]
        var made = 0
        var consumed = 0
        var inFlight = 0
        var failure: ImgToolError?
        // Consumes, in order, every finished output that is next in line.
        func collect(_ result: (Int, Result<Output, ImgToolError>)?) {
            guard let (index, outcome) = result else { return }
            inFlight -= 1
            switch outcome {
            case .success(let output) where failure == nil: finished[index] = output
            case .success(let output): discard(output)
            case .failure(let error): failure = failure ?? error
            }
            while failure == nil, let next = finished.removeValue(forKey: consumed) {
                do throws(ImgToolError) {
                    try consume(next)
                    consumed += 1
                } catch {
                    failure = error
                }
            }
        }
        do throws(ImgToolError) {
            while failure == nil, let job = try produce() {
                if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after \(made) of the jobs") }
                if inFlight == width { collect(await group.next()) }
                guard failure == nil else { break }
                let index = made
                made += 1
                group.addTask {
                    do throws(ImgToolError) {
                        return (index, .success(try await work(job)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
                inFlight += 1
            }
        } catch {
            failure = failure ?? error
        }
        if failure != nil { group.cancelAll() }
        while inFlight > 0 { collect(await group.next()) }
        if failure != nil {
            for output in finished.values { discard(output) }
        }
        return failure
    }
    if let failure { throw failure }
}
