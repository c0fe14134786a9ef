import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

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
    private var drawn = false

    init(count: Int, enabled: Bool) {
        progress = LoadProgress(count: count)
        self.enabled = enabled
        showAtOnce = count >= 3
    }

    /// Whether stderr is a terminal.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

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
            draw("merge: " + progress.summary)
        }
        if drawn { draw(nil) }
    }

    /// Rewrites the line with `text`, or erases it for `nil` (carriage return, erase to end of line).
    private func draw(_ text: String?) {
        var line = "\r\u{1B}[K"
        if let text {
            line += text
            drawn = true
        } else {
            drawn = false
        }
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
