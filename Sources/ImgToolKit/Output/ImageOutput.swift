#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an image is written: a path (or `-` for standard output) and the codec that writes it.
///
/// The codec follows the output's extension, or a format name (`--format`, needed for `-`), as
/// the ``CodecRegistry`` resolves it. ``check(against:)`` runs before any work: an output must
/// not be one of the inputs and must not exist unless ``replacesExisting``; standard output must
/// not be a terminal. ``write(_:options:progress:)`` then writes atomically (``AtomicFileWriter``):
/// the file appears whole or not at all.
public struct ImageOutput: Sendable {
    /// The path as the user gave it, or `-` for standard output.
    public let path: String
    /// The codec that writes it.
    public let codec: any ImageCodec
    /// Whether an existing file at ``path`` is replaced (`--force`). Default `false`.
    public var replacesExisting: Bool

    /// Resolves the writer for `path`.
    /// - Parameters:
    ///   - path: the output, or `-` for standard output.
    ///   - format: a format name (`gif`, `png`) that overrides the extension. Standard output
    ///     (`-`) without one is PNG.
    ///   - replacesExisting: whether an existing file may be replaced. Default `false`.
    ///   - registry: the codecs asked. Default ``CodecRegistry/standard``.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `path` when no codec writes that
    ///   extension or format (the message lists the formats that can be written).
    public init(
        path: String, format: String? = nil, replacesExisting: Bool = false, registry: CodecRegistry = .standard
    ) throws(ImgToolError) {
        self.path = path
        self.codec = try registry.writer(forOutput: path, format: format ?? (path == "-" ? "png" : nil))
        self.replacesExisting = replacesExisting
    }

    /// Writes `path` with `codec`, chosen by the caller.
    public init(path: String, codec: any ImageCodec, replacesExisting: Bool = false) {
        self.path = path
        self.codec = codec
        self.replacesExisting = replacesExisting
    }

    /// Whether this is standard output.
    public var isStandardOutput: Bool { path == "-" }

    /// Checks the output before any work is done.
    /// - Parameter inputs: the inputs of the command; the output must be none of them.
    /// - Throws: ``ImgToolError`` naming ``path``: `invalidArgument` when it resolves to an input
    ///   file (the same resolved path, or the same file through another link, even when replacing),
    ///   or is `-` while standard output is a terminal; `writeFailed` when it exists and
    ///   ``replacesExisting`` is off (a character device or a FIFO, written in place, needs no
    ///   replacing), or is a folder, a block device or a socket.
    public func check(against inputs: [ImageInput]) throws(ImgToolError) {
        if isStandardOutput {
            guard isatty(STDOUT_FILENO) == 0 else {
                throw ImgToolError(
                    .invalidArgument,
                    "refusing to write \(codec.format.rawValue.uppercased()) data to a terminal; redirect standard output or name an output file"
                )
            }
            return
        }
        var outputStatus = stat()
        let exists = stat(path, &outputStatus) == 0
        let resolvedOutput = Self.resolve(path)
        for input in inputs {
            guard case .file(let inputPath) = input.location else { continue }
            var inputStatus = stat()
            let sameFile =
                exists && stat(inputPath, &inputStatus) == 0 && inputStatus.st_dev == outputStatus.st_dev
                && inputStatus.st_ino == outputStatus.st_ino
            if sameFile || (resolvedOutput != nil && resolvedOutput == Self.resolve(inputPath)) {
                throw ImgToolError(
                    .invalidArgument, "is also an input (\(input.name)); choose another output", input: path)
            }
        }
        if exists {
            let kind = outputStatus.st_mode & S_IFMT
            if let refusal = AtomicFileWriter.refusal(kind) {
                throw ImgToolError(.writeFailed, refusal, input: path)
            }
            // A device or FIFO is written in place (AtomicFileWriter), never replaced: no --force.
            if !replacesExisting && !AtomicFileWriter.isWrittenInPlace(kind) {
                throw ImgToolError(.writeFailed, "already exists; pass --force to replace it", input: path)
            }
        }
    }

    /// Encodes every frame of `source` with ``codec`` into ``path`` (atomically) or onto standard
    /// output, streaming, off the caller's actor.
    /// - Parameters:
    ///   - source: the image; its frames are decoded as they are written.
    ///   - options: format options (each codec reads those that apply).
    ///   - progress: called with the number of frames written so far.
    /// - Throws: ``ImgToolError``: a decoding error naming its input, `writeFailed` naming
    ///   ``path`` (nothing is left behind), `invalidArgument` for options out of range,
    ///   `cancelled`.
    @concurrent
    public func write(
        _ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions(),
        progress: (@Sendable (Int) -> Void)? = nil
    ) async throws(ImgToolError) {
        let codec = self.codec
        let body = { (descriptor: Int32) async throws(ImgToolError) in
            var sink = ByteSink(fileDescriptor: descriptor)
            try await codec.write(source, into: &sink, options: options, progress: progress)
        }
        if isStandardOutput {
            try await body(STDOUT_FILENO)
        } else {
            try await AtomicFileWriter.write(to: path, existing: replacesExisting ? .replace : .fail, body)
        }
    }

    /// What writing `source` with ``codec`` leaves out of its metadata that the user should hear
    /// of (``ImageInfo/metadataWarnings(keeping:)``), unless the codec writes the source's
    /// metadata byte for byte (a JPEG recompressed into JPEG XL with every marker kept).
    public func metadataWarnings(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        if let noting = codec as? any MetadataNoting, noting.keepsMetadataAsIs(source, options: options) { return [] }
        return source.info.metadataWarnings(keeping: options.metadata)
    }

    /// Problems worth a note before writing `source` with ``codec``: transparency that the
    /// format cannot hold (it is flattened), metadata it cannot hold whole (a JPEG's EXIF past
    /// 64 KB is rebuilt without its largest parts, an ICC profile past 255 APP2 segments makes
    /// the pixels sRGB), a JPEG recompressed into JPEG XL with its ICC segments put in order,
    /// delays or plays past what the format holds (clamped, ``AnimationLimits``). One sentence
    /// each; empty when there is none.
    public func notes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        var notes: [String] = []
        if !codec.capabilities.contains(.writeAlpha), !source.isOpaque {
            let background = options.background ?? .white
            notes.append(
                "\(codec.format.rawValue.uppercased()) has no transparency: translucent pixels are flattened onto \(background)"
            )
        }
        if let noting = codec as? any MetadataNoting {
            notes += noting.metadataNotes(for: source, options: options)
        }
        if codec.capabilities.contains(.writeAnimation), source.info.isAnimated,
            let limits = AnimationLimits.limits(for: codec.format)
        {
            // The timeline the writer clamps: after folding (``WrittenTiming``), before clamping.
            let timeline = source.foldedForWriting(as: codec.format)?.info ?? source.info
            let name =
                switch codec.format {
                case .png, .apng: "APNG"
                case .jxl: "JPEG XL"
                case .webp: "WebP"
                default: codec.format.rawValue.uppercased()
                }
            notes += limits.notes(for: timeline, plays: options.plays ?? source.info.plays, formatName: name)
        }
        return notes
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
