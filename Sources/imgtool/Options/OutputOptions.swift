import ArgumentParser
import ImgToolKit

/// How every command that writes images writes them: the format (from the output's extension or
/// `--format`), replacing, and the format options, each read by the formats it applies to.
struct OutputOptions: ParsableArguments {
    @Option(
        help: "The output format (png, apng, gif, ...: see imgtool formats). (default: from the output's extension)")
    var format: String?

    @Flag(help: "Replace an existing output file.")
    var force = false

    @Option(help: "How many times an animation plays; 0 plays forever. (default: as the input)")
    var loops: Int?

    @Option(help: "Sample depth written (PNG): 8, or 16 to keep 16-bit samples. (default: as the input)")
    var depth: Int?

    @Option(
        help:
            "Compression effort: zlib level for PNG, 0-9 (default: chosen per frame); libwebp method for WebP, 0-6, 7-9 meaning 6 (default: 4; 0 is fastest); libaom speed 10 - level for AVIF (default: 4, speed 6); libvpx cpu-used 9 - level for WebM (default: 4, cpu-used 5); x264 preset for MP4, 0 ultrafast to 9 placebo (default: 5, medium; AV1 MP4: libaom cpu-used 10 - level, real-time below 4, default 4, cpu-used 6)."
    )
    var level: Int?

    @Option(
        help:
            "Lossy quality, 1-100 (JPEG, WebP, AVIF, JPEG XL, WebM: VP9 cq-level (100 - quality) x 63 / 100, default 60; MP4: x264 crf (100 - quality) x 51 / 100, default 55, or for AV1 MP4 libaom cq-level as WebM, default 60); given, WebP, AVIF and JPEG XL are written lossy unless --lossless. (default: the format's own)"
    )
    var quality: Int?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Lossless compression (WebP, AVIF, JPEG XL; WebM only when given); wins over --quality, which lossless WebP reads as effort. (default: lossy when --quality is given, else lossless when the input is)"
    )
    var lossless: Bool?

    @Flag(help: "Progressive output (JPEG).")
    var progressive = false

    @Option(help: "JPEG chroma subsampling: 444 (full), 422 or 420 (half). (default: 420 below quality 90, else 444)")
    var chroma: JPEGEncoder.ChromaSubsampling?

    @Option(help: "Most colours per palette, 2-256 (GIF).")
    var colors: Int = 256

    @Option(
        help:
            "Lossy GIF compression, 0-200 (gifsicle's scale: 20 light, 80 typical, 200 heavy): smaller files, pixels within an error N sets. (default: 0, exact)"
    )
    var lossy: Int = 0

    @Option(help: "How colours a palette cannot hold are approximated (GIF).")
    var dither: ImageWriteOptions.Dither = .ordered

    @Option(help: "Alpha at or above this is opaque, below it transparent, 0-255 (GIF).")
    var alphaThreshold: Int = 128

    @Option(
        help:
            "Flatten onto this colour (\(RGBAColor.acceptedForms)); formats without transparency use white. (default: none)",
        transform: RGBAColor.parsingArgument)
    var background: RGBAColor?

    @Option(
        help: ArgumentHelp(
            "The output's colour profile: keep (the pixels as they are, with the input's profile; GIF: converted to sRGB), srgb (converted to sRGB), or an .icc file to convert to and embed.",
            valueName: "keep|srgb|FILE.icc"),
        transform: { try ProfileArgument(parsing: $0) })
    var profile: ProfileArgument = .keep

    @Flag(help: "Write no colour profile and no metadata, converting to sRGB first so colours look the same.")
    var strip = false

    @Flag(help: "Keep the input's EXIF and XMP (orientation set to 1 once applied, no thumbnail, no GPS position).")
    var keepMetadata = false

    @Flag(help: "With the metadata, keep the GPS position too (implies --keep-metadata).")
    var keepGps = false

    func validate() throws {
        if strip && (keepMetadata || keepGps) {
            throw ValidationError("--strip drops all metadata; it cannot be used with --keep-metadata or --keep-gps")
        }
        if strip, profile != .keep {
            throw ValidationError("--strip converts to sRGB and writes no profile; it cannot be used with --profile")
        }
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 (forever) or more, not \(loops)") }
        if let depth, depth != 8 && depth != 16 { throw ValidationError("--depth must be 8 or 16, not \(depth)") }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be 1-100, not \(quality)")
        }
        guard (2...256).contains(colors) else { throw ValidationError("--colors must be 2-256, not \(colors)") }
        guard (0...GIFLossy.maximum).contains(lossy) else {
            throw ValidationError("--lossy must be 0-\(GIFLossy.maximum), not \(lossy)")
        }
        guard (0...255).contains(alphaThreshold) else {
            throw ValidationError("--alpha-threshold must be 0-255, not \(alphaThreshold)")
        }
    }

    /// The writer for `path`.
    /// - Throws: `ValidationError` (a usage error) when no format can be written there; the
    ///   message lists the formats that can.
    func output(_ path: String, in context: CommandContext = .standalone) throws -> ImageOutput {
        do throws(ImgToolError) {
            return try ImageOutput(path: path, format: format, replacesExisting: force || context.replacesOutputs)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The format options.
    var writeOptions: ImageWriteOptions {
        var options = ImageWriteOptions(
            plays: loops, depth: depth.map { $0 == 16 ? .sixteen : .eight }, compressionLevel: level, quality: quality,
            lossless: lossless, progressive: progressive, colors: colors, dither: dither,
            alphaThreshold: alphaThreshold, background: background, profile: profileChoice,
            metadata: keepGps ? .keepWithGPS : keepMetadata ? .keep : .none)
        options.chroma = chroma
        options.lossy = lossy
        return options
    }

    /// `--profile` and `--strip` as the library takes them.
    private var profileChoice: ImageWriteOptions.ProfileChoice {
        if strip { return .strip }
        switch profile {
        case .keep: return .keep
        case .sRGB: return .sRGB
        case .file(_, let loaded): return .convert(loaded)
        }
    }

    /// Refuses to write an animation with a codec that writes stills only (a usage error naming
    /// the output and the formats that can hold it, found once the input is read: no usage
    /// lines), and prints the writer's notes (flattened alpha, clamped delays) and the warnings
    /// about `input`'s metadata (an XMP packet that cannot be parsed is dropped).
    /// - Throws: ``UsageErrorAfterReading``.
    func prepare(
        _ source: any FrameSource, for output: ImageOutput, input: String, in context: CommandContext = .standalone
    ) throws {
        if source.info.isAnimated && !output.codec.capabilities.contains(.writeAnimation) {
            let animated = CodecRegistry.standard.writers.filter { $0.capabilities.contains(.writeAnimation) }
                .map(\.format.rawValue)
            let list =
                animated.count > 1
                ? animated.dropLast().joined(separator: ", ") + " or " + animated[animated.count - 1]
                : animated.joined()
            throw UsageErrorAfterReading(
                error: ImgToolError(
                    .invalidArgument,
                    "\(output.codec.format.rawValue.uppercased()) holds one image, and the result has \(source.info.frameCount) frames; write \(list) instead",
                    input: output.path))
        }
        for warning in output.metadataWarnings(for: source, options: writeOptions) {
            context.note("warning: \(input): \(warning)")
        }
        for note in output.notes(for: source, options: writeOptions) { context.note("note: \(output.path): \(note)") }
    }

    /// Writes `source` to `output`, off the main actor, with a `writing frame N of M` line on a
    /// terminal when it takes a while.
    /// - Throws: ``ImgToolError`` naming the input or the output.
    func write(
        _ source: any FrameSource, to output: ImageOutput, verb: String, in context: CommandContext = .standalone
    ) async throws(ImgToolError) {
        let options = writeOptions
        guard context.showsProgress else {
            try await output.write(source, options: options)
            return
        }
        try await WriteProgressLine.showing(verb, frames: source.info.frameCount) {
            (progress) async throws(ImgToolError) in
            try await output.write(source, options: options, progress: progress)
        }
    }
}

extension OutputOptions {
    /// `convert IN OUT` and `convert IN -o OUT` both name the output; exactly one must.
    /// - Throws: `ValidationError` naming what is missing or doubled.
    static func checkOne(argument: String?, option: String?, command: String) throws {
        switch (argument, option) {
        case (nil, nil): throw ValidationError("\(command) needs an output: OUTPUT right after INPUT, or -o OUTPUT")
        case (let positional?, let named?):
            throw ValidationError("two outputs: \(positional) and -o \(named); name one")
        default: return
        }
    }
}

extension ImageWriteOptions.Dither: ExpressibleByArgument {}
extension JPEGEncoder.ChromaSubsampling: ExpressibleByArgument {}

extension RGBAColor: ExpressibleByArgument {
    /// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` or a colour name.
    public init?(argument: String) {
        self.init(parsing: argument)
    }

    /// What ``RGBAColor/init(parsing:)`` takes, for help and errors.
    static let acceptedForms =
        "#rgb, #rrggbb or #rrggbbaa (the # optional), or white, black, red, green, blue, gray or transparent"

    /// `--background`'s value, or an error listing the forms taken.
    /// - Throws: `ValidationError`.
    @Sendable static func parsingArgument(_ text: String) throws -> RGBAColor {
        guard let color = RGBAColor(parsing: text) else {
            throw ValidationError("expected \(acceptedForms)")
        }
        return color
    }
}
