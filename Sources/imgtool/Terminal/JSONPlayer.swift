import ImgToolKit

/// Plays an animation in real time without drawing, printing one JSON line per delivered frame.
///
/// SIGINT, SIGTERM and SIGHUP stop playback before the next frame instead of killing the
/// process, so `--stats` still ends the output and the exit status is 128+N; they do so even
/// when the reader of standard output has stopped reading (``Terminal/takeOutput()``).
enum JSONPlayer {
    /// Plays `source` and prints `{"delay_ms","dropped","index","lateness_ms","loop","t_ms"}` lines.
    @MainActor
    static func run(source: any FrameSource, options: AnimationOptions, commandStart: ContinuousClock.Instant) async
        -> PlaybackOutcome
    {
        let recorder = StatsRecorder(commandStart: commandStart)
        var signals = SignalTrap()
        signals.install(resizes: false)
        Terminal.takeOutput()
        let input = InputWatcher(readingKeys: false)
        defer {
            input.stop()
            Terminal.releaseOutput()
            signals.restore()
        }
        var outcome = PlaybackOutcome(report: nil, stats: recorder.stats)
        await withTaskGroup(of: PlaybackOutcome?.self) { group in
            group.addTask { await play(source: source, options: options, recorder: recorder) }
            group.addTask { await waitForSignal(input.events) }
            while let finished = await group.next() {
                if let finished { outcome = finished }
                group.cancelAll()
            }
        }
        let signal = pendingSignal.load(ordering: .relaxed)
        if signal != 0 { outcome.signal = signal }
        outcome.stats = recorder.stats
        return outcome
    }

    @MainActor
    private static func play(source: any FrameSource, options: AnimationOptions, recorder: StatsRecorder) async
        -> PlaybackOutcome
    {
        do {
            let scheduler = AnimationScheduler(options: options, clock: ContinuousClock())
            // The frames are decoded and composited (a frame builds on the ones before it), but
            // nothing is drawn, so only a token crosses to the main actor; once a play's tokens
            // are cached, later plays need no decoding at all, as in the terminal player.
            let cache = PlaybackCache<Bool>(byteBudget: 1 << 20, cost: { _ in 1 })
            let report = try await scheduler.play(source, transform: { _ in true }, cache: cache) { frame, _ in
                recorder.stats.record(lateness: frame.lateness)
                let line: JSONValue = [
                    "index": .int(frame.index), "loop": .int(frame.play),
                    "t_ms": .milliseconds((frame.deadline + frame.lateness).milliseconds),
                    "delay_ms": .milliseconds(frame.duration.milliseconds),
                    "lateness_ms": .milliseconds(frame.lateness.milliseconds),
                    "dropped": .int(frame.droppedBefore),
                ]
                Terminal.write(line.serialized + "\n")
            }
            var outcome = PlaybackOutcome(report: report, stats: recorder.stats)
            if case .failed(let error) = report.outcome { outcome.error = error }
            return outcome
        } catch {
            return PlaybackOutcome(report: nil, stats: recorder.stats, error: error)
        }
    }

    /// Returns `nil` once a stop signal has arrived (or when cancelled because playback ended).
    private static func waitForSignal(_ events: AsyncStream<PlayerEvent>) async -> PlaybackOutcome? {
        for await event in events {
            if case .stopSignal = event { break }
        }
        return nil
    }
}

/// Playback statistics, kept on the main actor where frames are delivered.
@MainActor
final class StatsRecorder {
    var stats: PlaybackStats

    init(commandStart: ContinuousClock.Instant) {
        stats = PlaybackStats(commandStart: commandStart)
    }
}
