#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a streaming encoder's bytes go: an open file descriptor, written as they come, or a
/// buffer in memory.
public struct ByteSink: Sendable {
    private enum Target {
        /// `start`: the file offset of the first byte written, or `nil` when the descriptor
        /// cannot be written at an offset (a pipe, a terminal, a file opened to append).
        case descriptor(Int32, start: Int?)
        case memory
    }

    private let target: Target
    /// Everything written, for a memory sink; always empty for a descriptor.
    public private(set) var bytes: [UInt8] = []

    /// A sink that writes to `descriptor` (not closed here).
    public init(fileDescriptor descriptor: Int32) {
        let position = lseek(descriptor, 0, SEEK_CUR)
        let flags = fcntl(descriptor, F_GETFL)
        let seekable = position >= 0 && flags >= 0 && flags & O_APPEND == 0
        target = .descriptor(descriptor, start: seekable ? Int(position) : nil)
    }

    /// A sink that collects the bytes in ``bytes``.
    public init() {
        target = .memory
    }

    /// The message of the `writeFailed` error thrown when the output is a pipe whose reader has
    /// gone (`EPIPE`, with SIGPIPE ignored): the command line ends quietly then, as a process
    /// killed by SIGPIPE would.
    public static let readerGone = "the reader of the output went away"

    /// Writes all of `data`, retrying short writes and interrupted calls.
    /// The corresponding C function is `write`.
    /// - Throws: ``ImgToolError`` `writeFailed` with errno's text (``readerGone`` for `EPIPE`).
    public mutating func append(_ data: [UInt8]) throws(ImgToolError) {
        try append(data[...])
    }

    /// ``append(_:)`` for part of an array, written without copying it.
    mutating func append(_ data: ArraySlice<UInt8>) throws(ImgToolError) {
        switch target {
        case .memory:
            bytes.append(contentsOf: data)
        case .descriptor(let descriptor, _):
            if let failure = Self.writeAll(data, to: descriptor, at: nil) {
                if failure == EPIPE { throw ImgToolError(.writeFailed, Self.readerGone) }
                throw ImgToolError(.writeFailed, "writing the output failed", cause: systemErrorText(failure))
            }
        }
    }

    /// Whether bytes already written can be written again (``rewrite(_:at:)``): always in
    /// memory; for a descriptor, when it is a file that can be written at an offset (not a
    /// pipe, a terminal or a file opened to append).
    var canRewrite: Bool {
        switch target {
        case .memory: true
        case .descriptor(_, let start): start != nil
        }
    }

    /// Writes `data` again over bytes already written, `offset` bytes after the first byte this
    /// sink wrote. The corresponding C function is `pwrite`.
    /// - Throws: ``ImgToolError`` `writeFailed` with errno's text, or when ``canRewrite`` is
    ///   `false`.
    mutating func rewrite(_ data: [UInt8], at offset: Int) throws(ImgToolError) {
        switch target {
        case .memory:
            bytes.replaceSubrange(offset..<offset + data.count, with: data)
        case .descriptor(let descriptor, let start):
            guard let start else {
                throw ImgToolError(.writeFailed, "the output cannot be rewritten: it is not a file that can seek")
            }
            if let failure = Self.writeAll(data[...], to: descriptor, at: start + offset) {
                throw ImgToolError(.writeFailed, "writing the output failed", cause: systemErrorText(failure))
            }
        }
    }

    /// Writes all of `data` to `descriptor`, at its current position (`write`) or at `offset`
    /// (`pwrite`), retrying short writes and interrupted calls; returns errno on failure.
    private static func writeAll(_ data: ArraySlice<UInt8>, to descriptor: Int32, at offset: Int?) -> Int32? {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let from = raw.baseAddress.unsafelyUnwrapped + done
                let written =
                    if let offset {
                        pwrite(descriptor, from, raw.count - done, off_t(offset + done))
                    } else {
                        write(descriptor, from, raw.count - done)
                    }
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
    }
}
