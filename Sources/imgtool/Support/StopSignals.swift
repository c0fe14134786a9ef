import ArgumentParser
import Foundation
import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// Lets commands that write files stop cleanly on SIGINT, SIGTERM and SIGHUP: the signal
/// cancels the work instead of killing the process, so its cleanup runs (a half-written
/// temporary file is removed, frames already written are taken back), and the command then
/// exits with 128+N as a killed process would.
enum StopSignals {
    /// A command's `run()`: `body` under ``cancelling(_:)``, its ``ImgToolError`` printed as one
    /// `error:` line on stderr and turned into exit status 1, a ``UsageErrorAfterReading`` as one
    /// line and 64; other errors (a usage error) go to the argument parser as they are.
    /// - Throws: `ExitCode.failure`, `ExitCode.validationFailure`, or `ExitCode(128 + N)` after
    ///   signal N.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        do {
            return try await cancelling(body)
        } catch let error as ImgToolError {
            if error.code == .writeFailed && error.message == ByteSink.readerGone { Console.exitIfReaderGone(EPIPE) }
            Console.error("error: \(error.commandLineDescription)")
            throw ExitCode.failure
        } catch let usage as UsageErrorAfterReading {
            Console.error("error: \(usage.description)")
            throw ExitCode.validationFailure
        }
    }

    /// Runs `body` in a child task that a stop signal cancels.
    /// - Parameter body: the command's work.
    /// - Returns: what `body` returns when it finishes, even if a signal came too late to stop it.
    /// - Throws: `ExitCode(128 + N)` when signal N arrived and the work then failed (it was
    ///   cancelled); otherwise what `body` throws.
    static func cancelling<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        var trap = SignalTrap()
        trap.install(resizes: false)
        let workEnded = Locked(false)
        // Watches for a stop signal on a thread of its own: the cooperative pool may have every
        // thread busy inside a C encoder, and the watcher task below then does not run until it
        // is done (under ThreadSanitizer, with another process on the other core, 4.6 s).
        guardAgainstStop(workEnded: workEnded)
        let watcher = InputWatcher(readingKeys: false)
        defer {
            watcher.stop()
            trap.restore()
        }
        let result: Result<Value, any Error>? = try? await race(
            {
                do {
                    return .success(try await body())
                } catch {
                    return .failure(error)
                }
            },
            cancelledWhen: {
                // Ends with the first stop signal, or when cancelled because the work ended.
                for await event in watcher.events {
                    if case .stopSignal = event {
                        // Nothing is committed from now on, and every temporary file goes now.
                        OutputGate.shared.close()
                        return
                    }
                }
            })
        workEnded.withLock { $0 = true }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            let signal = pendingSignal.load(ordering: .relaxed)
            if signal != 0 { throw ExitCode(128 + signal) }
            throw error
        case nil:
            preconditionFailure("the work's task always returns a result")
        }
    }

    /// How long work cancelled by a stop signal may take to wind down before the process exits
    /// without it: an encode inside a C library (libaom, libjxl, zlib at level 9) does not look
    /// at cancellation, and may run for minutes.
    static let grace = Duration.milliseconds(700)

    /// Starts a thread that waits for a stop signal while `workEnded` is not set: on one, it
    /// closes the output gate at once (so nothing the work does can reach the user's files, and
    /// its temporary files are gone), and if the work has not ended ``grace`` later, exits the
    /// process with 128 + the signal. It needs no thread of the cooperative pool.
    private static func guardAgainstStop(workEnded: Locked<Bool>) {
        Thread.detachNewThread {
            while !workEnded.withLock({ $0 }) {
                let signal = pendingSignal.load(ordering: .relaxed)
                guard signal != 0 else {
                    usleep(20_000)
                    continue
                }
                OutputGate.shared.close()
                let deadline = ContinuousClock.now.advanced(by: grace)
                while ContinuousClock.now < deadline {
                    if workEnded.withLock({ $0 }) { return }
                    usleep(10_000)
                }
                guard !workEnded.withLock({ $0 }) else { return }
                _exit(128 + signal)
            }
        }
    }
}
