import ImgToolKit

/// Plays an animation in real time without drawing, printing one JSON line per delivered frame.
enum JSONPlayer {
    /// Plays `source` and prints `{"delay_ms","dropped","index","lateness_ms","loop","t_ms"}` lines.
    @MainActor
    static func run(source: any FrameSource, options: AnimationOptions, commandStart: ContinuousClock.Instant) async
        -> PlaybackOutcome
    {
        let recorder = StatsRecorder(commandStart: commandStart)
        do {
            let scheduler = AnimationScheduler(options: options, clock: ContinuousClock())
            // The frames are decoded and composited (a frame builds on the ones before it), but
            // nothing is drawn, so only a token crosses to the main actor.
            let report = try await scheduler.play(source, transform: { _ in true }) { frame, _ in
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
}

/// Playback statistics, kept on the main actor where frames are delivered.
@MainActor
final class StatsRecorder {
    var stats: PlaybackStats

    init(commandStart: ContinuousClock.Instant) {
        stats = PlaybackStats(commandStart: commandStart)
    }
}
