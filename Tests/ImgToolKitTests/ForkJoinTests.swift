import Glibc
import Testing

@testable import ImgToolKit

/// `forkJoin` runs its side on a parked worker thread: results come back from both sides, the
/// side runs on another thread, workers are reused rather than started for every fork, and
/// forks nested in a side or made from many threads at once all finish.
@Suite("Fork and join", .timeLimit(.minutes(5)))
struct ForkJoinTests {
    private static func threadID() -> UInt { UInt(bitPattern: Int(pthread_self())) }

    @Test("both results come back, the side's from another thread")
    func results() {
        let caller = Self.threadID()
        let (side, main) = forkJoin({ (Self.threadID(), 6 * 7) }, alongside: { "main" })
        #expect(side.1 == 42)
        #expect(main == "main")
        #expect(side.0 != caller)
    }

    /// Counts its releases; owned by a side's closure alone.
    private final class Witness: Sendable {
        let released: Locked<Int>
        init(_ released: Locked<Int>) { self.released = released }
        deinit { released.withLock { $0 += 1 } }
    }

    /// FuzzOperationWords' leak report: the worker released what a side captured (a resized
    /// frame) only after waking the joiner, so memory the side held outlived the join, and
    /// LeakSanitizer, run by libFuzzer as the harness returned, found it owned by no one.
    @Test("what a side captured is released before join returns")
    func capturesReleasedBeforeJoin() {
        let released = Locked(0)
        for round in 1...500 {
            let forked = fork { [witness = Witness(released)] in witness.released.withLock { $0 } }
            _ = forked.join()
            let count = released.withLock { $0 }
            #expect(count == round, "round \(round): the side's captures were still alive after join")
            if count != round { break }
        }
    }

    /// FuzzOperationWords' second leak report: the worker kept a copy of the side's result (a
    /// resized 16-bit frame) in its delivery closure and released it just after the joiner had
    /// woken, so a frame the joiner had let go of was still alive, reachable only through a
    /// tagged enum payload that LeakSanitizer cannot follow.
    @Test("the side's result is the joiner's alone: gone as soon as the joiner lets it go")
    func resultOwnedByJoiner() {
        let released = Locked(0)
        for round in 1...500 {
            do {
                let witness = fork { Witness(released) }.join()
                _ = witness
            }
            let count = released.withLock { $0 }
            #expect(count == round, "round \(round): the side's result outlived the joiner's last use")
            if count != round { break }
        }
    }

    @Test("a thousand forks one after another reuse a few workers")
    func reuse() {
        var threads = Set<UInt>()
        for round in 0..<1000 {
            let (side, main) = forkJoin({ (Self.threadID(), round * 2) }, alongside: { round + 1 })
            #expect(side.1 == round * 2 && main == round + 1)
            threads.insert(side.0)
        }
        // One worker serves every fork of this thread; other tests forking at the same time
        // may take it for a while, and then another is started.
        #expect(threads.count <= 8, "\(threads.count) threads for 1000 forks")
    }

    @Test("a fork inside a side, and forks from eight threads at once")
    func nestedAndConcurrent() async {
        let (outer, _) = forkJoin({ forkJoin({ 1 }, alongside: { 2 }) }, alongside: { () })
        #expect(outer.side == 1 && outer.main == 2)
        let sums = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var total = 0
                    for round in 0..<200 {
                        let (a, b) = forkJoin({ task * 1000 + round }, alongside: { round })
                        total += a - b
                    }
                    return total
                }
            }
            var sums: [Int] = []
            for await sum in group { sums.append(sum) }
            return sums.sorted()
        }
        #expect(sums == (0..<8).map { $0 * 1000 * 200 })
    }

    @Test("a failing side stops the other half, and the side's error is the one thrown")
    func failure() {
        do {
            _ = try forkJoinStoppingOnFailure(
                { (_: () -> Bool) throws(ImgToolError) -> Int in throw ImgToolError(.corrupt, "side failed") },
                alongside: { (shouldStop: () -> Bool) throws(ImgToolError) -> Int in
                    var spins = 0
                    while !shouldStop() { spins += 1 }
                    throw ImgToolError(.cancelled, "stopped after \(spins) checks")
                })
            Issue.record("no error thrown")
        } catch {
            #expect(error.code == .corrupt)
        }
    }
}
