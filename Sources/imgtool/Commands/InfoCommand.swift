import ArgumentParser
import Foundation
import ImgToolKit

/// `imgtool info FILE...`: what each file declares, as text or JSON lines.
struct InfoCommand: BatchableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, size, colour, frames, loop count and delays of images.",
        discussion: "With --json, prints one JSON object per file on its own line (fields in the README)."
    )

    @Argument(help: "Images: paths, file:// or http(s):// URLs, or - for standard input (see imgtool formats).")
    var files: [String]

    @Flag(help: "Print one JSON object per file.")
    var json = false

    @Flag(help: "Decode every frame, so that damage past the headers is found too.")
    var verify = false

    @Flag(help: "Decode every frame and print the SHA-256 of each composited frame as 8-bit RGBA (implies --verify).")
    var hash = false

    @OptionGroup var reading: InputOptions

    func validate() throws {
        guard files.filter({ $0 == "-" }).count <= 1 else {
            throw ValidationError("standard input (-) can be read only once")
        }
    }

    func run() async throws {
        var failed = false
        for file in files {
            do throws(ImgToolError) {
                let source = try await reading.open(file)
                let hashes = verify || hash ? try await Self.decodeAll(source, hashing: hash) : []
                if json {
                    Console.out(Self.json(for: source, file: file, hashes: hash ? hashes : nil).serialized)
                } else {
                    Console.out(Self.text(for: source.info, file: file))
                    for (index, digest) in hashes.enumerated() {
                        Console.out("  frame \(index) rgba8 sha256 \(digest)")
                    }
                }
                for warning in source.info.warnings { Console.error("warning: \(file): \(warning)") }
            } catch {
                // One JSON line per input, failed or not, so that the lines match the inputs.
                if json { Console.out(Self.json(for: error, file: file).serialized) }
                Console.error("error: \(error.commandLineDescription)")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    var inputNames: [String] { files }
    var outputPath: String? { nil }

    /// Reads every file; the outcome's data is one JSON object per file, as `--json` prints them
    /// (one file: the object; several: an array).
    /// - Throws: ``InfoFailure`` when a file fails, carrying every file's object (the failed
    ///   ones with their `error`) and the first error.
    func perform(in context: CommandContext) async throws -> CommandOutcome {
        var objects: [JSONValue] = []
        var firstError: ImgToolError?
        for file in files {
            do throws(ImgToolError) {
                let source = try await reading.open(file, in: context)
                let hashes = verify || hash ? try await Self.decodeAll(source, hashing: hash) : []
                objects.append(Self.json(for: source, file: file, hashes: hash ? hashes : nil))
                for warning in source.info.warnings { context.note("warning: \(file): \(warning)") }
            } catch {
                if error.code == .cancelled { throw error }
                objects.append(Self.json(for: error, file: file))
                firstError = firstError ?? error
            }
        }
        let data: JSONValue = objects.count == 1 ? objects[0] : .array(objects)
        if let firstError { throw InfoFailure(error: firstError, data: data) }
        return CommandOutcome(data: data)
    }

    /// An `info` job in a batch whose files did not all open: the objects of every file (a
    /// failed one has its `error`) and the first error.
    struct InfoFailure: Error, CustomStringConvertible {
        var error: ImgToolError
        var data: JSONValue
        var description: String { error.commandLineDescription }
    }

    /// Decodes every frame off the main actor; returns each frame's RGBA8 SHA-256 when `hashing`,
    /// else nothing.
    @concurrent
    static func decodeAll(_ source: ImageSource, hashing: Bool) async throws(ImgToolError) -> [String] {
        guard hashing else {
            try source.verifyDecodes()
            return []
        }
        var digests: [String] = []
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() {
            digests.append(frame.image.rgba8Digest())
        }
        return digests
    }

    /// The `--json` object of one file, with its size in bytes and its frame hashes when given.
    static func json(for source: ImageSource, file: String, hashes: [String]?) -> JSONValue {
        var object = json(for: source.info, file: file)
        if case .object(var members) = object {
            if let hashes { members["frames_rgba_sha256"] = .array(hashes.map(JSONValue.string)) }
            members["file_size"] = .optional(Self.fileSize(of: source, file: file))
            object = .object(members)
        }
        return object
    }

    /// The `--json` object of a file that failed: its name and the error.
    static func json(for error: ImgToolError, file: String) -> JSONValue {
        ["file": .string(file), "error": .string(error.commandLineDescription)]
    }

    /// The input's size in bytes: the bytes read, or the file's size when it was decoded from
    /// disk without reading it whole; `nil` when neither is known.
    static func fileSize(of source: ImageSource, file: String) -> Int? {
        if !source.data.isEmpty { return source.data.count }
        guard let input = try? ImageInput(file), case .file(let path) = input.location,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    static func json(for info: ImageInfo, file: String) -> JSONValue {
        let table: [JSONValue] = info.frames.map { frame in
            [
                "index": .int(frame.index), "delay_ms": .milliseconds(frame.delayMilliseconds),
                "x": .int(frame.region.x), "y": .int(frame.region.y),
                "width": .int(frame.region.width), "height": .int(frame.region.height),
                "disposal": .string(frame.disposal.rawValue), "blend": .string(frame.blend.rawValue),
            ]
        }
        return [
            "file": .string(file),
            "format": .string(info.format.rawValue),
            "width": .int(info.width),
            "height": .int(info.height),
            "bit_depth": .int(info.bitDepth),
            "color_type": .string(info.colorType.rawValue),
            "interlaced": .bool(info.isInterlaced),
            "frames": .int(info.frameCount),
            "loop_count": .optional(info.loopValue),
            "plays": .int(info.plays),
            "delays_ms": .array(info.frames.map { .milliseconds($0.delayMilliseconds) }),
            "duration_ms": .milliseconds(info.frames.reduce(0) { $0 + $1.delayMilliseconds }),
            "gamma": .bool(info.color.hasGamma),
            "srgb": .bool(info.color.hasSRGB),
            "iccp": .bool(info.color.hasICCProfile),
            "exif": info.hasEXIF ? exifJSON(info.exifSummary ?? EXIFSummary()) : .null,
            "xmp": .bool(info.xmp != nil),
            "xmp_problem": info.xmpParseProblem.map(JSONValue.string) ?? .null,
            "gps": info.gpsIsUnknown ? .null : .bool(info.hasGPS),
            "icc": info.color.profile.map { profile in
                .object([
                    "description": .string(profile.description),
                    "color_space": .string(profile.colorSpace == .other ? "other" : profile.colorSpace.rawValue),
                    "bytes": .int(profile.data.count),
                    "usable": .bool(profile.isUsable),
                ])
            } ?? .null,
            "compression": info.compression.map { .string($0.rawValue) } ?? .null,
            "orientation": .optional(info.exifOrientation),
            "orientation_applied": .bool(info.appliedOrientation != .up),
            "stored_width": .int(info.storedSize.width),
            "stored_height": .int(info.storedSize.height),
            "complete": .bool(info.isComplete),
            "warnings": .array(info.warnings.map(JSONValue.string)),
            "frame_table": .array(table),
        ]
    }

    static func text(for info: ImageInfo, file: String) -> String {
        let codec = CodecRegistry.standard.codec(named: info.format.rawValue)
        let formatName =
            codec.map { $0.displayName.contains(" ") ? info.format.rawValue.uppercased() : $0.displayName }
            ?? info.format.rawValue.uppercased()
        var parts = ["\(formatName) \(info.width)x\(info.height)"]
        parts.append("\(info.colorType.rawValue) \(info.bitDepth)-bit")
        if info.isInterlaced { parts.append("interlaced") }
        if let compression = info.compression { parts.append(compression.rawValue) }
        parts.append(info.frameCount == 1 ? "1 frame" : "\(info.frameCount) frames")
        if info.isAnimated {
            let plays = info.plays == 0 ? "loops forever" : info.plays == 1 ? "plays once" : "plays \(info.plays) times"
            parts.append(plays + (info.loopValue.map { " (loop value \($0))" } ?? " (no loop value)"))
            let total = info.frames.reduce(0) { $0 + $1.delayMilliseconds }
            parts.append("\(Self.format(total)) ms per play")
        }
        if let colour = info.color.summary { parts.append("colour " + colour) }
        var metadata: [String] = []
        if info.hasEXIF { metadata.append("EXIF") }
        if info.xmp != nil { metadata.append(info.xmpParseProblem == nil ? "XMP" : "XMP (cannot be parsed)") }
        if info.xmpExtension != nil { metadata.append("extended XMP") }
        if info.hasGPS { metadata.append("GPS position") }
        if info.gpsIsUnknown { metadata.append("GPS unknown") }
        if !metadata.isEmpty { parts.append("metadata " + metadata.joined(separator: " ")) }
        if let orientation = info.exifOrientation, info.exifOrientationIsInformational,
            info.appliedOrientation.rawValue != orientation
        {
            // HEIF, AVIF, JPEG XL: the container's rotation and mirror are shown, not the tag.
            let turned =
                info.appliedOrientation == .up ? "" : ", turned as orientation \(info.appliedOrientation.rawValue)"
            parts.append("EXIF orientation \(orientation) (not applied\(turned); stored \(info.storedSize))")
        } else if let orientation = info.exifOrientation {
            let applied = info.appliedOrientation != .up ? "applied" : "not applied"
            parts.append("EXIF orientation \(orientation) (\(applied); stored \(info.storedSize))")
        } else if info.appliedOrientation != .up {
            parts.append(
                "turned as orientation \(info.appliedOrientation.rawValue) (applied; stored \(info.storedSize))")
        } else if info.storedSize != PixelSize(width: info.width, height: info.height) {
            parts.append("stored \(info.storedSize)")
        }
        if !info.isComplete { parts.append("incomplete") }
        var lines = ["\(file): " + parts.joined(separator: ", ")]
        if let exif = info.exifSummary, let line = exifText(exif) { lines.append("  exif: " + line) }
        if let problem = info.xmpParseProblem { lines.append("  xmp: cannot be parsed as XML: " + problem) }
        if let problem = info.xmpExtensionProblem { lines.append("  extended xmp: " + problem) }
        if info.isAnimated {
            lines.append(
                "  delays (ms): " + info.frames.map { Self.format($0.delayMilliseconds) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ milliseconds: Double) -> String {
        let rounded = (milliseconds * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
