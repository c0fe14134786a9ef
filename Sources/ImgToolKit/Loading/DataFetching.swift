import Foundation

/// Fetches the bytes behind a remote URL; ``ImageLoader`` uses one for every `http(s)` input.
///
/// ``HTTPFetcher`` is the real one (``URLSessionFetcher`` goes through `URLSession` instead). Tests inject their own conformance so that no unit
/// test touches the network, and so that a fetch can be frozen, released or failed on demand.
///
/// A conformance must:
/// - call `progress` with the running byte count (and the declared total when known) as bytes
///   arrive, from any task or thread, without blocking;
/// - stop promptly and throw ``ImgToolError/Code/cancelled`` when the calling task is cancelled;
/// - throw ``ImgToolError`` naming `name` for every failure (`notFound` for HTTP 404 and 410,
///   `network` for other statuses, timeouts and refused connections, `truncated` for a body
///   shorter than its `Content-Length`, `tooLarge` past the byte cap).
public protocol DataFetching: Sendable {
    /// Fetches the whole body at `url`.
    /// - Parameters:
    ///   - url: an `http` or `https` URL.
    ///   - name: the input as the user gave it, used in errors.
    ///   - progress: called with each change of the running count.
    /// - Returns: the body's bytes.
    func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8]
}
