/// Where and how strongly an overlay is drawn on the background.
///
/// The overlay's top-left corner goes to ``Gravity/origin(overlay:canvas:)`` plus
/// (``offsetX``, ``offsetY``), in background pixels (x to the right, y down, whatever the
/// gravity). Any part outside the background is clipped; the output keeps the background's size.
///
/// ``opacity`` scales the overlay's alpha before source-over. With `M` the largest sample (255
/// for 8-bit work, 65535 for 16-bit), the opacity is first quantized to an integer
/// `q = round(opacity × M)` (ties away from zero), then each overlay alpha `A` becomes
///
///     A' = ⌊(2·A·q + M) / (2·M)⌋
///
/// which is `A·q / M` rounded half up, computed exactly in integers. Opacity 1 leaves alpha
/// unchanged (q = M), opacity 0 makes the overlay invisible.
public struct OverlayPlacement: Sendable, Hashable {
    /// The anchor; default ``Gravity/center``.
    public var gravity: Gravity
    /// Pixels added to the anchored x (positive moves right). Default 0.
    public var offsetX: Int
    /// Pixels added to the anchored y (positive moves down). Default 0.
    public var offsetY: Int
    /// How opaque the overlay is drawn, `0...1`; default 1.
    public var opacity: Double

    /// Creates a placement.
    /// - Throws: ``ImgToolError`` `invalidArgument` when `opacity` is outside `0...1` or not a number.
    public init(gravity: Gravity = .center, offsetX: Int = 0, offsetY: Int = 0, opacity: Double = 1)
        throws(ImgToolError)
    {
        guard opacity.isFinite, (0...1).contains(opacity) else {
            throw ImgToolError(.invalidArgument, "opacity must be between 0 and 1, not \(opacity)")
        }
        self.gravity = gravity
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.opacity = opacity
    }

    /// The default placement: centred, no offset, opaque.
    public static let centered = OverlayPlacement(uncheckedGravity: .center)

    private init(uncheckedGravity gravity: Gravity) {
        self.gravity = gravity
        offsetX = 0
        offsetY = 0
        opacity = 1
    }

    /// Where the overlay's top-left corner goes on the canvas (possibly outside it).
    public func origin(overlay: (width: Int, height: Int), canvas: (width: Int, height: Int)) -> (x: Int, y: Int) {
        let anchored = gravity.origin(overlay: overlay, canvas: canvas)
        return (Self.saturatingSum(anchored.x, offsetX), Self.saturatingSum(anchored.y, offsetY))
    }

    /// `a + b`, kept within ±2^48 so that clipping arithmetic never overflows (any such origin is
    /// far outside every canvas).
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let bound = 1 << 48
        let (sum, overflow) = a.addingReportingOverflow(b)
        if overflow { return b > 0 ? bound : -bound }
        return min(max(sum, -bound), bound)
    }

    /// The opacity quantized for samples of `depth`: `round(opacity × M)`.
    public func opacityLevel(for depth: SampleDepth) -> Int {
        let maximum = depth == .eight ? 255.0 : 65535.0
        return Int((opacity * maximum).rounded(.toNearestOrAwayFromZero))
    }

    /// `A' = ⌊(2·A·q + M) / (2·M)⌋`: alpha `alpha` scaled by opacity level `level` (both in `0...M`).
    @inlinable
    public static func scaledAlpha(_ alpha: Int, level: Int, maximum: Int) -> Int {
        (2 * alpha * level + maximum) / (2 * maximum)
    }
}
