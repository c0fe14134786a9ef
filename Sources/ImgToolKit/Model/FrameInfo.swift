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

/// How a frame's pixels are drawn onto the canvas.
public enum FrameBlend: String, Sendable, Hashable, CaseIterable, Codable {
    /// Replace the region's pixels, alpha included (APNG `APNG_BLEND_OP_SOURCE`).
    case source
    /// Source-over: draw on top of what is there (APNG `APNG_BLEND_OP_OVER`; GIF, where
    /// the transparent index leaves the canvas pixel untouched).
    case over
}

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
