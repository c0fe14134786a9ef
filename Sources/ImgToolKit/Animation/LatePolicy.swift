/// What the scheduler does with a frame that is ready only after its time has come.
public enum LatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Keep time: a frame whose whole slot has passed when it is ready is not delivered (it is
    /// still composited, as later frames build on it); a frame late within its slot is delivered
    /// at once. The default, as browsers play.
    case drop
    /// Show every frame: a late frame is delivered as soon as it is ready, and later frames keep
    /// their deadlines, so playback catches up by showing the late ones back to back.
    case wait
}
