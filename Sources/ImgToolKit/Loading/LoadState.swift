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

/// One state change of one input, as an ``ImageLoader`` reports it.
public struct LoadEvent: Sendable, Hashable {
    /// The input's position in the list given to the loader (the merger numbers the background 0
    /// and overlays from 1).
    public var index: Int
    /// The input as given.
    public var name: String
    /// Its new state.
    public var state: LoadState

    /// Creates an event.
    public init(index: Int, name: String, state: LoadState) {
        self.index = index
        self.name = name
        self.state = state
    }
}
