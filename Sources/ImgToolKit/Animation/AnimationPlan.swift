/// An animation's timeline worked out from its frame table and the options, before any pixel is
/// decoded: how many plays, which frame comes first, and how long each frame is shown.
///
/// ``AnimationScheduler`` plays by it, and `imgtool animate --dry-run` prints it.
public struct AnimationPlan: Sendable, Hashable {
    /// The frame table the plan was made from.
    public let frames: [FrameInfo]
    /// The container format (delay policies depend on it).
    public let format: ImageFormat
    /// How many times the animation plays; 0 means forever.
    ///
    /// An animation whose frames are all shown for no time cannot loop forever, so it plays once.
    public let plays: Int
    /// The first frame shown in the first play; later plays start from frame 0.
    public let startIndex: Int
    /// How long each frame is shown, by frame index: the override or the policy's clamp of the
    /// stored delay, divided by the speed.
    public let effectiveDelays: [Duration]

    /// Works out the timeline of `info` played with `options`.
    /// - Throws: ``ImgToolError`` `invalidArgument` when an option is out of range (the start
    ///   index past the last frame, a speed that is not positive), `corrupt` when the image has
    ///   no frame.
    public init(info: ImageInfo, options: AnimationOptions) throws(ImgToolError) {
        try options.validate()
        guard !info.frames.isEmpty else { throw ImgToolError(.corrupt, "the image has no frame to show") }
        guard options.startIndex < info.frameCount else {
            throw ImgToolError(
                .invalidArgument,
                "start index \(options.startIndex) does not exist: the image has \(info.frameCount) frame\(info.frameCount == 1 ? "" : "s")"
            )
        }
        frames = info.frames
        format = info.format
        startIndex = options.startIndex
        effectiveDelays = info.frames.map { frame in
            let chosen = options.delayTime ?? options.delayPolicy.effectiveDelay(frame.delay, format: info.format)
            return options.speed == 1 ? chosen : chosen / options.speed
        }
        let requested = options.plays ?? max(info.plays, 0)
        plays = requested == 0 && effectiveDelays.allSatisfy({ $0 == .zero }) ? 1 : requested
    }

    /// The time one whole play takes.
    public var playDuration: Duration { effectiveDelays.reduce(.zero, +) }

    /// Whether the animation plays forever.
    public var isForever: Bool { plays == 0 }

    /// The effective delay of `frame`, also for a frame past the table (a reader that found more
    /// frames than were listed), which gets its stored delay.
    public func effectiveDelay(of frame: FrameInfo) -> Duration {
        effectiveDelays.indices.contains(frame.index) ? effectiveDelays[frame.index] : max(frame.delay, .zero)
    }

    /// Whether the frame at `index` in play `play` (from 0) is the last one shown.
    public func isLast(index: Int, play: Int) -> Bool {
        !isForever && play == plays - 1 && index == frames.count - 1
    }

    /// One frame's place in the timeline.
    public struct Entry: Sendable, Hashable {
        /// The frame's table entry (index, stored delay, region, disposal, blend).
        public var frame: FrameInfo
        /// The play it belongs to, from 0.
        public var play: Int
        /// When it is due, from the start of playback.
        public var start: Duration
        /// How long it is shown (its effective delay).
        public var duration: Duration
    }

    /// The timeline of the first `limit` plays (all plays when the animation is finite and
    /// `limit` is `nil`; one play when it is forever and `limit` is `nil`), as an array.
    ///
    /// Its size is frames x plays: for a long schedule (`--loops 10000000`) walk
    /// ``timeline(plays:)`` instead, which makes each entry as it is asked for.
    public func entries(plays limit: Int? = nil) -> [Entry] {
        Array(timeline(plays: limit))
    }

    /// The timeline of ``entries(plays:)``, made one entry at a time: memory stays the same
    /// whatever the number of plays.
    public func timeline(plays limit: Int? = nil) -> Timeline {
        Timeline(plan: self, plays: max(limit ?? (isForever ? 1 : plays), 0))
    }

    /// The entries of a number of plays, in order, computed as they are iterated.
    public struct Timeline: Sequence, Sendable {
        let plan: AnimationPlan
        let plays: Int

        /// Iterates the entries.
        public func makeIterator() -> Iterator {
            Iterator(plan: plan, plays: plays, play: 0, index: plan.startIndex, offset: .zero)
        }

        /// The next entry of a ``Timeline``.
        public struct Iterator: IteratorProtocol, Sendable {
            let plan: AnimationPlan
            let plays: Int
            var play: Int
            var index: Int
            var offset: Duration

            /// The next entry, or `nil` after the last play.
            public mutating func next() -> Entry? {
                if index >= plan.frames.count {
                    play += 1
                    index = 0
                }
                guard play < plays, index < plan.frames.count else { return nil }
                let frame = plan.frames[index]
                let duration = plan.effectiveDelay(of: frame)
                defer {
                    offset += duration
                    index += 1
                }
                return Entry(frame: frame, play: play, start: offset, duration: duration)
            }
        }
    }
}
