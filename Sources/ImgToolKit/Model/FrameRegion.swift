/// A rectangle in canvas pixels.
public struct FrameRegion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Left edge, in pixels from the canvas's left.
    public var x: Int
    /// Top edge, in pixels from the canvas's top.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a region.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `WxH at X,Y`.
    public var description: String { "\(width)x\(height) at \(x),\(y)" }

    /// The part of this region inside a `width` x `height` canvas (possibly empty).
    public func clipped(toWidth canvasWidth: Int, height canvasHeight: Int) -> FrameRegion {
        let left = min(max(x, 0), canvasWidth)
        let top = min(max(y, 0), canvasHeight)
        let right = min(max(x + width, left), canvasWidth)
        let bottom = min(max(y + height, top), canvasHeight)
        return FrameRegion(x: left, y: top, width: right - left, height: bottom - top)
    }
}
