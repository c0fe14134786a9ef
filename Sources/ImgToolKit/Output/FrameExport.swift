#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes composited frames of an image as one file each (`frame-0000.png`, ...) into a folder,
/// all or nothing: on any failure or cancellation every file this export wrote is removed, and
/// the folder too when the export created it.
///
/// Frames are decoded in order in the calling task and encoded in child tasks, at most
/// ``encodersInFlight`` at once (``withOrderedWindow(width:produce:work:consume:discard:)``), so
/// decoding and encoding overlap on separate cores while memory stays at a few canvases however
/// long the animation is. Each file is written atomically.
public struct FrameExport: Sendable {
    /// The folder; created when missing.
    public var folder: String
    /// Which frames, by index; `nil` (the default) for all.
    public var selection: FrameSelection?
    /// The sample depth decoded (16 keeps 16-bit samples for a codec that stores them); `nil`
    /// keeps the file's. Default 8.
    public var depth: SampleDepth?
    /// The codec each frame is written with (stills). Default ``PNGCodec``.
    public var codec: any ImageCodec
    /// The codec's options.
    public var options: ImageWriteOptions
    /// Whether existing frame files in ``folder`` are replaced (`--force`). Default `false`: the
    /// export refuses before writing anything when any file it would write exists.
    public var replacesExisting: Bool

    /// Most frames being encoded at once while the next ones decode.
    public static let encodersInFlight = 2

    /// Creates an export; every parameter but `folder` has the documented default.
    public init(
        folder: String, selection: FrameSelection? = nil, depth: SampleDepth? = .eight,
        codec: any ImageCodec = PNGCodec(), options: ImageWriteOptions = ImageWriteOptions(),
        replacesExisting: Bool = false
    ) {
        self.folder = folder
        self.selection = selection
        self.depth = depth
        self.codec = codec
        self.options = options
        self.replacesExisting = replacesExisting
    }

    /// The file name of frame `index`: `frame-` and at least four digits, with the codec's
    /// first extension.
    public func fileName(ofFrame index: Int) -> String {
        let digits = String(index)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return "frame-\(padded).\(codec.extensions.first ?? codec.format.rawValue)"
    }

    /// Writes the selected frames of `source`.
    /// - Returns: the paths written, in frame order.
    /// - Throws: ``ImgToolError``: `invalidArgument` when the selection names no frame of the
    ///   image; `writeFailed` naming the folder or a file (the first frame file that exists,
    ///   before anything is written, unless ``replacesExisting``); a decoding error naming the
    ///   input; `cancelled`. Nothing is left behind.
    @concurrent
    public func write(_ source: any FrameSource) async throws(ImgToolError) -> [String] {
        let selected = try (selection ?? FrameSelection()).resolved(frameCount: source.info.frameCount)
        if !replacesExisting, let existing = firstExistingFile(in: selected) {
            throw ImgToolError(.writeFailed, "already exists; pass --force to replace it", input: existing)
        }
        let createdFolder = try Self.createFolder(folder)
        let reader: any FrameReader
        do throws(ImgToolError) {
            reader = try source.makeFrameReader(depth: depth)
        } catch {
            if createdFolder { rmdir(folder) }
            throw error
        }
        var written: [String] = []
        // Each frame written stays registered with the output gate until the whole export is
        // done, so that a stop signal takes back the frames so far even if the process exits
        // before this function unwinds.
        var registrations: [Int] = []
        defer { for token in registrations { OutputGate.shared.unregister(token) } }
        do throws(ImgToolError) {
            try await withOrderedWindow(
                width: Self.encodersInFlight,
                produce: { () throws(ImgToolError) -> (ImageOutput, Frame)? in
                    while let frame = try reader.nextFrame(), frame.index <= selected.upperBound {
                        if Task.isCancelled {
                            throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)")
                        }
                        guard selected.contains(frame.index) else { continue }
                        let path = "\(folder)/\(fileName(ofFrame: frame.index))"
                        return (ImageOutput(path: path, codec: codec, replacesExisting: replacesExisting), frame)
                    }
                    return nil
                },
                work: { [options, info = source.info] (job) async throws(ImgToolError) -> String in
                    let (output, frame) = job
                    try await output.write(StillImageSource(frame.image, describedBy: info), options: options)
                    return output.path
                },
                consume: { path throws(ImgToolError) in
                    written.append(path)
                    guard let token = OutputGate.shared.register(path) else {
                        throw ImgToolError(.cancelled, "stopped after writing \(path)")
                    }
                    registrations.append(token)
                },
                discard: { unlink($0) })
        } catch {
            for path in written { unlink(path) }
            if createdFolder { rmdir(folder) }
            throw error
        }
        return written
    }

    /// The path of the first frame file in `indices` that exists in ``folder`` (any kind of file,
    /// a dangling link included), or `nil`; `nil` too when the folder does not exist.
    func firstExistingFile(in indices: ClosedRange<Int>) -> String? {
        var status = stat()
        guard stat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return nil }
        for index in indices {
            let path = "\(folder)/\(fileName(ofFrame: index))"
            if lstat(path, &status) == 0 { return path }
        }
        return nil
    }

    /// Creates `path` when missing; returns whether it did, so a failed export can remove it.
    static func createFolder(_ path: String) throws(ImgToolError) -> Bool {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw ImgToolError(.writeFailed, "exists and is not a folder", input: path)
            }
            return false
        }
        guard mkdir(path, 0o777) == 0 else {
            throw ImgToolError(.writeFailed, "cannot create the folder", input: path, cause: systemErrorText(errno))
        }
        return true
    }
}
