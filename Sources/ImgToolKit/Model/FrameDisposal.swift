/// What happens to a frame's region after the frame has been shown.
///
/// GIF disposal 0 and 1 (and the reserved 4-7) are ``none``, 2 is ``background``, 3 is
/// ``previous``; APNG's `dispose_op` 0, 1, 2 are the same three.
public enum FrameDisposal: String, Sendable, Hashable, CaseIterable, Codable {
    /// Leave the canvas as it is.
    case none
    /// Clear the region to transparent black.
    case background
    /// Restore the region to what it was before the frame was drawn.
    case previous
}
