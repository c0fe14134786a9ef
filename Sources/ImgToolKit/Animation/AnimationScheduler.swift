/// Plays a ``FrameSource`` in real (or virtual) time, handing frames to a main-actor handler,
/// as Apple ImageIO's `CGAnimateImageAtURLWithBlock` hands them to a block on the main queue.
///
/// What runs where: frames are decoded, composited and transformed on a `FrameProducer`
/// actor, one frame ahead of the frame waiting for its deadline; the handler runs on the main
/// actor and nothing else does; waiting and bookkeeping run on the global executor. Memory stays
/// at one canvas, one saved canvas, and the frames in flight (the one shown and the next).
///
/// Timing: frame k is due at `start + d0 + ... + d(k-1)`, the sum of the effective delays
/// (``AnimationPlan``) of the frames before it, counted from the moment frame 0 is delivered,
/// so sleeping late never shifts later frames. With ``LatePolicy/drop`` a frame ready only
/// after its whole slot has passed is not delivered (the last frame always is); with
/// ``LatePolicy/wait`` it is delivered late. Both are counted in the ``AnimationReport``.
///
/// Time comes from `clock`: `ContinuousClock` in a player, a manual clock in tests.
public struct AnimationScheduler<C: Clock>: Sendable where C.Duration == Duration {
    /// The clock deadlines are measured on.
    public let clock: C
    /// How the animation is played.
    public var options: AnimationOptions

    /// A delivered frame counts as late when it comes more than this after its deadline: 1 ms.
    public static var lateThreshold: Duration { .milliseconds(1) }

    /// Creates a scheduler.
    /// - Parameters:
    ///   - options: how to play; default: as the file says.
    ///   - clock: where time comes from.
    public init(options: AnimationOptions = AnimationOptions(), clock: C) {
        self.options = options
        self.clock = clock
    }

    /// Plays `source`, delivering each frame's canvas to `handler` on the main actor.
    ///
    /// - Parameters:
    ///   - source: the prepared image.
    ///   - handler: called on the main actor with each frame; set the flag to `true` to stop
    ///     (no frame is delivered after that).
    /// - Returns: how playback went; errors met after frame 0 was delivered end it with
    ///   ``AnimationReport/Outcome/failed(_:)``.
    /// - Throws: ``ImgToolError`` for problems found before frame 0 was delivered: an option
    ///   out of range (`invalidArgument`), or frame 0 failing to decode (`corrupt`, `truncated`,
    ///   `tooLarge`). Cancellation before frame 0 throws `cancelled`.
    @concurrent
    public func play(
        _ source: some FrameSource,
        handler: @escaping @MainActor @Sendable (AnimationFrame<PixelBuffer>, inout Bool) -> Void
    ) async throws(ImgToolError) -> AnimationReport {
        try await play(source, transform: { $0.image }, handler: handler)
    }

    /// Plays `source`, turning each frame into `Content` with `transform` off the main actor
    /// (while the frame before it is on show), and delivering that to `handler` on the main actor.
    ///
    /// - Parameters:
    ///   - source: the prepared image.
    ///   - transform: runs on the producer, once per frame (dropped frames included), in order.
    ///   - cache: where transformed frames are kept for later plays; once it holds every
    ///     frame, a play is served from it without decoding. `nil` (the default) decodes every play.
    ///   - handler: called on the main actor; set the flag to `true` to stop.
    /// - Returns: how playback went.
    /// - Throws: ``ImgToolError`` for problems found before frame 0 was delivered.
    @concurrent
    public func play<Content: Sendable>(
        _ source: some FrameSource,
        transform: @escaping @Sendable (Frame) -> Content,
        cache: PlaybackCache<Content>? = nil,
        handler: @escaping @MainActor @Sendable (AnimationFrame<Content>, inout Bool) -> Void
    ) async throws(ImgToolError) -> AnimationReport {
        let plan = try AnimationPlan(info: source.info, options: options)
        let producer = FrameProducer(
            source: source, plan: plan, depth: options.depth, transform: transform, cache: cache)
        guard let first = try await Self.next(from: producer) else {
            throw ImgToolError(.corrupt, "the image has no frame to show")
        }
        var report = AnimationReport(
            outcome: .finished, delivered: 0, dropped: 0, late: 0, playsBegun: 1, elapsed: .zero,
            inputComplete: source.info.isComplete)
        let start = clock.now
        var offset = Duration.zero
        var droppedSinceDelivery = 0
        var current: FrameProducer<Content>.Item? = first
        playback: while let item = current {
            if Task.isCancelled {
                report.outcome = .cancelled
                break
            }
            report.playsBegun = max(report.playsBegun, item.play + 1)
            let duration = plan.effectiveDelay(of: item.info)
            let deadline = offset
            offset += duration
            // Whether this frame's slot has passed is decided by the time it was received, read
            // before the next decode starts: that decode takes time (on a test's virtual clock it
            // can move time at once), and it must not make the frame in hand late.
            let received = clock.now
            // Decode the next frame while this one waits for its deadline; but frame 0 is shown
            // first, so that nothing competes with it for the cores (it is what a viewer waits
            // for, and the slot after it leaves time to decode the next).
            let prefetch = report.delivered > 0
            async let upcoming = prefetch ? Self.next(from: producer) : nil
            let slotEnd = start.advanced(by: offset)
            if options.latePolicy == .drop, report.delivered > 0, !item.isLast, duration > .zero,
                received >= slotEnd
            {
                report.dropped += 1
                droppedSinceDelivery += 1
            } else {
                do {
                    try await clock.sleep(until: start.advanced(by: deadline), tolerance: nil)
                } catch {
                    report.outcome = .cancelled
                    break playback
                }
                let lateness = max(.zero, start.duration(to: clock.now) - deadline)
                if lateness > Self.lateThreshold { report.late += 1 }
                let frame = AnimationFrame(
                    info: item.info, play: item.play, content: item.content, deadline: deadline,
                    lateness: lateness, duration: duration, droppedBefore: droppedSinceDelivery)
                droppedSinceDelivery = 0
                let stop = await MainActor.run { () -> Bool in
                    var stop = false
                    handler(frame, &stop)
                    return stop
                }
                report.delivered += 1
                if stop {
                    report.outcome = .stopped
                    break playback
                }
            }
            do {
                let prefetched = try await upcoming
                current = prefetch ? prefetched : try await Self.next(from: producer)
            } catch let error as ImgToolError {
                report.outcome = error.code == .cancelled ? .cancelled : .failed(error)
                break playback
            } catch {
                report.outcome = .cancelled
                break playback
            }
        }
        if case .finished = report.outcome {
            // The last frame is on show for its whole delay.
            do {
                try await clock.sleep(until: start.advanced(by: offset), tolerance: nil)
            } catch {
                report.outcome = .cancelled
            }
        }
        report.elapsed = start.duration(to: clock.now)
        return report
    }

    /// The producer's next item.
    private static func next<Content>(from producer: FrameProducer<Content>) async throws(ImgToolError)
        -> FrameProducer<Content>.Item?
    {
        try await producer.next()
    }
}
