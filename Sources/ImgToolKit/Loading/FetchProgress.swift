/// How much of one input has arrived.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received so far.
    public var bytesSoFar: Int
    /// Bytes expected in all (HTTP `Content-Length`, a file's size), or `nil` when unknown.
    public var total: Int?

    /// Creates a progress value.
    public init(bytesSoFar: Int, total: Int?) {
        self.bytesSoFar = bytesSoFar
        self.total = total
    }
}
