import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// One line of status on stderr, redrawn in place (carriage return, erase to the end of the line)
/// and erased when done, so the messages after it start on a clean line.
struct StatusLine {
    /// Whether a line is on screen.
    private(set) var isDrawn = false

    /// Whether stderr is a terminal (the only place a status line belongs).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Rewrites the line with `text`, or erases it for `nil`.
    mutating func draw(_ text: String?) {
        var line = "\r\u{1B}[K"
        if let text {
            line += text
            isDrawn = true
        } else {
            isDrawn = false
        }
        Console.errorText(line)
    }

    /// The line `essentials  counters  hint`, fitted to `width` columns: counters are dropped from
    /// the last while the line is too wide, then the hint, and only then is the text cut. So a
    /// narrow terminal, or a long run whose counts grew, still shows where the player is and how
    /// to quit it.
    static func fitted(_ essentials: [String], counters: [String], hint: String, width: Int) -> String {
        let width = max(width, 0)
        var counters = counters
        while true {
            let line = (essentials + counters + [hint]).joined(separator: "  ")
            if line.count <= width { return line }
            if counters.isEmpty { break }
            counters.removeLast()
        }
        return String(essentials.joined(separator: "  ").prefix(width))
    }
}

/// `merge: writing frame 37 of 200` on stderr while a long animation is written.
///
/// The writer reports each frame from its own task through an `AsyncStream`; the line is drawn
/// on the main actor, which only prints, when stderr is a terminal and writing has taken half a
/// second, at most ten times a second, and erased at the end.
@MainActor
enum WriteProgressLine {
    /// Runs `body`, handing it the callback that reports frames written.
    static func showing<Value: Sendable>(
        _ label: String, frames total: Int,
        _ body: (@escaping @Sendable (Int) -> Void) async throws(ImgToolError) -> Value
    ) async throws(ImgToolError) -> Value {
        let (events, sink) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        async let drawing: Void = draw(events, label: label, total: total)
        let result: Result<Value, ImgToolError>
        do throws(ImgToolError) {
            result = .success(try await body { sink.yield($0) })
        } catch {
            result = .failure(error)
        }
        sink.finish()
        await drawing
        return try result.get()
    }

    private static func draw(_ events: AsyncStream<Int>, label: String, total: Int) async {
        guard StatusLine.stderrIsTerminal else {
            for await _ in events {}
            return
        }
        var line = StatusLine()
        let clock = ContinuousClock()
        let start = clock.now
        var lastDraw = start
        for await written in events {
            let now = clock.now
            guard now - start >= .milliseconds(500), now - lastDraw >= .milliseconds(100) else { continue }
            lastDraw = now
            line.draw("\(label): writing frame \(written) of \(total)")
        }
        if line.isDrawn { line.draw(nil) }
    }
}
