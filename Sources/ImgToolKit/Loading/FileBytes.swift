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
    /// - Parameters:
    ///   - checkHead: called with the first ``CodecRegistry/sniffLength`` bytes as soon as they
    ///     have arrived (with all of a shorter file at its end); what it throws ends the read, so
    ///     a stream that is not an image is refused before it is read whole.
    /// - Throws: ``ImgToolError`` naming `path`: `notFound`, `unreadable` or `tooLarge`, or what
    ///   `checkHead` throws.
    static func read(
        _ path: String, maxBytes: Int = maxBytes, checkHead: (([UInt8]) throws(ImgToolError) -> Void)? = nil
    ) throws(ImgToolError) -> [UInt8] {
        let (fd, declared) = try open(path, maxBytes: maxBytes)
        defer { close(fd) }
        return try read(fd, declaredSize: declared, path: path, maxBytes: maxBytes, checkHead: checkHead)
    }

    /// The rest of the file open as `fd`, from its current offset; `declaredSize` (from `fstat`)
    /// sizes the first read. Errors name `path`; `checkHead` as in ``read(_:maxBytes:checkHead:)``.
    static func read(
        _ fd: Int32, declaredSize declared: Int, path: String, maxBytes: Int = maxBytes,
        checkHead: (([UInt8]) throws(ImgToolError) -> Void)? = nil
    )
        throws(ImgToolError) -> [UInt8]
    {
        var headChecked = checkHead == nil
        // Read straight into an array of the declared size, then keep reading in case the
        // file grew (or is a pipe-like file whose size stat does not know).
        var bytes = try [UInt8](unsharedUninitializedCapacity: max(declared, 0)) {
            (buffer, count) throws(ImgToolError) in
            adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
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
            if !headChecked, bytes.count >= CodecRegistry.sniffLength, let checkHead {
                headChecked = true
                try checkHead(Array(bytes.prefix(CodecRegistry.sniffLength)))
            }
            if bytes.count > maxBytes {
                throw ImgToolError(
                    .tooLarge, "file is over the limit of \(maxBytes) bytes", input: path, limit: .bytes)
            }
        }
        return bytes
    }

    /// Opens the file at `path` for reading and returns its descriptor (which the caller closes)
    /// and its size as `fstat` gives it.
    /// - Throws: ``ImgToolError`` naming `path`: `notFound`, `unreadable` (a folder too) or
    ///   `tooLarge` when the size passes `maxBytes`.
    static func open(_ path: String, maxBytes: Int = maxBytes) throws(ImgToolError) -> (descriptor: Int32, size: Int) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw ImgToolError(.notFound, "no such file", input: path) }
            throw ImgToolError(errorCode(forErrno: code), "cannot open", input: path, cause: systemErrorText(code))
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            throw ImgToolError(.unreadable, "cannot read", input: path, cause: systemErrorText(code))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw ImgToolError(.unreadable, "is a directory, not an image file", input: path)
        }
        let declared = Int(status.st_size)
        if declared > maxBytes {
            close(fd)
            throw ImgToolError(
                .tooLarge, "file is \(declared) bytes, over the limit of \(maxBytes)", input: path, limit: .bytes)
        }
        return (fd, declared)
    }

    /// Whether the regular file open as `descriptor` is a still PNG: the PNG signature, then
    /// chunks up to the first IDAT with no acTL among them (``APNGFile/hasAnimationControl(_:)``
    /// on the file). Reads only the signature and the chunk headers, with `pread`; never throws:
    /// anything odd answers `false`, and the caller reads the whole file and reports it.
    static func isStillPNG(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        var signature = [UInt8](repeating: 0, count: 8)
        guard pread(descriptor, &signature, 8, 0) == 8, signature == ImageFormat.pngSignature else { return false }
        var header = [UInt8](repeating: 0, count: 8)
        let found = APNGFile.firstControlChunk { offset in
            guard pread(descriptor, &header, 8, off_t(offset)) == 8 else { return nil }
            return (header.bigEndianUInt32(at: 0), header.bigEndianUInt32(at: 4))
        }
        return found == .idat
    }
}
