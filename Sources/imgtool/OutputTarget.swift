import ArgumentParser
import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// Checks an output path before any work: it must not be one of the inputs, and must not exist
/// unless replacing is allowed; `-` (standard output) must not be a terminal.
enum OutputTarget {
    /// - Throws: ``ImgToolError`` naming `path`: `invalidArgument` when it resolves to an input
    ///   file (same resolved path, or the same file through another link, even with `force`), or
    ///   is `-` while standard output is a terminal; `writeFailed` when it exists and `force` is
    ///   off, or is a folder.
    static func check(_ path: String, against inputs: [ImageInput], force: Bool) throws(ImgToolError) {
        if path == "-" {
            guard isatty(STDOUT_FILENO) == 0 else {
                throw ImgToolError(
                    .invalidArgument,
                    "refusing to write PNG data to a terminal; redirect standard output or name an output file")
            }
            return
        }
        var outputStatus = stat()
        let exists = stat(path, &outputStatus) == 0
        let resolvedOutput = resolve(path)
        for input in inputs {
            guard case .file(let inputPath) = input.location else { continue }
            var inputStatus = stat()
            let sameFile =
                exists && stat(inputPath, &inputStatus) == 0 && inputStatus.st_dev == outputStatus.st_dev
                && inputStatus.st_ino == outputStatus.st_ino
            if sameFile || (resolvedOutput != nil && resolvedOutput == resolve(inputPath)) {
                throw ImgToolError(
                    .invalidArgument, "is also an input (\(input.name)); choose another output", input: path)
            }
        }
        if exists {
            if (outputStatus.st_mode & S_IFMT) == S_IFDIR {
                throw ImgToolError(.writeFailed, "is a folder; name a file with -o", input: path)
            }
            if !force { throw ImgToolError(.writeFailed, "already exists; pass --force to replace it", input: path) }
        }
    }

    /// Runs `body` on the descriptor of a new file at `path`, which replaces an existing file
    /// (only with `force`) once `body` succeeded (``AtomicFileWriter``), or on standard output
    /// for `-`.
    static func write(
        to path: String, force: Bool, _ body: (Int32) async throws(ImgToolError) -> Void
    ) async throws(ImgToolError) {
        guard path != "-" else {
            try await body(STDOUT_FILENO)
            return
        }
        try await AtomicFileWriter.write(to: path, existing: force ? .replace : .fail, body)
    }

    /// Refuses an output named for a format imgtool does not write (it writes PNG and APNG only),
    /// rather than writing PNG data under a `.gif` or `.jpg` name.
    /// - Throws: `ValidationError` (a usage error, exit 64).
    static func checkFormat(of path: String) throws {
        let lowered = path.lowercased()
        for suffix in [".gif", ".jpg", ".jpeg", ".webp", ".avif", ".bmp", ".tif", ".tiff"]
        where lowered.hasSuffix(suffix) {
            throw ValidationError(
                "\(path): imgtool writes PNG and APNG only, not \(suffix.dropFirst().uppercased()); name the output .png"
            )
        }
    }

    /// The absolute path with symbolic links resolved; for a file that does not exist yet, its
    /// folder resolved plus its name. `nil` when the folder does not exist either.
    static func resolve(_ path: String) -> String? {
        if let full = realPath(path) { return full }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let resolvedFolder = realPath(folder.isEmpty ? "/" : folder) else { return nil }
        return resolvedFolder == "/" ? "/" + name : resolvedFolder + "/" + name
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
