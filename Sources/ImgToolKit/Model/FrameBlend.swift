/// How a frame's pixels are drawn onto the canvas.
public enum FrameBlend: String, Sendable, Hashable, CaseIterable, Codable {
    /// Replace the region's pixels, alpha included (APNG `APNG_BLEND_OP_SOURCE`).
    case source
    /// Source-over: draw on top of what is there (APNG `APNG_BLEND_OP_OVER`; GIF, where
    /// the transparent index leaves the canvas pixel untouched).
    case over
}
