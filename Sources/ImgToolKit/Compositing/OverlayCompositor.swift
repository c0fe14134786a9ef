/// Draws overlays onto a background with exact straight-alpha source-over, clipped, at the
/// depth the inputs need.
///
/// Work happens at 16 bits when the background or any overlay is 16-bit (8-bit buffers are
/// widened exactly with ``PixelBuffer/converted(to:)``, `v × 257`), at 8 bits otherwise. Each
/// overlay is first resized when the placement sizes overlays
/// (``OverlayPlacement/overlaySize(overlay:canvas:)``, Lanczos3 on premultiplied alpha), then
/// placed with ``OverlayPlacement/origin(overlay:canvas:)``, its alpha scaled by the
/// placement's opacity (``OverlayPlacement/scaledAlpha(_:level:maximum:)``), and blended with
/// ``SourceOver`` (rounded half up, Porter-Duff over on straight alpha). The result has the
/// background's size.
///
/// These are synchronous CPU functions with no isolation; ``ImageMerger`` calls them from a
/// `@concurrent` function so they never run on the main actor.
public enum OverlayCompositor {
    /// The depth at which `background` and `overlays` are composited: 16 bits if any is 16-bit.
    public static func workingDepth(background: PixelBuffer, overlays: [PixelBuffer]) -> SampleDepth {
        if background.depth == .sixteen || overlays.contains(where: { $0.depth == .sixteen }) { return .sixteen }
        return .eight
    }

    /// Composites `overlays` in order onto `background` and returns the result.
    ///
    /// Pass the background with `consume` (or a value nothing else references) to let it be
    /// changed in place rather than copied.
    public static func composite(
        _ overlays: [PixelBuffer], onto background: consuming PixelBuffer, placement: OverlayPlacement
    ) -> PixelBuffer {
        let depth = workingDepth(background: background, overlays: overlays)
        var canvas: PixelBuffer
        if background.depth == depth {
            canvas = consume background  // moved, not copied: drawing below changes it in place
        } else {
            canvas = background.converted(to: depth)
        }
        for overlay in overlays {
            draw(overlay.depth == depth ? overlay : overlay.converted(to: depth), onto: &canvas, placement: placement)
        }
        return canvas
    }

    /// Draws one overlay onto `canvas` (same depth), sized, placed and faded by `placement`.
    ///
    /// When the placement sizes overlays (``OverlayPlacement/overlaySize(overlay:canvas:)``),
    /// the overlay is resized first, then placed by gravity and offset at its new size; only
    /// the part that lands on the canvas is resampled, so the work and memory are bounded by the
    /// canvas however large the resized overlay is.
    public static func draw(_ sourceOverlay: PixelBuffer, onto canvas: inout PixelBuffer, placement: OverlayPlacement) {
        precondition(sourceOverlay.depth == canvas.depth, "overlay and canvas must have the same depth")
        let (overlay, origin) = sized(sourceOverlay, on: canvas, placement: placement)
        guard overlay.width > 0, overlay.height > 0 else { return }
        let level = placement.opacityLevel(for: canvas.depth)
        if level == 0 { return }
        canvas.draw(overlay, at: origin, blend: .over, opacity: level)
    }

    /// The overlay at the size `placement` gives it, cut to the part that lands on `canvas`,
    /// and where that part's top-left corner goes; the overlay itself and its origin when the
    /// placement does not size overlays. An empty image when nothing of it is visible.
    static func sized(_ overlay: PixelBuffer, on canvas: PixelBuffer, placement: OverlayPlacement) -> (
        image: PixelBuffer, origin: (x: Int, y: Int)
    ) {
        let own = PixelSize(width: overlay.width, height: overlay.height)
        let size = placement.overlaySize(overlay: own, canvas: PixelSize(width: canvas.width, height: canvas.height))
        let origin = placement.origin(overlay: (size.width, size.height), canvas: (canvas.width, canvas.height))
        guard size != own else { return (overlay, origin) }
        let visible = FrameRegion(x: -origin.x, y: -origin.y, width: canvas.width, height: canvas.height)
            .clipped(toWidth: size.width, height: size.height)
        guard visible.width > 0, visible.height > 0, overlay.width > 0, overlay.height > 0 else {
            return (PixelBuffer(width: 0, height: 0, depth: overlay.depth), origin)
        }
        // The visible part is at most the canvas, which passed the limits when it was decoded.
        let resampler = Resampler(
            checkedFrom: own, scaledTo: size, croppedTo: visible, filter: placement.overlayFilter, linear: false)
        return (resampler.resampleChecked(overlay), (origin.x + visible.x, origin.y + visible.y))
    }
}
