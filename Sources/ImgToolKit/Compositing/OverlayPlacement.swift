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
///
/// ``overlayWidth`` and ``overlayHeight`` size every overlay relative to the background (as
/// imgproxy's `wm:...:scale` and imagor's `w_ratio` do) before gravity and offset apply; see
/// ``overlaySize(overlay:canvas:)``.
public struct OverlayPlacement: Sendable, Hashable {
    /// The anchor; default ``Gravity/center``.
    public var gravity: Gravity
    /// Pixels added to the anchored x (positive moves right). Default 0.
    public var offsetX: Int
    /// Pixels added to the anchored y (positive moves down). Default 0.
    public var offsetY: Int
    /// How opaque the overlay is drawn, `0...1`; default 1.
    public var opacity: Double
    /// The width every overlay is resized to: pixels, or a percentage of the background's
    /// width. Default `nil`: the overlay's own size (or the width that keeps its aspect ratio
    /// at ``overlayHeight``).
    public var overlayWidth: ResizeSpec.Length?
    /// The height every overlay is resized to: pixels, or a percentage of the background's
    /// height. Default `nil`.
    public var overlayHeight: ResizeSpec.Length?
    /// The filter overlays are resized with. Default ``ResampleFilter/lanczos3``.
    public var overlayFilter: ResampleFilter

    /// Creates a placement.
    /// - Parameters:
    ///   - gravity: the anchor. Default ``Gravity/center``.
    ///   - offsetX: pixels added to the anchored x. Default 0.
    ///   - offsetY: pixels added to the anchored y. Default 0.
    ///   - opacity: `0...1`. Default 1.
    ///   - overlayWidth: the overlays' width, pixels or a percentage of the background's width.
    ///     Default `nil` (unchanged).
    ///   - overlayHeight: the overlays' height, pixels or a percentage of the background's
    ///     height. Default `nil` (unchanged).
    ///   - overlayFilter: the filter overlays are resized with. Default ``ResampleFilter/lanczos3``.
    /// - Throws: ``ImgToolError`` `invalidArgument` when `opacity` is outside `0...1` or not a number.
    public init(
        gravity: Gravity = .center, offsetX: Int = 0, offsetY: Int = 0, opacity: Double = 1,
        overlayWidth: ResizeSpec.Length? = nil, overlayHeight: ResizeSpec.Length? = nil,
        overlayFilter: ResampleFilter = .lanczos3
    ) throws(ImgToolError) {
        guard opacity.isFinite, (0...1).contains(opacity) else {
            throw ImgToolError(.invalidArgument, "opacity must be between 0 and 1, not \(opacity)")
        }
        self.gravity = gravity
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.opacity = opacity
        self.overlayWidth = overlayWidth
        self.overlayHeight = overlayHeight
        self.overlayFilter = overlayFilter
    }

    /// The size an `overlay`-sized overlay is drawn at on a `canvas`-sized background, aspect
    /// ratio kept:
    /// - neither ``overlayWidth`` nor ``overlayHeight``: `overlay`, unchanged;
    /// - one of them: that side as given (a percentage is of the background's side), the other
    ///   `round(otherSide × given / side)`;
    /// - both: the largest size with the overlay's aspect ratio inside that box (the limiting
    ///   side is exactly the box's).
    ///
    /// Lengths are rounded half away from zero and kept within `1...2^40`. The resized overlay
    /// may be larger than the background: only its visible part is ever computed.
    /// - Parameters:
    ///   - overlay: the overlay's own size.
    ///   - canvas: the background's size.
    public func overlaySize(overlay: PixelSize, canvas: PixelSize) -> PixelSize {
        guard overlay.width > 0, overlay.height > 0, overlayWidth != nil || overlayHeight != nil else {
            return overlay
        }
        let width = overlayWidth.map { Self.side($0.length(of: canvas.width)) }
        let height = overlayHeight.map { Self.side($0.length(of: canvas.height)) }
        let ow = Double(overlay.width)
        let oh = Double(overlay.height)
        switch (width, height) {
        case (let w?, let h?):
            if Double(w) / ow <= Double(h) / oh {
                return PixelSize(width: w, height: min(Self.side(oh * Double(w) / ow), h))
            }
            return PixelSize(width: min(Self.side(ow * Double(h) / oh), w), height: h)
        case (let w?, nil):
            return PixelSize(width: w, height: Self.side(oh * Double(w) / ow))
        case (nil, let h?):
            return PixelSize(width: Self.side(ow * Double(h) / oh), height: h)
        case (nil, nil):
            return overlay
        }
    }

    /// `length` rounded half away from zero, within `1...2^40`.
    private static func side(_ length: Double) -> Int {
        let rounded = length.rounded(.toNearestOrAwayFromZero)
        guard rounded.isFinite else { return 1 }
        return Int(min(max(rounded, 1), Double(1 << 40)))
    }

    /// The default placement: centred, no offset, opaque.
    public static let centered = OverlayPlacement(uncheckedGravity: .center)

    private init(uncheckedGravity gravity: Gravity) {
        self.gravity = gravity
        offsetX = 0
        offsetY = 0
        opacity = 1
        overlayWidth = nil
        overlayHeight = nil
        overlayFilter = .lanczos3
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
