import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches `http` and `https` URLs with `URLSession` (FoundationNetworking on Linux).
///
/// ``HTTPFetcher`` is the default fetcher; this one is for sessions configured by the caller
/// (`URLProtocol` classes, proxies). Its byte cap is checked as `URLSession` hands the decoded body
/// to the delegate, and FoundationNetworking decodes and queues a compressed body faster than
/// the delegate can stop it: a 1 MiB gzip body that inflates to 1 GiB can take that gigabyte of
/// memory before the cap stops it. ``HTTPFetcher`` stops at the cap.
///
/// Each fetch has its own session and `FetchDelegate`, which streams the body into memory,
/// checks the status and the byte cap, and refuses redirects to other schemes. Nothing in a
/// fetcher is isolated to an actor: delegate callbacks arrive on the session's own queue, and
/// the awaiting task is resumed from there.
///
/// Failures, each naming the input:
/// - HTTP 404 and 410: `notFound`; any other status outside 200-299: `network` with the status;
/// - a transfer not complete ``timeout`` after it started (a silent server, or one that drips):
///   `network`, "timed out";
/// - a refused connection or an unknown host: `network`;
/// - a body shorter than its `Content-Length`: `truncated`, with both counts;
/// - a declared `Content-Length` over ``maxBytes`` (refused before the body is read) or a body
///   that grows past it while streaming: `tooLarge`;
/// - a redirect to a scheme other than `http` or `https` (`file:`, `ftp:`...): `network`; it is
///   never followed;
/// - cancellation of the calling task: `cancelled` (the session task is cancelled at once).
public struct URLSessionFetcher: DataFetching {
    /// Largest body accepted, in bytes. Default 512 MiB.
    public var maxBytes: Int
    /// The longest a fetch may take, from connecting to the body's last byte; past it the fetch
    /// fails. Default 30 seconds.
    public var timeout: Duration
    /// The session configuration each fetch copies; tests register `URLProtocol` classes on it.
    /// `.ephemeral` unless one was given, made when first asked for: making one opens the cookie
    /// store and lists the temporary directory (milliseconds when it is full), which a command
    /// that reads only files should not pay.
    public var configuration: URLSessionConfiguration {
        get { givenConfiguration ?? .ephemeral }
        set { givenConfiguration = newValue }
    }
    private var givenConfiguration: URLSessionConfiguration?

    /// The default byte cap, 512 MiB.
    public static let defaultMaxBytes = 512 * 1024 * 1024

    /// Creates a fetcher.
    /// - Parameters:
    ///   - maxBytes: largest body accepted; default ``defaultMaxBytes``.
    ///   - timeout: the longest a fetch may take in all; default 30 seconds.
    ///   - configuration: the session configuration; default (`nil`) `.ephemeral` (no cache, no
    ///     cookies), made at the first fetch.
    public init(
        maxBytes: Int = URLSessionFetcher.defaultMaxBytes, timeout: Duration = .seconds(30),
        configuration: URLSessionConfiguration? = nil
    ) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.givenConfiguration = configuration
    }

    /// Fetches the body at `url`; see the type's documentation for the failures.
    public func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ImgToolError(.invalidArgument, "only http and https URLs can be fetched", input: name)
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let delegate = FetchDelegate(name: name, maxBytes: maxBytes, progress: progress)
        // A configuration of this fetch's own: a copy of the one given, or a new `.ephemeral`.
        let sessionConfiguration =
            givenConfiguration.map { $0.copy() as? URLSessionConfiguration ?? $0 } ?? .ephemeral
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url)
        request.timeoutInterval = seconds
        let task = session.dataTask(with: request)
        let timeout = timeout
        do {
            return try await race(
                { try await delegate.run(task) }, cancelledWhen: { try await delegate.watch(timeout: timeout) })
        } catch let error as ImgToolError {
            throw error.naming(name)
        } catch {
            throw ImgToolError(.cancelled, "cancelled", input: name)
        }
    }
}
