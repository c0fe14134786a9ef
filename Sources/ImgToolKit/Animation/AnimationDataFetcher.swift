import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches the bytes of an http(s) URL for the animation API.
///
/// A protocol so tests can hand in bytes (or a failure, or a fetch that never ends) without a
/// network, and so a fuller loader can take its place later.
public protocol AnimationDataFetcher: Sendable {
    /// The whole body at `url`.
    /// - Throws: ``ImgToolError`` naming the URL: `notFound` (HTTP 404 or 410), `network`
    ///   (unreachable, timeout, other statuses), `tooLarge`, `cancelled`.
    func data(for url: URL) async throws(ImgToolError) -> [UInt8]
}

/// Fetches with Foundation's `URLSession` (FoundationNetworking on Linux).
public struct URLSessionDataFetcher: AnimationDataFetcher {
    /// Give up after this long without an answer. Default 30 s.
    public var timeout: Duration
    /// Bodies longer than this are refused with `tooLarge`. Default 256 MiB.
    public var maxBytes: Int

    /// Creates a fetcher; every parameter has the documented default.
    public init(timeout: Duration = .seconds(30), maxBytes: Int = 256 << 20) {
        self.timeout = timeout
        self.maxBytes = maxBytes
    }

    /// Fetches `url` with a GET request.
    public func data(for url: URL) async throws(ImgToolError) -> [UInt8] {
        let name = url.absoluteString
        var request = URLRequest(url: url)
        request.timeoutInterval = max(timeout.milliseconds / 1000, 0.001)
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await URLSession.shared.data(for: request)
        } catch is CancellationError {
            throw ImgToolError(.cancelled, "the fetch was cancelled", input: name)
        } catch {
            throw ImgToolError(.network, "the fetch failed", input: name, cause: error.localizedDescription)
        }
        if let http = response as? HTTPURLResponse {
            let status = http.statusCode
            if status == 404 || status == 410 {
                throw ImgToolError(.notFound, "the server answered HTTP \(status)", input: name)
            }
            guard (200..<300).contains(status) else {
                throw ImgToolError(.network, "the server answered HTTP \(status)", input: name)
            }
            if http.expectedContentLength > 0, Int(http.expectedContentLength) != body.count {
                throw ImgToolError(
                    .truncated, "the body is \(body.count) bytes, the server declared \(http.expectedContentLength)",
                    input: name)
            }
        }
        guard body.count <= maxBytes else {
            throw ImgToolError(.tooLarge, "the body is \(body.count) bytes, over the limit of \(maxBytes)", input: name)
        }
        return [UInt8](body)
    }
}
