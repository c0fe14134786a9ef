import Foundation

/// Fetches `http` and `https` URLs with libcurl, loaded on the first fetch.
///
/// The byte cap counts the body as decoded: libcurl decodes a content coding (gzip, deflate,
/// brotli, zstd) piece by piece and hands each piece over before it reads more from the network,
/// and the fetch stops at the first piece past ``maxBytes``. So a 1 MiB gzip body that inflates to
/// 1 GiB, or a chunked body that never ends, costs at most ``maxBytes`` and one 16 KiB piece of
/// memory, and stops as soon as it passes the cap. ``timeout`` bounds the whole transfer, from
/// looking up the host to the body's last byte.
///
/// Each fetch runs on a thread of its own (libcurl waits for the network there, not on a thread
/// of the concurrency pool); cancelling the calling task ends it at once.
///
/// Failures, each one line naming the input:
/// - HTTP 404 and 410: `notFound`; any other final status outside 200-299: `network` with the
///   status;
/// - a transfer not complete ``timeout`` after it started (a silent server, or one that drips):
///   `network`, "timed out";
/// - a refused connection, an unknown host, a failed TLS handshake or an untrusted certificate:
///   `network`, saying which;
/// - a body shorter than its `Content-Length`: `truncated`, with both counts;
/// - a declared `Content-Length` over ``maxBytes`` (refused before the body is read) or a decoded
///   body that grows past it: `tooLarge`;
/// - a redirect to a scheme other than `http` or `https` (`file:`, `ftp:`...), or more than
///   ``maxRedirects`` redirects: `network`; neither is followed;
/// - a body whose content coding is corrupt or unknown: `network`;
/// - cancellation of the calling task: `cancelled`.
public struct HTTPFetcher: DataFetching {
    /// Largest body accepted, in bytes, counted after decoding. Default 512 MiB.
    public var maxBytes: Int
    /// The longest a fetch may take, from looking up the host to the body's last byte; past it
    /// the fetch fails. Default 30 seconds.
    public var timeout: Duration

    /// The default byte cap, 512 MiB.
    public static let defaultMaxBytes = 512 * 1024 * 1024
    /// The most redirects one fetch follows.
    public static let maxRedirects = 10

    /// Creates a fetcher.
    /// - Parameters:
    ///   - maxBytes: largest body accepted, after decoding; default ``defaultMaxBytes``.
    ///   - timeout: the longest a fetch may take in all; default 30 seconds.
    public init(maxBytes: Int = HTTPFetcher.defaultMaxBytes, timeout: Duration = .seconds(30)) {
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    /// Loads libcurl now rather than at the first fetch (once per process).
    /// - Throws: ``ImgToolError`` `network` naming `input` when libcurl cannot be loaded.
    public static func loadLibrary(toFetch input: String) throws(ImgToolError) {
        if let reason = CurlTransfer.loadLibrary() {
            throw ImgToolError(.network, "cannot fetch URLs: \(reason)", input: input)
        }
    }

    /// Fetches the body at `url`; see the type's documentation for the failures.
    public func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ImgToolError(.invalidArgument, "only http and https URLs can be fetched", input: name)
        }
        try Self.loadLibrary(toFetch: name)
        let transfer = CurlTransfer(
            url: url.absoluteString, name: name, maxBytes: maxBytes, timeout: timeout,
            maxRedirects: Self.maxRedirects, progress: progress)
        return try await transfer.run()
    }
}
