#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads whole files with errno kept, so a missing file and an unreadable one say so.
enum FileBytes {
    /// Largest file read whole, in bytes (2 GiB): larger inputs are refused with `tooLarge`.
    static let maxBytes = 2 << 30

    /// The contents of the file at `path`.
    /// - Throws: ``ImgToolError`` naming `path`: `notFound`, `unreadable` or `tooLarge`.
    static func read(_ path: String, maxBytes: Int = maxBytes) throws(ImgToolError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw ImgToolError(.notFound, "no such file", input: path) }
            throw ImgToolError(errorCode(forErrno: code), "cannot open", input: path, cause: systemErrorText(code))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw ImgToolError(.unreadable, "cannot read", input: path, cause: systemErrorText(errno))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw ImgToolError(.unreadable, "is a directory, not an image file", input: path)
        }
        let declared = Int(status.st_size)
        if declared > maxBytes {
            throw ImgToolError(.tooLarge, "file is \(declared) bytes, over the limit of \(maxBytes)", input: path)
        }
        // Read straight into an array of the declared size, then keep reading in case the
        // file grew (or is a pipe-like file whose size stat does not know).
        var bytes = try [UInt8](unsafeUninitializedCapacity: max(declared, 0)) { (buffer, count) throws(ImgToolError) in
            count = 0
            while count < buffer.count {
                let got = Glibc.read(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw ImgToolError(.unreadable, "read failed", input: path, cause: systemErrorText(errno))
                }
                if got == 0 { break }
                count += got
            }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ImgToolError(.unreadable, "read failed", input: path, cause: systemErrorText(errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes {
                throw ImgToolError(.tooLarge, "file is over the limit of \(maxBytes) bytes", input: path)
            }
        }
        return bytes
    }
}
