import Testing

@testable import ImgToolKit

@Suite("Concurrency helpers: race and ordered window", .timeLimit(.minutes(5)))
struct ConcurrencyHelperTests {
    @Test("The window hands outputs back in job order, whatever order they finish in, with at most width in flight")
    func orderedWindow() async throws {
        let inFlight = Locked((now: 0, most: 0))
        var next = 0
        var consumed: [Int] = []
        try await withOrderedWindow(
            width: 3,
            produce: { () throws(ImgToolError) -> Int? in
                defer { next += 1 }
                return next < 20 ? next : nil
            },
            work: { (job) async throws(ImgToolError) -> Int in
                inFlight.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                // Later jobs finish first: each yields fewer times than the one before.
                for _ in 0..<(20 - job) { await Task.yield() }
                inFlight.withLock { $0.now -= 1 }
                return job * 10
            },
            consume: { consumed.append($0) })
        #expect(consumed == (0..<20).map { $0 * 10 })
        #expect(inFlight.withLock { $0.most } <= 3)
    }

    @Test("A failing job stops the window: later outputs are discarded, never consumed, and its error is thrown")
    func orderedWindowFailure() async throws {
        var next = 0
        var consumed: [Int] = []
        let discarded = Locked<[Int]>([])
        let error = await #expect(throws: ImgToolError.self) {
            try await withOrderedWindow(
                width: 2,
                produce: { () throws(ImgToolError) -> Int? in
                    defer { next += 1 }
                    return next < 10 ? next : nil
                },
                work: { (job) async throws(ImgToolError) -> Int in
                    if job == 4 { throw ImgToolError(.corrupt, "job 4 failed") }
                    return job
                },
                consume: { consumed.append($0) },
                discard: { output in discarded.withLock { $0.append(output) } })
        }
        #expect(error?.message == "job 4 failed")
        #expect(consumed == Array(0..<consumed.count) && consumed.count <= 4)
        #expect(discarded.withLock { $0 }.allSatisfy { $0 > 4 || !consumed.contains($0) })
    }

    @Test("race: work that ends first wins; a watcher that returns cancels the work; one that throws wins")
    func raceOutcomes() async throws {
        let quick = try await race({ 7 }, cancelledWhen: { try await Task.sleep(for: .seconds(60)) })
        #expect(quick == 7)
        let stopped = try await race(
            { () async -> String in
                do {
                    try await Task.sleep(for: .seconds(60))
                    return "finished"
                } catch {
                    return "cancelled"
                }
            }, cancelledWhen: {})
        #expect(stopped == "cancelled")
        await #expect(throws: ImgToolError.self) {
            _ = try await race(
                { () async throws -> Int in
                    try await Task.sleep(for: .seconds(60))
                    return 1
                }, cancelledWhen: { throw ImgToolError(.network, "timed out") })
        }
    }
}
