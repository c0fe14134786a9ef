/// Draws overlays onto a background with exact straight-alpha source-over, clipped, at the
/// depth the inputs need.
///
/// Work happens at 16 bits when the background or any overlay is 16-bit (8-bit buffers are
/// widened exactly with ``PixelBuffer/converted(to:)``, `v × 257`), at 8 bits otherwise. Each
/// overlay is placed with ``OverlayPlacement/origin(overlay:canvas:)``, its alpha scaled by the
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

    /// Draws one overlay onto `canvas` (same depth), placed and faded by `placement`.
    public static func draw(_ overlay: PixelBuffer, onto canvas: inout PixelBuffer, placement: OverlayPlacement) {
        precondition(overlay.depth == canvas.depth, "overlay and canvas must have the same depth")
        let origin = placement.origin(overlay: (overlay.width, overlay.height), canvas: (canvas.width, canvas.height))
        let level = placement.opacityLevel(for: canvas.depth)
        if level == 0 { return }
        canvas.draw(overlay, at: origin, blend: .over, opacity: level)
    }
}
