#if canImport(Glibc)
    import Glibc
#endif

/// The child's side of ``DecoderIsolation``: reads one ``IsolatedRequest`` from standard input,
/// runs the decoder it names in this process, writes its records on standard output, and exits.
///
/// A thread watches the socket: when the parent goes away (it exited, crashed or was killed), the
/// socket hangs up and the child exits at once, even in the middle of a long C call, so no child
/// outlives its parent holding the parent's standard error.
enum IsolatedDecoderService {
    /// What a decoder does in the child for one request, writing its records on `output`.
    typealias Handler = (IsolatedRequest, IsolatedOutput) throws(ImgToolError) -> Void

    /// The decoders a child can run, by ``IsolatedRequest/kind``.
    static func handler(for kind: String) -> Handler? {
        switch kind {
        case HEIFIsolation.kind: HEIFIsolation.serve
        case VideoIsolation.kind: VideoIsolation.serve
        default: nil
        }
    }

    static func serve() -> Never {
        signal(SIGPIPE, SIG_IGN)
        let output = IsolatedOutput()
        guard let request = readRequest() else { _exit(2) }
        watchParent()
        do throws(ImgToolError) {
            guard let handler = handler(for: request.kind) else {
                throw ImgToolError(.unsupportedFormat, "this program has no \(request.kind) decoder to isolate")
            }
            try handler(request, output)
            output.write([IsolatedRecord.end])
        } catch {
            var wire = WireWriter()
            wire.string(error.code.rawValue)
            wire.string(error.message)
            wire.optionalString(error.cause)
            wire.optionalString(error.limit?.rawValue)
            var record = WireWriter()
            record.byte(IsolatedRecord.error)
            record.u32(UInt32(clamping: wire.bytes.count))
            output.write(record.bytes + wire.bytes)
        }
        _exit(0)
    }

    /// Reads exactly `count` bytes from standard input, or `nil` when it ends first.
    private static func read(_ count: Int) -> [UInt8]? {
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            while filled < count {
                let got = Glibc.read(0, buffer.baseAddress.map { $0 + filled }, count - filled)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { break }
                filled += got
            }
            complete = filled == count
            if !complete { UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0) }
            initialized = count
        }
        return complete ? bytes : nil
    }

    /// One more byte from the parent after the request (a second question, as
    /// ``HEIFIsolation``'s depth to decode at), or `nil` when the parent closed the connection.
    static func question() -> UInt8? {
        read(1)?[0]
    }

    /// `count` more bytes from the parent (the rest of a longer question), or `nil` when the
    /// parent closed the connection first.
    static func question(count: Int) -> [UInt8]? {
        read(count)
    }

    private static func readString() -> String? {
        guard
            let length = read(4).flatMap({
                var wire = WireReader($0); return wire.u32()
            }), length <= 4096
        else {
            return nil
        }
        return read(Int(length)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The request on standard input (sent by our own parent), or `nil` when it is cut.
    private static func readRequest() -> IsolatedRequest? {
        guard read(IsolatedRequest.magic.count) == IsolatedRequest.magic, let kind = readString(),
            let operation = readString(), let depth = read(1)?[0], let numbers = read(5 * 8)
        else { return nil }
        var wire = WireReader(numbers)
        let values = (0..<5).map { _ in Int(clamping: wire.u64() ?? 0) }
        let limits = DecodingLimits(
            maxPixels: values[0], maxFrames: values[1], maxTotalPixels: values[2], maxChunkBytes: values[3])
        guard let data = read(values[4]) else { return nil }
        return IsolatedRequest(
            kind: kind, operation: operation, depth: depth == 16 ? .sixteen : depth == 8 ? .eight : nil,
            limits: limits, data: data)
    }

    /// Starts the thread that ends this process when the parent's end of the socket closes.
    private static func watchParent() {
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { _ in
                let hangUp = Int16(0x2000)  // POLLRDHUP, which Glibc's module leaves out (_GNU_SOURCE)
                var descriptor = pollfd(fd: 0, events: hangUp, revents: 0)
                while true {
                    let ready = poll(&descriptor, 1, -1)
                    if ready > 0, descriptor.revents & (hangUp | Int16(POLLHUP | POLLERR)) != 0 { _exit(3) }
                    if ready < 0 && errno != EINTR { _exit(3) }
                }
            }, nil)
    }
}

/// Where a child decoder writes its records: standard output, the socket to the parent. A write
/// that fails (the parent went away) ends the process.
struct IsolatedOutput {
    /// Writes `bytes` entirely, or exits.
    func write(_ bytes: UnsafeRawBufferPointer) {
        var sent = 0
        while sent < bytes.count {
            let count = Glibc.write(1, bytes.baseAddress.map { $0 + sent }, bytes.count - sent)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { _exit(4) }
            sent += count
        }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// A `P` record holding `bytes`.
    func payload(_ bytes: [UInt8]) {
        var record = WireWriter()
        record.byte(IsolatedRecord.payload)
        record.u32(UInt32(clamping: bytes.count))
        write(record.bytes + bytes)
    }

    /// An `F` record: `image`'s size and depth, then its samples as they are in memory.
    func frame(_ image: PixelBuffer) {
        var record = WireWriter()
        record.byte(IsolatedRecord.frame)
        record.u32(UInt32(clamping: image.width))
        record.u32(UInt32(clamping: image.height))
        switch image.samples {
        case .rgba8(let samples):
            record.byte(8)
            write(record.bytes)
            samples.withUnsafeBytes { write($0) }
        case .rgba16(let samples):
            record.byte(16)
            write(record.bytes)
            samples.withUnsafeBytes { write($0) }
        }
    }
}
