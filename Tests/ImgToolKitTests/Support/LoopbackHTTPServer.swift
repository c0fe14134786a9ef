import Foundation
import ImgToolKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: POSIX sockets, one thread, one request per
/// connection (`Connection: close`), fixed routes. Start it with ``init(routes:)``, read
/// ``port``, and call ``stop()`` before the test ends.
///
/// It serves whatever each route says, including a `Content-Length` larger than the body (the
/// connection is then closed early, to test truncation), redirects to any `Location`, a body
/// that never ends and a connection that goes silent (see ``Route/Ending``).
final class LoopbackHTTPServer: Sendable {
    /// One canned answer.
    struct Route: Sendable {
        var status: Int = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// The `Content-Length` sent; `nil` sends the body's real length.
        var declaredLength: Int?
        /// What follows the body.
        var ending: Ending = .close

        /// How a response ends.
        enum Ending: Sendable {
            /// The connection is closed after the body.
            case close
            /// After the body, nothing more is sent, the connection held open until the client
            /// closes it or the server stops.
            case stall
            /// No `Content-Length`: the body is sent chunked, followed by chunks of 64 KiB of
            /// zeros until the client hangs up (or the server stops).
            case endlessChunks
        }
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// The port the server listens on.
    let port: UInt16
    private let listener: Int32
    private let routes: [String: Route]
    private let stopping = Atomic<Bool>(false)
    private let finished = Locked<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let requests = Locked<[String]>([])
    private let sent = Atomic<Int>(0)

    /// Bytes written to clients so far, heads included.
    var bytesSent: Int { sent.load(ordering: .relaxed) }

    /// Paths requested so far, in order.
    var requestedPaths: [String] { requests.withLock { $0 } }

    /// Starts listening on 127.0.0.1 at a free port.
    init(routes: [String: Route]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Bool in
                bind(fd, generic, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "bind/listen: \(message)")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting, and returns once the serving thread has ended and the socket is closed.
    func stop() async {
        stopping.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = finished.withLock { state -> Bool in
                if state.done { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func serve() {
        while !stopping.load(ordering: .acquiring) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            // A client that stops reading cannot hold the serving thread past a test's end.
            var limit = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            handle(connection)
            close(connection)
        }
        close(listener)
        let waiter = finished.withLock { state -> CheckedContinuation<Void, Never>? in
            state.done = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func handle(_ connection: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd && request.count < 65536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            request += buffer[0..<count]
            // Not HTTP (a TLS handshake starts with byte 0x16): answered 400 at once, as real
            // servers do.
            if let first = request.first, !(65...90).contains(first) {
                send(
                    Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8),
                    on: connection)
                return
            }
        }
        let firstLine = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = firstLine.split(separator: " ")
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        requests.withLock { $0.append(path) }
        let route = routes[path] ?? Route(status: 404, body: Array("not found".utf8))
        var head = "HTTP/1.1 \(route.status) \(route.status == 200 ? "OK" : "Status")\r\n"
        if route.ending == .endlessChunks {
            head += "Transfer-Encoding: chunked\r\nConnection: close\r\n"
        } else {
            head += "Content-Length: \(route.declaredLength ?? route.body.count)\r\nConnection: close\r\n"
        }
        for (name, value) in route.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        guard send(Array(head.utf8), on: connection) else { return }
        switch route.ending {
        case .close:
            send(route.body, on: connection)
        case .stall:
            guard send(route.body, on: connection) else { return }
            // Until the client closes its end (a read of 0 bytes) or the server stops.
            var byte: UInt8 = 0
            while !stopping.load(ordering: .acquiring) {
                var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) <= 0 else {
                    if recv(connection, &byte, 1, 0) <= 0 { return }
                    continue
                }
            }
        case .endlessChunks:
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0, count: 65536) + Array("\r\n".utf8)
            if !route.body.isEmpty {
                let first = Array(String(route.body.count, radix: 16).utf8) + [13, 10] + route.body + [13, 10]
                guard send(first, on: connection) else { return }
            }
            while !stopping.load(ordering: .acquiring), send(chunk, on: connection) {}
        }
    }

    /// Sends all of `bytes`; `false` once the client has gone.
    @discardableResult
    private func send(_ bytes: [UInt8], on connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(connection, raw.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            offset += count
            sent.add(count, ordering: .relaxed)
        }
        return true
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4)
        where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
