import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of one ``URLSessionFetcher`` fetch: collects the body, enforces the
/// status, byte cap and redirect rules, and resumes the awaiting task when the transfer ends.
///
/// Callbacks arrive on the session's delegate queue; the fetching task awaits ``run(_:)``. State
/// is shared through a `Locked`, and nothing is called (continuation, progress) while it is held.
final class FetchDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var continuation: CheckedContinuation<[UInt8], any Error>?
        var finished = false
        /// Set by the cancellation handler; a transfer not started by then never starts.
        var cancelled = false
        var body: [UInt8] = []
        var expected: Int?
        var status: Int?
        var failure: ImgToolError?
        /// When the request was started; `nil` before it is started, so a task that waits for a
        /// thread does not count that wait against the timeout.
        var started: ContinuousClock.Instant?
    }

    private let name: String
    private let maxBytes: Int
    private let progress: @Sendable (FetchProgress) -> Void
    private let state = Locked(State())

    init(name: String, maxBytes: Int, progress: @escaping @Sendable (FetchProgress) -> Void) {
        self.name = name
        self.maxBytes = maxBytes
        self.progress = progress
    }

    /// Starts `task` and returns its body once it completes; cancelling the calling task cancels it.
    ///
    /// Cancellation returns at once, without waiting for the session to report the cancelled
    /// transfer: swift-corelibs-foundation never completes a task cancelled before it started, and
    /// the fetch must not hang on that.
    func run(_ task: URLSessionDataTask) async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                let cancelled = state.withLock {
                    guard !$0.cancelled else { return true }
                    $0.continuation = continuation
                    $0.started = .now
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: ImgToolError(.cancelled, "cancelled", input: name))
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            let pending = state.withLock { state in
                state.cancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            task.cancel()
            pending?.resume(throwing: ImgToolError(.cancelled, "cancelled", input: name))
        }
    }

    /// Returns only by throwing: `network` "timed out" once `timeout` has passed since the
    /// transfer started (whatever arrived meanwhile: a server that drips a byte at a time is
    /// stopped too), or `CancellationError` when cancelled.
    func watch(timeout: Duration) async throws {
        while true {
            guard let started = state.withLock({ $0.started }) else {
                // Not started yet: the task is waiting for a thread.
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            let deadline = started.advanced(by: timeout)
            if ContinuousClock.now >= deadline {
                let received = state.withLock { $0.body.count }
                let message =
                    received == 0
                    ? "timed out: nothing received in \(timeout)"
                    : "timed out: the download took over \(timeout) (\(received) bytes so far)"
                throw ImgToolError(.network, message, input: name)
            }
            try await Task.sleep(until: deadline, clock: .continuous)
        }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode
        let declared = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
        // With a content coding (gzip...), Content-Length counts the coded bytes while the body
        // arrives decoded, so it caps the transfer but says nothing about the body's length.
        let coding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        let bodyLength = coding == nil || coding == "identity" ? declared : nil
        var failure: ImgToolError?
        if let status, !(200...299).contains(status) {
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            let code: ImgToolError.Code = status == 404 || status == 410 ? .notFound : .network
            failure = ImgToolError(code, "HTTP status \(status) (\(reason))", input: name)
        } else if let declared, declared > maxBytes {
            failure = ImgToolError(
                .tooLarge,
                "Content-Length is \(declared) bytes, over the limit of \(maxBytes)",
                input: name, limit: .bytes)
        }
        state.withLock {
            $0.status = status
            $0.expected = bodyLength
            if let failure, $0.failure == nil { $0.failure = failure }
            if failure == nil, let bodyLength { $0.body.reserveCapacity(bodyLength) }
        }
        if failure == nil { progress(FetchProgress(bytesSoFar: 0, total: bodyLength)) }
        completionHandler(failure == nil ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let update: FetchProgress? = state.withLock {
            guard $0.failure == nil else { return nil }
            if $0.body.count + data.count > maxBytes {
                $0.failure = ImgToolError(
                    .tooLarge,
                    "body passed the limit of \(maxBytes) bytes while downloading",
                    input: name, limit: .bytes)
                $0.body = []
                return nil
            }
            $0.body.append(contentsOf: data)
            return FetchProgress(bytesSoFar: $0.body.count, total: $0.expected)
        }
        if let update {
            progress(update)
        } else {
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Check the Location header as sent, not only the new request: swift-corelibs-foundation
        // turns `Location: file:///x` into a request for `http://same-host/x`.
        let location = response.value(forHTTPHeaderField: "Location")
        let target = request.url
        let schemes = [target?.scheme?.lowercased(), location.flatMap(Self.scheme(ofLocation:))]
        guard schemes.allSatisfy({ $0 == nil || $0 == "http" || $0 == "https" }), target?.scheme != nil else {
            let failure = ImgToolError(
                .network,
                "HTTP \(response.statusCode) redirect to \(location ?? target?.absoluteString ?? "an invalid URL") refused: only http and https redirects are followed",
                input: name)
            state.withLock { if $0.failure == nil { $0.failure = failure } }
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = state.withLock {
            state -> (CheckedContinuation<[UInt8], any Error>?, Result<[UInt8], ImgToolError>) in
            let result = Self.outcome(of: &state, error: error, name: name)
            let continuation = state.continuation
            state.continuation = nil
            state.finished = true
            return (continuation, result)
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }

    /// The lowercased scheme of a `Location` value (`file:/x` gives `file`), or `nil` for a
    /// relative reference. RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then `:`.
    static func scheme(ofLocation location: String) -> String? {
        let trimmed = location.drop { $0 == " " }
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let candidate = trimmed[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
            candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return candidate.lowercased()
    }

    /// The fetch's result once the transfer ended with `error` (or none).
    private static func outcome(of state: inout State, error: (any Error)?, name: String) -> Result<
        [UInt8], ImgToolError
    > {
        if let failure = state.failure { return .failure(failure) }
        let received = state.body.count
        if let error {
            let urlError = error as? URLError
            if let expected = state.expected, received < expected, state.status != nil {
                return .failure(
                    ImgToolError(
                        .truncated, "body ended after \(received) of \(expected) bytes (Content-Length)", input: name,
                        cause: urlError.map { "\($0.code.rawValue): \($0.localizedDescription)" }))
            }
            switch urlError?.code {
            case .cancelled?:
                return .failure(ImgToolError(.cancelled, "cancelled", input: name))
            case .timedOut?:
                return .failure(ImgToolError(.network, "timed out after \(received) bytes", input: name))
            case .cannotConnectToHost?:
                return .failure(
                    ImgToolError(.network, "connection refused", input: name, cause: error.localizedDescription))
            case .cannotFindHost?, .dnsLookupFailed?:
                return .failure(
                    ImgToolError(.network, "host not found", input: name, cause: error.localizedDescription))
            case .networkConnectionLost?:
                return .failure(
                    ImgToolError(
                        .network, "connection lost after \(received) bytes", input: name,
                        cause: error.localizedDescription))
            default:
                return .failure(
                    ImgToolError(.network, "fetch failed after \(received) bytes", input: name, cause: "\(error)"))
            }
        }
        if let expected = state.expected, received < expected {
            return .failure(
                ImgToolError(
                    .truncated, "body ended after \(received) of \(expected) bytes (Content-Length)", input: name))
        }
        var body: [UInt8] = []
        swap(&body, &state.body)
        return .success(body)
    }
}
