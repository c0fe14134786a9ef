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
