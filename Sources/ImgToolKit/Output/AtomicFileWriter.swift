#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that it appears whole or not at all.
///
/// The bytes go to a temporary file in the destination's folder (`.NAME.XXXXXX` from `mkstemp`),
/// which is renamed over the destination only after every write succeeded; on any error, or
/// cancellation, the temporary file is removed and the destination is untouched. A process killed
/// in the middle leaves the old file (or none) in place, never a partial one. This mirrors
/// swift-nio's `OpenOptions.NewFile.transactionalCreation`.
///
/// A stop signal closes the ``OutputGate``: from then on nothing is moved into place, and every
/// temporary file still open is removed at once.
///
/// A destination that exists and is a character device or a FIFO (`/dev/null`, `/dev/stdout`, a
/// named pipe) is written in place, never renamed over, whatever `existing` says: replacing it
/// would turn `/dev/null` into a regular file. Write errors there (`ENOSPC` from `/dev/full`) are
/// reported as any other. A block device, a socket or a folder is refused before anything is
/// written.
public enum AtomicFileWriter {
    /// Whether an existing destination may be replaced.
    public enum ExistingFile: Sendable {
        /// Fail with ``ImgToolError/Code/writeFailed`` when the destination exists (checked
        /// atomically: the file is linked into place with `link`, which never replaces).
        case fail
        /// Replace it atomically with `rename`.
        case replace
    }

    /// Creates `path` with the bytes `body` writes to the file descriptor it is given.
    /// - Parameters:
    ///   - path: the destination.
    ///   - existing: what to do when `path` already exists.
    ///   - gate: the gate the file is committed through (``OutputGate/shared`` by default).
    ///   - body: writes the content; the descriptor is closed afterwards.
    /// - Throws: ``ImgToolError`` naming `path`: `writeFailed` (with errno's text), `cancelled`
    ///   when `gate` is closed before the file is in place, or whatever `body` throws.
    public static func write(
        to path: String, existing: ExistingFile = .replace, gate: OutputGate = .shared,
        _ body: (Int32) throws(ImgToolError) -> Void
    ) throws(ImgToolError) {
        let file = try PendingFile(path, gate: gate)
        do {
            try body(file.descriptor)
        } catch {
            file.discard()
            throw error.naming(path)
        }
        try file.commit(existing)
    }

    /// Creates `path` with the bytes the asynchronous `body` writes to the file descriptor it
    /// is given, as the synchronous `write(to:existing:_:)` does; a cancelled `body` leaves
    /// nothing behind either.
    /// - Parameters:
    ///   - path: the destination.
    ///   - existing: what to do when `path` already exists.
    ///   - gate: the gate the file is committed through (``OutputGate/shared`` by default).
    ///   - body: writes the content; the descriptor is closed afterwards.
    /// - Throws: ``ImgToolError`` naming `path`: `writeFailed` (with errno's text), `cancelled`
    ///   when `gate` is closed before the file is in place, or whatever `body` throws.
    public static func write(
        to path: String, existing: ExistingFile = .replace, gate: OutputGate = .shared,
        _ body: (Int32) async throws(ImgToolError) -> Void
    ) async throws(ImgToolError) {
        let file = try PendingFile(path, gate: gate)
        do {
            try await body(file.descriptor)
        } catch {
            file.discard()
            throw error.naming(path)
        }
        try file.commit(existing)
    }

    /// What kind of existing file `path` names, following symbolic links: `nil` when nothing is
    /// there (or it cannot be seen), else the `S_IFMT` bits of its mode.
    static func existingKind(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// Whether a file of `kind` (`S_IFMT` bits) is written in place rather than replaced.
    static func isWrittenInPlace(_ kind: mode_t) -> Bool { kind == S_IFCHR || kind == S_IFIFO }

    /// Why a file of `kind` cannot be written at all, or `nil` when it can.
    static func refusal(_ kind: mode_t) -> String? {
        switch kind {
        case S_IFDIR: "is a folder; name a file"
        case S_IFBLK: "is a block device; imgtool writes files, character devices and FIFOs"
        case S_IFSOCK: "is a socket; imgtool writes files, character devices and FIFOs"
        default: nil
        }
    }

    /// A temporary file beside the destination, until it is committed or discarded; or the
    /// destination itself when it is a character device or a FIFO (``temporary`` is `nil`).
    private struct PendingFile {
        let path: String
        let temporary: String?
        let descriptor: Int32
        let gate: OutputGate
        /// The temporary file's registration with ``gate``.
        var token: Int?

        /// Creates `.NAME.XXXXXX` in the destination's folder, or opens a device or FIFO
        /// destination for writing in place.
        init(_ path: String, gate: OutputGate) throws(ImgToolError) {
            self.gate = gate
            if let kind = AtomicFileWriter.existingKind(path) {
                if let refusal = AtomicFileWriter.refusal(kind) {
                    throw ImgToolError(.writeFailed, refusal, input: path)
                }
                if AtomicFileWriter.isWrittenInPlace(kind) {
                    let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
                    guard fd >= 0 else {
                        throw ImgToolError(
                            .writeFailed, "cannot open it for writing", input: path, cause: systemErrorText(errno))
                    }
                    self.path = path
                    descriptor = fd
                    temporary = nil
                    token = nil
                    return
                }
            }
            let (folder, name) = AtomicFileWriter.split(path)
            var template = Array("\(folder)/.\(name).XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress.unsafelyUnwrapped) }
            guard fd >= 0 else {
                throw ImgToolError(
                    .writeFailed, "cannot create a temporary file in \(folder)", input: path,
                    cause: systemErrorText(errno))
            }
            let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress.unsafelyUnwrapped) }
            guard let token = gate.register(temporary) else {
                close(fd)
                unlink(temporary)
                throw ImgToolError(.cancelled, "stopped before writing", input: path)
            }
            self.path = path
            self.descriptor = fd
            self.temporary = temporary
            self.token = token
        }

        /// Closes and removes the temporary file (a device or FIFO is only closed).
        func discard() {
            close(descriptor)
            if let temporary { unlink(temporary) }
            if let token { gate.unregister(token) }
        }

        /// Closes the temporary file and moves it into place; on failure it is removed. A
        /// device or FIFO written in place is closed, its error reported.
        func commit(_ existing: ExistingFile) throws(ImgToolError) {
            guard let temporary else {
                if close(descriptor) != 0 {
                    throw ImgToolError(.writeFailed, "closing it failed", input: path, cause: systemErrorText(errno))
                }
                return
            }
            var committed = false
            defer {
                if !committed {
                    unlink(temporary)
                    if let token { gate.unregister(token) }
                }
            }
            // mkstemp creates 0600; give the file the mode a plain create would have.
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
            if close(descriptor) != 0 {
                throw ImgToolError(
                    .writeFailed, "closing the temporary file failed", input: path, cause: systemErrorText(errno))
            }
            // Moved into place only while the output gate is open (a stop signal closes it).
            var failure: Int32 = 0
            let open = gate.commit(token ?? 0) {
                switch existing {
                case .replace:
                    if rename(temporary, path) != 0 { failure = errno }
                case .fail:
                    if link(temporary, path) == 0 { unlink(temporary) } else { failure = errno }
                }
            }
            guard open else {
                throw ImgToolError(.cancelled, "stopped before the new file was moved into place", input: path)
            }
            if failure != 0 {
                let exists = existing == .fail && failure == EEXIST
                throw ImgToolError(
                    .writeFailed,
                    exists ? "already exists; pass --force to replace it" : "cannot move the new file into place",
                    input: path, cause: exists ? nil : systemErrorText(failure))
            }
            committed = true
        }
    }

    /// Splits a path into its folder ("." when none) and last component.
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
