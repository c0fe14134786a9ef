/// One composited frame: what a player shows while it is current.
public struct Frame: Sendable, Hashable {
    /// The frame's entry in the frame table (index, delay, region, disposal, blend).
    public var info: FrameInfo
    /// The whole canvas after the frame was drawn, canvas-sized.
    public var image: PixelBuffer

    /// Creates a frame.
    public init(info: FrameInfo, image: PixelBuffer) {
        self.info = info
        self.image = image
    }

    /// Position in the animation, from 0.
    public var index: Int { info.index }
}
