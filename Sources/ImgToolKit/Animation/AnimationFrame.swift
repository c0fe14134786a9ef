/// One frame as a player receives it: which frame, which play, when it was due and how late it came.
///
/// `Content` is what the scheduler hands over: the composited canvas (``PixelBuffer``) for
/// ``animateImage(at:options:clock:fetcher:handler:)`` and ``AnimationFrames``, or whatever a
/// transform made of it off the main actor (a terminal player scales it to cells).
public struct AnimationFrame<Content: Sendable>: Sendable {
    /// The frame's table entry (index, stored delay, region, disposal, blend).
    public var info: FrameInfo
    /// The play it belongs to, from 0.
    public var play: Int
    /// The frame, or what the transform made of it.
    public var content: Content
    /// When it was due, from the start of playback (frame 0's delivery).
    public var deadline: Duration
    /// How much later than ``deadline`` it was delivered (zero when on time).
    public var lateness: Duration
    /// How long it is meant to be shown (its effective delay).
    public var duration: Duration
    /// How many frames were dropped since the previous delivery (``LatePolicy/drop``).
    public var droppedBefore: Int

    /// Creates a delivered frame.
    public init(
        info: FrameInfo, play: Int, content: Content, deadline: Duration, lateness: Duration, duration: Duration,
        droppedBefore: Int
    ) {
        self.info = info
        self.play = play
        self.content = content
        self.deadline = deadline
        self.lateness = lateness
        self.duration = duration
        self.droppedBefore = droppedBefore
    }

    /// The frame's position in the animation, from 0.
    public var index: Int { info.index }
}

extension AnimationFrame where Content == PixelBuffer {
    /// The composited canvas.
    public var image: PixelBuffer { content }
}
