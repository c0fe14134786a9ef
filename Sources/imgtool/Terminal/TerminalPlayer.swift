import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// Plays an animation on the terminal: frames drawn in place, a status line, `q` or Ctrl-C to quit.
///
/// Isolation: the player lives on the main actor, which only draws (diffing cells and writing
/// bytes) and acts on keys and signals; an ``InputWatcher`` thread waits for those, and scaling
/// each frame to the terminal runs in the scheduler's transform, off the main actor, while the
/// frame before it is on show.
@MainActor
final class TerminalPlayer {
    /// What the transform scales to; shared with the producer, updated on resize.
    struct Layout: Sendable, Equatable {
        var generation = 0
        var pixelWidth = 1
        var pixelHeight = 2
        var columns = 1
        var rows = 1
        var originColumn = 1
        var statusRow = 2
        /// The terminal's width: the status line is cut to it rather than wrapped.
        var statusWidth = 80
    }

    /// A frame scaled for the layout of `generation`.
    struct Rendered: Sendable {
        var image: ScaledImage
        var generation: Int
    }

    /// The most memory the scaled frames of one play may take for later plays: 16 MiB.
    static let cacheBudget = 16 << 20

    private let source: any FrameSource
    private let options: AnimationOptions
    private let graphics: GraphicsProtocol
    private let fixedWidth: Int?
    private let fixedHeight: Int?
    private let layout = LayoutBox()
    private var drawnGeneration = -1
    /// The layout generation of the picture on screen.
    private var pictureGeneration = -1
    private var renderer = TerminalRenderer()
    private var lastImage: ScaledImage?
    private var recorder: StatsRecorder
    private var quitSignal: Int32?
    private var quitRequested = false
    private var dropped = 0
    private var late = 0
    private var lastStatus = ""
    /// The frame and play the status line names.
    private var shown = (index: 0, play: 0)
    /// A still's decoded picture, kept while it is held on screen to scale it again on a resize.
    private let still = Locked<PixelBuffer?>(nil)
    /// Told of every resize, for a held still (only the latest one is kept).
    private let resizes = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    init(
        source: any FrameSource, options: AnimationOptions, graphics: GraphicsProtocol, width: Int?, height: Int?,
        commandStart: ContinuousClock.Instant
    ) {
        self.source = source
        self.options = options
        self.graphics = graphics
        self.fixedWidth = width
        self.fixedHeight = height
        self.recorder = StatsRecorder(commandStart: commandStart)
        updateLayout()
    }

    /// Plays until the animation ends, `q` is pressed or a signal arrives; the terminal is
    /// restored before this returns, whatever happened.
    func run() async -> PlaybackOutcome {
        var terminal = Terminal()
        terminal.enter()
        defer { terminal.restore() }
        // Keys come from standard input only when it is a terminal (it may be the image itself: `-`).
        let input = InputWatcher(readingKeys: isatty(STDIN_FILENO) == 1)
        defer { input.stop() }
        var outcome = PlaybackOutcome(report: nil, stats: recorder.stats)
        // A still is held on screen until q (or a signal): drawn once, it would vanish at once.
        // Only when keys can be read: with the image on standard input, q could never come.
        let holds = !source.info.isAnimated && isatty(STDIN_FILENO) == 1
        await withTaskGroup(of: PlaybackOutcome?.self) { group in
            group.addTask {
                let outcome = await self.play(keepingStill: holds)
                if holds, outcome?.error == nil { await self.hold() }
                return outcome
            }
            group.addTask { await self.watchInput(input.events) }
            // Whichever ends first ends the other: playback finishing stops the watcher, and a
            // quit (the watcher's nil) cancels playback at once, even mid-way through a long delay.
            while let finished = await group.next() {
                if let finished { outcome = finished }
                group.cancelAll()
            }
        }
        outcome.signal = quitSignal
        outcome.stats = recorder.stats
        return outcome
    }

    private func play(keepingStill: Bool) async -> PlaybackOutcome? {
        let layout = self.layout
        let still = self.still
        let scheduler = AnimationScheduler(options: options, clock: ContinuousClock())
        // Pictures scaled for the terminal are small: keep a play's worth, so a looping
        // animation is decoded and scaled once, not once per play. Bounded, and dropped on resize.
        let cache = PlaybackCache<Rendered>(
            byteBudget: Self.cacheBudget, cost: { $0.image.pixels.count * MemoryLayout<UInt32>.stride + 64 },
            isCurrent: { rendered in rendered.generation == layout.state.withLock { $0.generation } })
        do {
            let report = try await scheduler.play(
                source,
                transform: { frame in
                    if keepingStill { still.withLock { $0 = frame.image } }
                    let current = layout.state.withLock { $0 }
                    let image = ScaledImage(
                        scaling: frame.image, toWidth: current.pixelWidth, height: current.pixelHeight)
                    return Rendered(image: image, generation: current.generation)
                },
                cache: cache,
                handler: { [weak self] frame, stop in
                    guard let self, !self.quitRequested else {
                        stop = true
                        return
                    }
                    self.draw(frame)
                })
            var outcome = PlaybackOutcome(report: report, stats: recorder.stats)
            if case .failed(let error) = report.outcome { outcome.error = error }
            return outcome
        } catch {
            return PlaybackOutcome(report: nil, stats: recorder.stats, error: error)
        }
    }

    /// Keeps a still on screen until cancelled (by `q`, Ctrl-C or a signal), scaling it again,
    /// off the main actor, when a resize changes the layout.
    private func hold() async {
        await redrawStill()
        for await _ in resizes.stream {
            if Task.isCancelled || quitRequested { break }
            await redrawStill()
        }
    }

    /// Draws the held still again when the layout changed since it was drawn.
    private func redrawStill() async {
        let current = layout.state.withLock { $0 }
        guard current.generation != pictureGeneration, let image = still.withLock({ $0 }) else { return }
        let scaled = await Self.scale(image, to: current)
        present(Rendered(image: scaled, generation: current.generation))
    }

    @concurrent
    private static func scale(_ image: PixelBuffer, to layout: Layout) async -> ScaledImage {
        ScaledImage(scaling: image, toWidth: layout.pixelWidth, height: layout.pixelHeight)
    }

    /// Returns `nil` once `q`, Ctrl-C (when raw mode delivers it as a key) or a stop signal
    /// asks to quit, or when cancelled because playback ended; re-lays out on a resize.
    private func watchInput(_ events: AsyncStream<PlayerEvent>) async -> PlaybackOutcome? {
        for await event in events {
            switch event {
            case .stopSignal(let signal):
                quitSignal = signal
                quitRequested = true
                return nil
            case .keys(let keys):
                if keys.contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") || $0 == 0x03 }) {
                    quitRequested = true
                    return nil
                }
            case .resized:
                updateLayout()
                resizes.continuation.yield()
            }
        }
        return nil
    }

    private func draw(_ frame: AnimationFrame<Rendered>) {
        recorder.stats.record(lateness: frame.lateness)
        dropped += frame.droppedBefore
        if frame.lateness > AnimationScheduler<ContinuousClock>.lateThreshold { late += 1 }
        shown = (frame.index, frame.play)
        present(frame.content)
    }

    /// Draws a scaled picture and the status line, clearing the screen first after a resize.
    private func present(_ content: Rendered) {
        let current = layout.state.withLock { $0 }
        var out: [UInt8] = []
        out.reserveCapacity(64 * 1024)
        if drawnGeneration != current.generation {
            out += Array("\u{1B}[0m\u{1B}[2J".utf8)
            renderer.invalidate()
            lastImage = nil
            drawnGeneration = current.generation
        }
        if content.generation == current.generation {
            pictureGeneration = current.generation
            let image = content.image
            switch graphics {
            case .halfblock, .auto:
                renderer.originColumn = current.originColumn
                renderer.render(image, into: &out)
            case .kitty:
                if image != lastImage {
                    Escape.moveCursor(row: 1, column: current.originColumn, into: &out)
                    GraphicsEncoder.kitty(image, columns: current.columns, rows: current.rows, into: &out)
                }
            case .sixel:
                if image != lastImage {
                    Escape.moveCursor(row: 1, column: current.originColumn, into: &out)
                    GraphicsEncoder.sixel(image, into: &out)
                }
            }
            lastImage = image
        }
        let plays = options.plays ?? source.info.plays
        let status = StatusLine.fitted(
            [
                "frame \(shown.index + 1)/\(source.info.frameCount)",
                "loop \(shown.play + 1)/\(plays == 0 ? "∞" : String(plays))",
            ],
            counters: ["\(String(format1: recorder.stats.recentFPS)) fps", "late \(late)", "dropped \(dropped)"],
            hint: "q quits", width: current.statusWidth)
        if status != lastStatus || !out.isEmpty {
            Escape.moveCursor(row: current.statusRow, column: 1, into: &out)
            out += Array("\u{1B}[0m\u{1B}[2K".utf8)
            out += Array(status.utf8)
            renderer.resetColors()
            lastStatus = status
        }
        Terminal.write(out)
    }

    /// Works out the layout from the terminal size (or --width/--height) and the protocol.
    private func updateLayout() {
        let size = Terminal.size() ?? Terminal.Size(columns: 80, rows: 24, pixelWidth: 0, pixelHeight: 0)
        let columns = max(fixedWidth ?? size.columns, 1)
        let rows = max(fixedHeight ?? (size.rows - 1), 1)
        let info = source.info
        let previous = layout.state.withLock { $0 }
        var next = previous
        switch graphics {
        case .halfblock, .auto:
            var fitted = ScaledImage.fit(width: info.width, height: info.height, boxWidth: columns, boxHeight: rows * 2)
            if fitted.height % 2 == 1 { fitted.height += fitted.height < rows * 2 ? 1 : -1 }
            next.pixelWidth = fitted.width
            next.pixelHeight = max(fitted.height, 2)
            next.columns = fitted.width
            next.rows = next.pixelHeight / 2
        case .kitty, .sixel:
            let cellWidth = size.pixelWidth > 0 ? max(size.pixelWidth / size.columns, 1) : 10
            let cellHeight = size.pixelHeight > 0 ? max(size.pixelHeight / size.rows, 1) : 20
            let fitted = ScaledImage.fit(
                width: info.width, height: info.height, boxWidth: columns * cellWidth, boxHeight: rows * cellHeight)
            next.pixelWidth = fitted.width
            next.pixelHeight = fitted.height
            next.columns = (fitted.width + cellWidth - 1) / cellWidth
            next.rows = (fitted.height + cellHeight - 1) / cellHeight
        }
        next.originColumn = 1 + max(columns - next.columns, 0) / 2
        next.statusRow = min(next.rows + 1, max(size.rows, 1))
        next.statusWidth = max(size.columns, 1)
        // A resize that changes nothing (a fixed --width, a SIGWINCH at start-up) keeps the
        // scaled frames, cached ones included, and the screen as drawn.
        guard next != previous else { return }
        next.generation += 1
        layout.state.withLock { $0 = next }
    }
}

/// The layout, shared between the main actor (which updates it on resize) and the producer
/// (which scales each frame to it).
final class LayoutBox: Sendable {
    let state = Locked(TerminalPlayer.Layout())
}

extension String {
    /// `value` with one decimal.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
