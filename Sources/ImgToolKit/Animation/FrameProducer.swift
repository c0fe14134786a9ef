/// Decodes and composites frames in playback order, one at a time, ahead of the scheduler.
///
/// Runs on its own actor, never on the main actor: the scheduler asks for the next frame while
/// the current one waits for its deadline. It owns the only ``FrameReader`` (one canvas plus
/// one saved canvas), makes a new one for each play, and skips the frames before the start
/// index in the first play (they are composited, not returned).
actor FrameProducer<Content: Sendable> {
    /// One frame ready to be shown.
    struct Item: Sendable {
        var info: FrameInfo
        var play: Int
        var content: Content
        var isLast: Bool
    }

    private let source: any FrameSource
    private let plan: AnimationPlan
    private let depth: SampleDepth?
    private let transform: @Sendable (Frame) -> Content
    private var reader: (any FrameReader)?
    private var play = 0
    private var shownInPlay = 0
    private var finished = false

    init(
        source: any FrameSource, plan: AnimationPlan, depth: SampleDepth?,
        transform: @escaping @Sendable (Frame) -> Content
    ) {
        self.source = source
        self.plan = plan
        self.depth = depth
        self.transform = transform
    }

    /// The next frame to show, or `nil` after the last frame of the last play.
    /// - Throws: ``ImgToolError`` from the reader, or `cancelled` when the task is cancelled.
    func next() throws(ImgToolError) -> Item? {
        while !finished {
            if Task.isCancelled { throw ImgToolError(.cancelled, "playback was cancelled") }
            let current: any FrameReader
            if let reader {
                current = reader
            } else {
                current = try source.makeFrameReader(depth: depth)
                reader = current
                shownInPlay = 0
            }
            guard let frame = try current.nextFrame() else {
                reader = nil
                // A play that showed nothing would repeat forever without showing anything.
                let skippedAll = play == 0 && plan.startIndex > 0
                play += 1
                if (shownInPlay == 0 && !skippedAll) || (!plan.isForever && play >= plan.plays) {
                    finished = true
                }
                continue
            }
            if play == 0 && frame.index < plan.startIndex { continue }
            shownInPlay += 1
            return Item(
                info: frame.info, play: play, content: transform(frame),
                isLast: plan.isLast(index: frame.index, play: play))
        }
        reader = nil
        return nil
    }
}
