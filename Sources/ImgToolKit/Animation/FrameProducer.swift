/// Decodes and composites frames in playback order, one at a time, ahead of the scheduler.
///
/// Runs on its own actor, never on the main actor: the scheduler asks for the next frame while
/// the current one waits for its deadline. It owns the only ``FrameReader`` (one canvas plus
/// one saved canvas), makes a new one for each play, and skips the frames before the start
/// index in the first play (they are composited, not returned). With a ``PlaybackCache`` it
/// stores each frame's content, and a play that finds every frame's content stored is served
/// from the cache, with no reader at all.
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
    private let cache: PlaybackCache<Content>?
    private var reader: (any FrameReader)?
    /// The play being served from the cache, and the next index in it.
    private var cachedPlay: [Content]?
    private var cachedIndex = 0
    private var play = 0
    private var shownInPlay = 0
    private var finished = false

    init(
        source: any FrameSource, plan: AnimationPlan, depth: SampleDepth?,
        transform: @escaping @Sendable (Frame) -> Content, cache: PlaybackCache<Content>? = nil
    ) {
        self.source = source
        self.plan = plan
        self.depth = depth
        self.transform = transform
        self.cache = cache
    }

    /// The next frame to show, or `nil` after the last frame of the last play.
    /// - Throws: ``ImgToolError`` from the reader, or `cancelled` when the task is cancelled.
    func next() throws(ImgToolError) -> Item? {
        while !finished {
            if Task.isCancelled { throw ImgToolError(.cancelled, "playback was cancelled") }
            if let cached = cachedPlay {
                guard cachedIndex < cached.count else {
                    cachedPlay = nil
                    endPlay()
                    continue
                }
                let index = cachedIndex
                cachedIndex += 1
                if play == 0 && index < plan.startIndex { continue }
                shownInPlay += 1
                return Item(
                    info: source.info.frames[index], play: play, content: cached[index],
                    isLast: plan.isLast(index: index, play: play))
            }
            let current: any FrameReader
            if let reader {
                current = reader
            } else {
                if let stored = cache?.completePlay(frameCount: source.info.frameCount) {
                    cachedPlay = stored
                    cachedIndex = 0
                    shownInPlay = 0
                    continue
                }
                current = try source.makeFrameReader(depth: depth)
                reader = current
                shownInPlay = 0
            }
            guard let frame = try current.nextFrame() else {
                reader = nil
                endPlay()
                continue
            }
            if play == 0 && frame.index < plan.startIndex { continue }
            shownInPlay += 1
            let content = transform(frame)
            cache?.store(content, index: frame.index)
            return Item(
                info: frame.info, play: play, content: content, isLast: plan.isLast(index: frame.index, play: play))
        }
        reader = nil
        cachedPlay = nil
        return nil
    }

    /// Moves on to the next play, or finishes after the last.
    private func endPlay() {
        // A play that showed nothing would repeat forever without showing anything.
        let skippedAll = play == 0 && plan.startIndex > 0
        play += 1
        if (shownInPlay == 0 && !skippedAll) || (!plan.isForever && play >= plan.plays) {
            finished = true
        }
    }
}
