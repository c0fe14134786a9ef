/// What happened during one playback: counts, and why it ended.
public struct AnimationReport: Sendable {
    /// Why playback ended.
    public enum Outcome: Sendable {
        /// Every play ran to its end.
        case finished
        /// The handler set its stop flag, or the player was stopped.
        case stopped
        /// The task playing it was cancelled.
        case cancelled
        /// A frame could not be decoded; frames before it were shown.
        case failed(ImgToolError)
    }

    /// Why playback ended.
    public var outcome: Outcome
    /// Frames handed to the handler.
    public var delivered: Int
    /// Frames not handed over because their whole slot had passed (``LatePolicy/drop``).
    public var dropped: Int
    /// Delivered frames that came more than ``AnimationScheduler/lateThreshold`` after their deadline.
    public var late: Int
    /// Plays begun (1 for the first).
    public var playsBegun: Int
    /// Time from the start of playback (frame 0's delivery) to its end.
    public var elapsed: Duration
    /// Whether the source listed every frame (``ImageInfo/isComplete``).
    public var inputComplete: Bool

    /// The ImageIO status of this playback: `ok` when finished, stopped or cancelled (but
    /// ``AnimationStatus/incompleteInputImage`` when the input was cut short), the error's
    /// status when a frame failed.
    public var status: AnimationStatus {
        switch outcome {
        case .finished: inputComplete ? .ok : .incompleteInputImage
        case .stopped, .cancelled: .ok
        case .failed(let error): AnimationStatus(error)
        }
    }
}
