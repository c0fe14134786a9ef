import CCurlFetch
import Foundation

/// One ``HTTPFetcher`` fetch: a CCurlFetch transfer run on a thread of its own, its decoded body
/// collected up to the byte cap, its end turned into the body or an ``ImgToolError``.
///
/// The transfer thread calls ``receiveHead(status:contentLength:encoding:)`` and
/// ``receiveBody(_:)`` as the response arrives; the awaiting task is resumed when the transfer
/// ends, or at once when it is cancelled (the thread then stops promptly on its own). State is
/// shared through a `Locked`; nothing is called (continuation, progress) while it is held.
final class CurlTransfer: Sendable {
    private typealias Continuation = CheckedContinuation<Result<[UInt8], ImgToolError>, Never>

    /// A transfer's C handle, touched under the state's lock only while the thread runs it.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var continuation: Continuation?
        /// Set by the cancellation handler; a transfer not started by then never starts.
        var cancelled = false
        var handle: Handle?
        /// The body so far, in blocks of about ``blockSize`` bytes (or one of the declared
        /// length), so that what has arrived is never copied to grow it: a body near the cap
        /// would otherwise need the cap and the half-size buffer it was grown from (1.5 to 2
        /// times the cap). Joined once, at the end.
        var blocks: [[UInt8]] = []
        /// Bytes in `blocks`.
        var received = 0
        /// The body's length when the response says it (a Content-Length and no content coding).
        var expected: Int?
        /// Why the transfer was stopped from a callback (a status, the byte cap).
        var failure: ImgToolError?
    }

    private let url: String
    private let name: String
    private let maxBytes: Int
    private let timeout: Duration
    private let maxRedirects: Int
    private let progress: @Sendable (FetchProgress) -> Void
    private let state = Locked(State())

    init(
        url: String, name: String, maxBytes: Int, timeout: Duration, maxRedirects: Int,
        progress: @escaping @Sendable (FetchProgress) -> Void
    ) {
        self.url = url
        self.name = name
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.progress = progress
    }

    /// Loads libcurl (once per process); `nil` when it is loaded, else why it cannot be.
    static func loadLibrary() -> String? {
        var reason: UnsafePointer<CChar>?
        if imgtool_fetch_load(&reason) != 0 { return nil }
        return reason.map { String(cString: $0) } ?? "cannot load libcurl.so.4"
    }

    /// Runs the transfer and returns its body; cancelling the calling task cancels it.
    func run() async throws(ImgToolError) -> [UInt8] {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Continuation) in
                let cancelled = state.withLock {
                    guard !$0.cancelled else { return true }
                    $0.continuation = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(returning: .failure(ImgToolError(.cancelled, "cancelled", input: name)))
                    return
                }
                let thread = Thread { [self] in perform() }
                thread.name = "imgtool fetch"
                thread.start()
            }
        } onCancel: {
            let pending = state.withLock { state -> Continuation? in
                state.cancelled = true
                if let handle = state.handle { imgtool_fetch_cancel(handle.pointer) }
                defer { state.continuation = nil }
                return state.continuation
            }
            pending?.resume(returning: .failure(ImgToolError(.cancelled, "cancelled", input: name)))
        }
        // The body was written under the lock on the transfer thread: taking the lock once more
        // orders those writes before the caller's reads where ThreadSanitizer can see it (it
        // does not see the continuation's resumption as that order).
        state.withLock { _ in }
        return try result.get()
    }

    /// The transfer thread's work: make, run and free the transfer, then resume the caller.
    private func perform() {
        let callbacks = imgtool_fetch_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            head: { context, status, contentLength, encoding in
                guard let context else { return 1 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveHead(
                    status: status, contentLength: contentLength, encoding: encoding.map { String(cString: $0) })
                    ? 0 : 1
            },
            body: { context, bytes, count in
                guard let context else { return 1 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveBody(UnsafeBufferPointer(start: bytes, count: count)) ? 0 : 1
            })
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        guard let pointer = imgtool_fetch_create(url, max(milliseconds, 1), maxRedirects, callbacks) else {
            finish(.failure(ImgToolError(.network, "cannot start the transfer (libcurl refused the URL)", input: name)))
            return
        }
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.handle = Handle(pointer: pointer)
            return true
        }
        var result = imgtool_fetch_result()
        if started { imgtool_fetch_perform(pointer, &result) }
        let message = String(cString: imgtool_fetch_message(pointer))
        let location = String(cString: imgtool_fetch_redirect_location(pointer))
        // After this no one else touches the handle: cancellation finds none.
        state.withLock { $0.handle = nil }
        imgtool_fetch_destroy(pointer)
        finish(started ? outcome(of: result, message: message, location: location) : .failure(cancelled))
    }

    private var cancelled: ImgToolError { ImgToolError(.cancelled, "cancelled", input: name) }

    /// Resumes the caller (unless cancellation already has).
    private func finish(_ result: Result<[UInt8], ImgToolError>) {
        let continuation = state.withLock { state -> Continuation? in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    /// The final response's head: `false` (stop) for a status outside 200-299 or a declared
    /// length over the cap.
    private func receiveHead(status: Int, contentLength: Int64, encoding: String?) -> Bool {
        let declared = contentLength >= 0 ? Int(clamping: contentLength) : nil
        // With a content coding (gzip...), Content-Length counts the coded bytes while the body
        // arrives decoded, so it caps the transfer but says nothing about the body's length.
        let coded = encoding.map { $0.lowercased() != "identity" } ?? false
        let bodyLength = coded ? nil : declared
        var failure: ImgToolError?
        if !(200...299).contains(status) {
            let code: ImgToolError.Code = status == 404 || status == 410 ? .notFound : .network
            let reason = Self.reasons[status].map { " (\($0))" } ?? ""
            failure = ImgToolError(code, "HTTP status \(status)\(reason)", input: name)
        } else if let declared, declared > maxBytes {
            failure = ImgToolError(
                .tooLarge, "Content-Length is \(declared) bytes, over the limit of \(maxBytes)", input: name,
                limit: .bytes)
        }
        state.withLock {
            $0.expected = bodyLength
            $0.failure = failure
            if failure == nil, let bodyLength, bodyLength > 0 { $0.blocks = [Self.block(capacity: bodyLength)] }
        }
        if failure == nil { progress(FetchProgress(bytesSoFar: 0, total: bodyLength)) }
        return failure == nil
    }

    /// What the statuses a server is likely to answer an image request with mean (RFC 9110).
    private static let reasons: [Int: String] = [
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
        402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        418: "I'm a teapot", 421: "Misdirected Request", 425: "Too Early", 426: "Upgrade Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]

    /// The next decoded piece of the body: `false` (stop) once the body would pass the cap.
    private func receiveBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let update: FetchProgress? = state.withLock {
            if $0.received + bytes.count > maxBytes {
                $0.failure = ImgToolError(
                    .tooLarge, "body passed the limit of \(maxBytes) bytes while downloading", input: name,
                    limit: .bytes)
                $0.blocks = []
                return nil
            }
            if let last = $0.blocks.last, last.count + bytes.count <= last.capacity {
                $0.blocks[$0.blocks.count - 1].append(contentsOf: bytes)
            } else {
                var block = Self.block(capacity: max(bytes.count, Self.blockSize))
                block.append(contentsOf: bytes)
                $0.blocks.append(block)
            }
            $0.received += bytes.count
            return FetchProgress(bytesSoFar: $0.received, total: $0.expected)
        }
        guard let update else { return false }
        progress(update)
        return true
    }

    /// The size of a body block when the body's length is not known.
    private static let blockSize = 1 << 20

    private static func block(capacity: Int) -> [UInt8] {
        var block: [UInt8] = []
        block.reserveCapacity(capacity)
        return block
    }

    /// The body in one array, `blocks` emptied as they are copied.
    private static func join(_ blocks: inout [[UInt8]], count: Int) -> [UInt8] {
        if blocks.count <= 1 { return blocks.popLast() ?? [] }
        var body: [UInt8] = []
        body.reserveCapacity(count)
        for index in blocks.indices {
            body.append(contentsOf: blocks[index])
            blocks[index] = []
        }
        blocks = []
        return body
    }

    /// The fetch's result from how the transfer ended.
    private func outcome(of result: imgtool_fetch_result, message: String, location: String) -> Result<
        [UInt8], ImgToolError
    > {
        let (failure, received) = state.withLock { state -> (ImgToolError?, Int) in
            (state.failure, state.received)
        }
        // OpenSSL's words without its library and error numbers: "OpenSSL/3.0.19:
        // error:0A00010B:SSL routines::wrong version number" is "wrong version number".
        let words = message.range(of: "routines::").map { String(message[$0.upperBound...]) } ?? message
        let cause = words.isEmpty ? nil : words
        let declared = result.content_length >= 0 ? Int(clamping: result.content_length) : nil
        let truncated = declared.map {
            ImgToolError(
                .truncated, "body ended after \(result.received) of \($0) bytes (Content-Length)", input: name,
                cause: cause)
        }
        switch result.outcome {
        case IMGTOOL_FETCH_DONE:
            if let failure { return .failure(failure) }
            return .success(state.withLock { Self.join(&$0.blocks, count: $0.received) })
        case IMGTOOL_FETCH_STOPPED:
            return .failure(failure ?? ImgToolError(.network, "fetch stopped", input: name, cause: cause))
        case IMGTOOL_FETCH_CANCELLED:
            return .failure(cancelled)
        case IMGTOOL_FETCH_TIMED_OUT:
            let words =
                received == 0
                ? "timed out: nothing received in \(timeout)"
                : "timed out: the download took over \(timeout) (\(received) bytes so far)"
            return .failure(ImgToolError(.network, words, input: name))
        case IMGTOOL_FETCH_CANNOT_CONNECT:
            if result.os_error == ECONNREFUSED {
                return .failure(ImgToolError(.network, "connection refused", input: name))
            }
            let reason = result.os_error == 0 ? nil : String(cString: strerror(result.os_error))
            return .failure(
                ImgToolError(.network, "cannot connect" + (reason.map { ": \($0)" } ?? ""), input: name, cause: cause))
        case IMGTOOL_FETCH_HOST_NOT_FOUND:
            return .failure(ImgToolError(.network, "host not found", input: name))
        case IMGTOOL_FETCH_TLS_FAILED:
            return .failure(ImgToolError(.network, "TLS handshake failed", input: name, cause: cause))
        case IMGTOOL_FETCH_CERTIFICATE_REFUSED:
            return .failure(
                ImgToolError(.network, "the server's TLS certificate is not trusted", input: name, cause: cause))
        case IMGTOOL_FETCH_TOO_MANY_REDIRECTS:
            return .failure(ImgToolError(.network, "more than \(maxRedirects) redirects", input: name))
        case IMGTOOL_FETCH_REDIRECT_REFUSED:
            return .failure(
                ImgToolError(
                    .network,
                    "HTTP \(result.redirect_status) redirect to \(location) refused: only http and https redirects are followed",
                    input: name))
        case IMGTOOL_FETCH_TRUNCATED:
            return .failure(truncated ?? ImgToolError(.truncated, "body ended early", input: name, cause: cause))
        case IMGTOOL_FETCH_CONNECTION_LOST:
            if let truncated, let declared, result.received < declared { return .failure(truncated) }
            return .failure(
                ImgToolError(.network, "connection lost after \(received) bytes", input: name, cause: cause))
        case IMGTOOL_FETCH_EMPTY_REPLY:
            return .failure(ImgToolError(.network, "the server closed the connection without answering", input: name))
        case IMGTOOL_FETCH_BAD_ENCODING:
            return .failure(
                ImgToolError(.network, "the body's content coding cannot be decoded", input: name, cause: cause))
        case IMGTOOL_FETCH_BAD_RESPONSE:
            return .failure(ImgToolError(.network, "the server's answer is not HTTP", input: name, cause: cause))
        default:
            return .failure(ImgToolError(.network, "fetch failed", input: name, cause: cause))
        }
    }
}
