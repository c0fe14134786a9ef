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
/// connection is then closed early, to test truncation) and redirects to any `Location`.
final class LoopbackHTTPServer: Sendable {
    /// One canned answer.
    struct Route: Sendable {
        var status: Int = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// The `Content-Length` sent; `nil` sends the body's real length.
        var declaredLength: Int?
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
        }
        let firstLine = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = firstLine.split(separator: " ")
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        requests.withLock { $0.append(path) }
        let route = routes[path] ?? Route(status: 404, body: Array("not found".utf8))
        var head = "HTTP/1.1 \(route.status) \(route.status == 200 ? "OK" : "Status")\r\n"
        head += "Content-Length: \(route.declaredLength ?? route.body.count)\r\nConnection: close\r\n"
        for (name, value) in route.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        send(Array(head.utf8), on: connection)
        send(route.body, on: connection)
    }

    private func send(_ bytes: [UInt8], on connection: Int32) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(connection, raw.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
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
