#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a streaming encoder's bytes go: an open file descriptor, written as they come, or a
/// buffer in memory.
public struct ByteSink: Sendable {
    private enum Target {
        case descriptor(Int32)
        case memory
    }

    private let target: Target
    /// Everything written, for a memory sink; always empty for a descriptor.
    public private(set) var bytes: [UInt8] = []

    /// A sink that writes to `descriptor` (not closed here).
    public init(fileDescriptor descriptor: Int32) {
        target = .descriptor(descriptor)
    }

    /// A sink that collects the bytes in ``bytes``.
    public init() {
        target = .memory
    }

    /// Writes all of `data`, retrying short writes and interrupted calls.
    /// The corresponding C function is `write`.
    /// - Throws: ``ImgToolError`` `writeFailed` with errno's text.
    public mutating func append(_ data: [UInt8]) throws(ImgToolError) {
        switch target {
        case .memory:
            bytes.append(contentsOf: data)
        case .descriptor(let descriptor):
            let failure: Int32? = data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, raw.baseAddress.unsafelyUnwrapped + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failure {
                throw ImgToolError(.writeFailed, "writing the output failed", cause: systemErrorText(failure))
            }
        }
    }
}
