import ArgumentParser
import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// `imgtool frames FILE -o DIR`: every composited frame as a PNG file.
struct FramesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Write every frame of an image as a PNG file (frame-0000.png, ...).",
        discussion: """
            Frames are composited as a player shows them. DIR is created when missing; when the \
            input is rejected, or SIGINT, SIGTERM or SIGHUP stops the command (exit status \
            128+N), the frames written so far are removed and no empty DIR is left behind.
            """
    )

    @Argument(help: "The image file (PNG, APNG, GIF).")
    var file: String

    @Option(name: [.short, .customLong("output")], help: "The folder to write frames into.")
    var output: String

    @Option(help: "Sample depth of the written PNG files: 8, or 16 to keep 16-bit samples.")
    var depth: Int = 8

    @Option(help: "Only these frames: N, A..B (inclusive), A.. or ..B.")
    var range: FrameRange?

    @Option(help: "zlib compression level of the written files, 0-9 (default: chosen per image).")
    var level: Int?

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        guard depth == 8 || depth == 16 else { throw ValidationError("--depth must be 8 or 16, not \(depth)") }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
    }

    func run() async throws {
        let command = self
        let written = try await StopSignals.run { () async throws(ImgToolError) in try await command.writeFrames() }
        Console.error("wrote \(written) frame\(written == 1 ? "" : "s") to \(output)")
    }

    /// Most frames being encoded at once while the next ones decode: a bounded queue, so memory
    /// stays at a few canvases however long the animation is.
    static let encodersInFlight = 2

    /// Decodes frames in order in this task and encodes each one in a child task, so decoding and
    /// PNG encoding overlap on separate cores. On any failure every file this run wrote is removed
    /// (and the folder, when this run created it).
    func writeFrames() async throws(ImgToolError) -> Int {
        let source = try ImageSource(contentsOf: file, limits: limits.limits)
        let selected = try (range ?? FrameRange(lower: nil, upper: nil)).resolved(frameCount: source.info.frameCount)
        let createdFolder = try OutputFolder.create(output)
        let encoder = PNGEncoder(compressionLevel: level)
        let outputFolder = output
        let requestedDepth: SampleDepth? = depth == 16 ? nil : .eight

        let (written, failure) = await withTaskGroup(of: Result<String, ImgToolError>.self) { group in
            var written: [String] = []
            var failure: ImgToolError?
            var inFlight = 0
            func collect(_ result: Result<String, ImgToolError>?) {
                inFlight -= 1
                switch result {
                case .success(let path): written.append(path)
                case .failure(let error): failure = failure ?? error
                case nil: break
                }
            }
            do throws(ImgToolError) {
                let reader = try source.makeFrameReader(depth: requestedDepth)
                while failure == nil, let frame = try reader.nextFrame() {
                    if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled after frame \(frame.index)") }
                    if frame.index > selected.upperBound { break }
                    guard selected.contains(frame.index) else { continue }
                    if inFlight == Self.encodersInFlight { collect(await group.next()) }
                    let path = "\(outputFolder)/frame-\(Self.padded(frame.index)).png"
                    group.addTask {
                        do throws(ImgToolError) {
                            try AtomicFileWriter.write(to: path) { (fd) throws(ImgToolError) in
                                try encoder.write(frame.image, toFileDescriptor: fd)
                            }
                            return .success(path)
                        } catch {
                            return .failure(error)
                        }
                    }
                    inFlight += 1
                }
            } catch {
                failure = failure ?? error
            }
            while inFlight > 0 { collect(await group.next()) }
            return (written, failure)
        }
        if let failure {
            for path in written { unlink(path) }
            if createdFolder { rmdir(output) }
            throw failure
        }
        if !source.info.isComplete {
            for warning in source.info.warnings { Console.error("warning: \(file): \(warning)") }
        }
        return written.count
    }

    static func padded(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// A frame selection such as `3`, `10..20`, `5..` or `..4` (inclusive).
struct FrameRange: ExpressibleByArgument {
    var lower: Int?
    var upper: Int?

    init(lower: Int?, upper: Int?) {
        self.lower = lower
        self.upper = upper
    }

    init?(argument: String) {
        if let single = Int(argument), single >= 0 {
            self.init(lower: single, upper: single)
            return
        }
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].isEmpty else { return nil }
        let lower = parts[0].isEmpty ? nil : Int(parts[0])
        let upper = parts[2].isEmpty ? nil : Int(parts[2])
        if !parts[0].isEmpty && lower == nil || !parts[2].isEmpty && upper == nil { return nil }
        if let lower, let upper, lower > upper { return nil }
        if (lower ?? 0) < 0 || (upper ?? 0) < 0 { return nil }
        self.init(lower: lower, upper: upper)
    }

    func resolved(frameCount: Int) throws(ImgToolError) -> ClosedRange<Int> {
        let first = lower ?? 0
        let last = min(upper ?? frameCount - 1, frameCount - 1)
        guard first < frameCount, first <= last else {
            throw ImgToolError(
                .invalidArgument,
                "--range selects no frame: the image has \(frameCount) frame\(frameCount == 1 ? "" : "s")")
        }
        return first...last
    }
}

/// Creates the output folder, remembering whether it had to, so a failed run can remove it.
enum OutputFolder {
    static func create(_ path: String) throws(ImgToolError) -> Bool {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw ImgToolError(.writeFailed, "exists and is not a folder", input: path)
            }
            return false
        }
        guard mkdir(path, 0o777) == 0 else {
            throw ImgToolError(
                .writeFailed, "cannot create the folder", input: path, cause: String(cString: strerror(errno)))
        }
        return true
    }
}
