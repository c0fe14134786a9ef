/// Where one input of an ``ImageLoader`` stands: the explicit states a progress display is
/// drawn from.
///
/// An input moves `loading(0, nil)` → `loading(n, total)` ... → `loaded` or `failed`, and never
/// leaves `loaded` or `failed`. ``loaded(_:)`` carries the image's ``ImageInfo``, not its pixels,
/// so that an observer (or an event waiting in a stream) never keeps pixel memory alive or forces
/// a copy of a buffer the merger is about to change in place; the pixels are in the loader's result.
public enum LoadState: Sendable, Hashable {
    /// Bytes are arriving: `bytesSoFar` so far, of `total` when the size is known.
    case loading(bytesSoFar: Int, total: Int?)
    /// The input failed; the error names it.
    case failed(ImgToolError)
    /// The input was read and decoded.
    case loaded(ImageInfo)

    /// Whether the state is final (`loaded` or `failed`).
    public var isFinished: Bool {
        if case .loading = self { return false }
        return true
    }
}
