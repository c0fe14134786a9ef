/// One frame's entry in an animation's frame table.
public struct FrameInfo: Sendable, Hashable {
    /// Position in the animation, from 0.
    public var index: Int
    /// The delay stored in the file, unclamped: GIF centiseconds x 10 ms; APNG
    /// `delay_num / delay_den` seconds (a denominator of 0 means 100). Clamping is a playback
    /// policy (see ``DelayPolicy``), not the decoder's.
    public var delay: Duration
    /// Where the frame's pixels go on the canvas, as declared (it may reach past the canvas).
    public var region: FrameRegion
    /// What happens to the region after the frame is shown.
    public var disposal: FrameDisposal
    /// How the frame is drawn.
    public var blend: FrameBlend

    /// Creates a frame table entry.
    public init(index: Int, delay: Duration, region: FrameRegion, disposal: FrameDisposal, blend: FrameBlend) {
        self.index = index
        self.delay = delay
        self.region = region
        self.disposal = disposal
        self.blend = blend
    }

    /// The delay in milliseconds, as a `Double`.
    public var delayMilliseconds: Double { delay.milliseconds }
}

extension Duration {
    /// This duration in milliseconds, as a `Double`.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
