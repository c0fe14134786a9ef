import ImgToolKit

/// Draws `imgtool merge`'s progress line on stderr from the loader's ``LoadEvent``s.
///
/// Runs on the main actor, which only prints: the events arrive through an `AsyncStream` fed by
/// the loading tasks. The line appears only when stderr is a terminal and there are several
/// inputs (three or more) or loading has taken longer than half a second; it is redrawn at most
/// ten times a second and erased when loading ends, so the final messages start on a clean line.
@MainActor
final class MergeProgressLine {
    private var progress: LoadProgress
    private let enabled: Bool
    private let showAtOnce: Bool
    private var line = StatusLine()

    init(count: Int, enabled: Bool) {
        progress = LoadProgress(count: count)
        self.enabled = enabled
        showAtOnce = count >= 3
    }

    /// Consumes `events` until the stream finishes, drawing as it goes, then erases the line.
    func run(_ events: AsyncStream<LoadEvent>) async {
        let clock = ContinuousClock()
        let start = clock.now
        var lastDraw: ContinuousClock.Instant?
        for await event in events {
            progress.record(event)
            guard enabled else { continue }
            let now = clock.now
            guard showAtOnce || now - start >= .milliseconds(500) else { continue }
            if let lastDraw, now - lastDraw < .milliseconds(100), progress.finishedCount < progress.count { continue }
            lastDraw = now
            line.draw("merge: " + progress.summary)
        }
        if line.isDrawn { line.draw(nil) }
    }
}
