import Foundation
import ImgToolKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLProtocol` that answers from a table instead of the network, for `URLSessionFetcher`
/// tests. Register it on a session configuration (``configuration``); each test uses its own
/// host so that tests running in parallel do not share answers.
final class MockURLProtocol: URLProtocol {
    /// What the mock does for one URL.
    enum Reply: Sendable {
        /// Answers with `status`, the headers, and `body` delivered in `chunks` pieces.
        case respond(status: Int, headers: [String: String], body: [UInt8], chunks: Int)
        /// Sends the status and headers (and `body`), then nothing more, ever.
        case stall(headers: [String: String], body: [UInt8])
        /// Fails before any response, with a `URLError` code.
        case fail(URLError.Code)
    }

    private static let replies = Locked<[String: Reply]>([:])
    private static let startedURLs = Locked<Set<String>>([])

    /// Sets the reply for `url`.
    static func set(_ url: String, _ reply: Reply) {
        replies.withLock { $0[url] = reply }
    }

    /// Whether a transfer of `url` has started (the session asked this protocol to load it).
    static func hasStarted(_ url: String) -> Bool {
        startedURLs.withLock { $0.contains(url) }
    }

    /// A configuration whose sessions use this protocol first.
    static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        return configuration
    }

    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.host?.hasSuffix(".mock") == true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        if let url = request.url { _ = Self.startedURLs.withLock { $0.insert(url.absoluteString) } }
        guard let url = request.url, let reply = Self.replies.withLock({ $0[url.absoluteString] }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        switch reply {
        case .respond(let status, let headers, let body, let chunks):
            send(status: status, headers: headers, url: url)
            let size = max(1, (body.count + max(chunks, 1) - 1) / max(chunks, 1))
            var offset = 0
            while offset < body.count {
                let end = min(offset + size, body.count)
                client?.urlProtocol(self, didLoad: Data(body[offset..<end]))
                offset = end
            }
            client?.urlProtocolDidFinishLoading(self)
        case .stall(let headers, let body):
            send(status: 200, headers: headers, url: url)
            if !body.isEmpty { client?.urlProtocol(self, didLoad: Data(body)) }
        case .fail(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        }
    }

    override func stopLoading() {}

    private func send(status: Int, headers: [String: String], url: URL) {
        guard
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    }
}
