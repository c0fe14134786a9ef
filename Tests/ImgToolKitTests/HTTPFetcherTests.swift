import Foundation
import ImgToolKit
import TestSupport
import Testing

/// `HTTPFetcher` (libcurl) against a server on 127.0.0.1 that this process runs: the byte cap on
/// decoded bodies (a gzip bomb, an endless chunked body), content codings, statuses, redirects,
/// timeouts, refused, unresolvable and non-TLS hosts, cancellation. Every failure is one line
/// naming the URL.
@Suite("HTTP fetcher (loopback)", .timeLimit(.minutes(5)))
struct HTTPFetcherTests {
    static let png: [UInt8] = (try? MergeFixtures.png(TestImages.noise8(width: 16, height: 16, seed: 1))) ?? []

    /// Serves `routes` while `body` runs.
    static func withServer<T>(
        _ routes: [String: LoopbackHTTPServer.Route], _ body: (LoopbackHTTPServer) async throws -> T
    ) async throws -> T {
        let server = try LoopbackHTTPServer(routes: routes)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The error fetching `url` throws (or an issue recorded), checked to be one line naming it.
    static func failure(_ url: String, fetcher: HTTPFetcher, progress: ProgressLog = ProgressLog()) async
        -> ImgToolError?
    {
        guard let target = URL(string: url) else { return nil }
        do {
            let bytes = try await fetcher.fetch(target, name: url) { progress.add($0) }
            Issue.record("\(url) gave \(bytes.count) bytes instead of failing")
            return nil
        } catch {
            #expect(error.input == url, "the error names the URL")
            #expect(error.description.hasPrefix(url + ": "), "\(error)")
            #expect(!error.description.contains("\n"), "one line: \(error)")
            #expect(!error.description.contains("Error Domain"), "no raw NSError text: \(error)")
            return error
        }
    }

    @Test("A 200 response gives the body, with progress up to its length")
    func success() async throws {
        try await Self.withServer(["/a.png": .init(body: Self.png)]) { server in
            let progress = ProgressLog()
            let bytes = try await HTTPFetcher(timeout: .seconds(10)).fetch(
                try #require(URL(string: server.url("/a.png"))), name: "a"
            ) { progress.add($0) }
            #expect(bytes == Self.png)
            #expect(progress.values.last == FetchProgress(bytesSoFar: Self.png.count, total: Self.png.count))
        }
    }

    @Test("A gzip-coded PNG arrives decoded and loads")
    func gzipPNG() async throws {
        let gzip = ContentCoding.gzip(stored: Self.png)
        let zeros = ContentCoding.gzip(zeros: 3_000_000)
        try await Self.withServer([
            "/a.png": .init(headers: [("Content-Encoding", "gzip")], body: gzip),
            "/zeros": .init(headers: [("Content-Encoding", "gzip")], body: zeros),
        ]) { server in
            let progress = ProgressLog()
            let fetcher = HTTPFetcher(timeout: .seconds(10))
            let bytes = try await fetcher.fetch(try #require(URL(string: server.url("/a.png"))), name: "a") {
                progress.add($0)
            }
            #expect(bytes == Self.png)
            // Content-Length counts the coded bytes, so the body's length is not known ahead.
            #expect(progress.values.last == FetchProgress(bytesSoFar: Self.png.count, total: nil))
            let image = try await ImageLoader(fetcher: fetcher).load(try ImageInput(server.url("/a.png")))
            #expect(image.image == TestImages.noise8(width: 16, height: 16, seed: 1))
            // The bomb's coding under a cap it fits: valid gzip (check value included), joined from
            // several blocks.
            let decoded = try await fetcher.fetch(try #require(URL(string: server.url("/zeros"))), name: "z") { _ in }
            #expect(decoded == [UInt8](repeating: 0, count: 3_000_000))
        }
    }

    @Test("A gzip bomb stops at the cap on decoded bytes, with no more than the cap held")
    func gzipBomb() async throws {
        // 64 MiB of zeros in about 400 KiB of gzip, under a 1 MiB cap
        let bomb = ContentCoding.gzip(zeros: 64 << 20)
        let limit = 1 << 20
        try await Self.withServer(["/bomb.png": .init(headers: [("Content-Encoding", "gzip")], body: bomb)]) {
            server in
            let progress = ProgressLog()
            let error = await Self.failure(
                server.url("/bomb.png"), fetcher: HTTPFetcher(maxBytes: limit, timeout: .seconds(20)),
                progress: progress)
            #expect(error?.code == .tooLarge)
            #expect(error?.limit == .bytes)
            #expect(error?.message == "body passed the limit of \(limit) bytes while downloading")
            // What was taken in never passed the cap, and the rest was never decoded.
            let most = progress.values.map(\.bytesSoFar).max() ?? 0
            #expect(most <= limit && most > limit - 65536, "\(most)")
            // Stopped by the cap, not by the 20 s timeout: the message says which. (No bound on
            // the time: in a parallel run the test's resumption waits for a thread of the
            // cooperative pool, which other suites' process runs can hold for a minute.)
        }
    }

    @Test("A chunked body that never ends stops at the cap, promptly")
    func endlessBody() async throws {
        let limit = 1 << 20
        try await Self.withServer(["/endless.png": .init(body: Self.png, ending: .endlessChunks)]) { server in
            let progress = ProgressLog()
            let error = await Self.failure(
                server.url("/endless.png"), fetcher: HTTPFetcher(maxBytes: limit, timeout: .seconds(20)),
                progress: progress)
            #expect(error?.code == .tooLarge)
            #expect(error?.message == "body passed the limit of \(limit) bytes while downloading")
            #expect((progress.values.map(\.bytesSoFar).max() ?? 0) <= limit)
            // Stopped by the cap, not by the 20 s timeout: the message says which. (No bound on
            // the time: in a parallel run the test's resumption waits for a thread of the
            // cooperative pool, which other suites' process runs can hold for a minute.)
            // The fetcher hung up at the cap: the server could send little more than what
            // the two sockets buffer.
            #expect(server.bytesSent < limit + (16 << 20), "\(server.bytesSent)")
        }
    }

    @Test("A corrupt gzip body and an unknown content coding are errors saying so")
    func badCoding() async throws {
        var gzip = ContentCoding.gzip(stored: Self.png)
        gzip[gzip.count - 6] ^= 0xFF  // the CRC-32
        try await Self.withServer([
            "/bad.png": .init(headers: [("Content-Encoding", "gzip")], body: gzip),
            "/odd.png": .init(headers: [("Content-Encoding", "x-imgtool")], body: Self.png),
        ]) { server in
            for path in ["/bad.png", "/odd.png"] {
                let error = await Self.failure(server.url(path), fetcher: HTTPFetcher(timeout: .seconds(10)))
                #expect(error?.code == .network)
                #expect(
                    error?.message == "the body's content coding cannot be decoded", "\(String(describing: error))")
            }
        }
    }

    @Test(
        "HTTP statuses: 404 and 410 are notFound, others are network errors naming the status",
        arguments: [
            (404, ImgToolError.Code.notFound), (410, .notFound), (500, .network), (403, .network), (301, .network),
        ])
    func statuses(status: Int, code: ImgToolError.Code) async throws {
        try await Self.withServer(["/a.png": .init(status: status, body: Array("nope".utf8))]) { server in
            let error = await Self.failure(server.url("/a.png"), fetcher: HTTPFetcher(timeout: .seconds(10)))
            #expect(error?.code == code)
            #expect(error?.message.hasPrefix("HTTP status \(status) (") == true, "\(String(describing: error))")
        }
    }

    @Test("A declared Content-Length over the cap is refused; a short body is truncated")
    func lengths() async throws {
        try await Self.withServer([
            "/big.png": .init(body: [UInt8](repeating: 1, count: 5000)),
            "/short.png": .init(body: Array(Self.png.prefix(100)), declaredLength: 1000),
        ]) { server in
            let big = await Self.failure(server.url("/big.png"), fetcher: HTTPFetcher(maxBytes: 1000))
            #expect(big?.code == .tooLarge)
            #expect(big?.message == "Content-Length is 5000 bytes, over the limit of 1000")
            let short = await Self.failure(server.url("/short.png"), fetcher: HTTPFetcher(timeout: .seconds(10)))
            #expect(short?.code == .truncated)
            #expect(short?.message == "body ended after 100 of 1000 bytes (Content-Length)")
        }
    }

    @Test("Redirects are followed, up to the limit, and only to http and https")
    func redirects() async throws {
        try await Self.withServer([
            "/moved.png": .init(
                status: 302, headers: [("Location", "/a.png")], body: Array("<a href=/a.png>moved</a>".utf8)),
            "/a.png": .init(body: Self.png),
            "/loop": .init(status: 301, headers: [("Location", "/loop")]),
            "/file": .init(status: 301, headers: [("Location", "file:///etc/passwd")]),
        ]) { server in
            let fetcher = HTTPFetcher(timeout: .seconds(10))
            let bytes = try await fetcher.fetch(try #require(URL(string: server.url("/moved.png"))), name: "m") { _ in
            }
            #expect(bytes == Self.png)
            let loop = await Self.failure(server.url("/loop"), fetcher: fetcher)
            #expect(loop?.message == "more than \(HTTPFetcher.maxRedirects) redirects")
            let file = await Self.failure(server.url("/file"), fetcher: fetcher)
            #expect(
                file?.message
                    == "HTTP 301 redirect to file:///etc/passwd refused: only http and https redirects are followed")
        }
    }

    @Test("The timeout bounds the whole transfer: a server gone silent after part of the body")
    func stall() async throws {
        try await Self.withServer([
            "/slow.png": .init(body: Array(Self.png.prefix(10)), declaredLength: 1000, ending: .stall)
        ]) { server in
            let error = await Self.failure(server.url("/slow.png"), fetcher: HTTPFetcher(timeout: .milliseconds(300)))
            #expect(error?.code == .network)
            #expect(
                error?.message == "timed out: the download took over 0.3 seconds (10 bytes so far)",
                "\(String(describing: error))")
        }
    }

    @Test("A refused connection, an unknown host and a server that does not speak TLS say so")
    func connections() async throws {
        let fetcher = HTTPFetcher(timeout: .seconds(10))
        // A port that was free a moment ago (the server is stopped, its socket closed)
        let closed = try LoopbackHTTPServer(routes: [:])
        await closed.stop()
        let refused = await Self.failure(closed.url("/a.png"), fetcher: fetcher)
        #expect(refused?.code == .network)
        #expect(refused?.message == "connection refused", "\(String(describing: refused))")
        // .invalid never resolves (RFC 6761)
        let unknown = await Self.failure("http://imgtool-test.invalid/a.png", fetcher: fetcher)
        #expect(unknown?.message == "host not found", "\(String(describing: unknown))")
        try await Self.withServer(["/a.png": .init(body: Self.png)]) { server in
            let url = server.url("/a.png").replacingOccurrences(of: "http:", with: "https:")
            let tls = await Self.failure(url, fetcher: fetcher)
            #expect(tls?.code == .network)
            #expect(tls?.message == "TLS handshake failed", "\(String(describing: tls))")
        }
    }

    @Test("Cancelling the caller ends a stalled transfer at once")
    func cancellation() async throws {
        try await Self.withServer(["/a.png": .init(body: [], declaredLength: 1000, ending: .stall)]) { server in
            let target = try #require(URL(string: server.url("/a.png")))
            let progress = ProgressLog()
            let task = Task { () async throws(ImgToolError) -> [UInt8] in
                try await HTTPFetcher(timeout: .seconds(60)).fetch(target, name: "a") { progress.add($0) }
            }
            // Once the response's head has arrived (the first progress report)
            #expect(try await waitUntil { !progress.values.isEmpty }, "no response")
            task.cancel()
            let result = await task.result
            // Ended by the cancellation (the error says so), not by the 60 s timeout.
            guard case .failure(let error as ImgToolError) = result else {
                Issue.record("expected cancellation"); return
            }
            #expect(error.code == .cancelled && error.input == "a")
            // and one cancelled before it starts never starts
            let early = Task { () async throws(ImgToolError) -> [UInt8] in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await HTTPFetcher(timeout: .seconds(60)).fetch(target, name: "b") { _ in }
            }
            guard case .failure(let earlyError as ImgToolError) = await early.result else {
                Issue.record("expected cancel"); return
            }
            #expect(earlyError.code == .cancelled && earlyError.input == "b")
        }
    }
}
