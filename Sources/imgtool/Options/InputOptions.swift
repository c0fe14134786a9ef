import ArgumentParser
import Foundation
import ImgToolKit

/// How every command that reads images reads them: decoding limits, the byte limit, the download
/// timeout and orientation. Inputs are paths, `file://`, `http(s)://` URLs or `-` (standard input).
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("max-pixels"), help: "Refuse images or frames with more pixels than this.")
    var maxPixels: Int = DecodingLimits.default.maxPixels

    @Option(name: .customLong("max-frames"), help: "Refuse animations with more frames than this.")
    var maxFrames: Int = DecodingLimits.default.maxFrames

    @Option(
        name: .customLong("max-total-pixels"),
        help: "Refuse animations that would compose more pixels than this in all (frames x canvas).")
    var maxTotalPixels: Int = DecodingLimits.default.maxTotalPixels

    @Option(help: "Largest input accepted, in bytes (files, standard input and downloads).")
    var maxBytes: Int = ImageInput.defaultMaxBytes

    @Option(help: "Seconds a download may take in all, from connecting to its last byte (at most 86400).")
    var timeout: Double = 30

    @Flag(help: "Keep pixels as stored instead of turning photos upright by their EXIF orientation (JPEG).")
    var noAutoOrient = false

    @Option(help: FailOnArgument.help)
    var failOn: DecodingOptions.FailOn = .none

    func validate() throws {
        guard maxPixels > 0, maxFrames > 0, maxTotalPixels > 0 else {
            throw ValidationError("limits must be positive")
        }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard timeout.isFinite, timeout > 0, timeout <= 86400 else {
            throw ValidationError("--timeout \(timeout): expected a number of seconds above 0, at most 86400 (a day)")
        }
    }

    /// The decoding limits.
    var limits: DecodingLimits {
        DecodingLimits(maxPixels: maxPixels, maxFrames: maxFrames, maxTotalPixels: maxTotalPixels)
    }

    /// Orientation and `--fail-on` (no shrink-on-load: commands that scale ask for it themselves).
    var decoding: DecodingOptions {
        DecodingOptions(autoOrient: !noAutoOrient, failOn: failOn)
    }

    /// The fetcher for http(s) inputs, with the byte limit and the timeout.
    var fetcher: HTTPFetcher {
        HTTPFetcher(maxBytes: maxBytes, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
    }

    /// Loader options with these limits.
    func loaderOptions(keepGoing: Bool = false, cache: LoadedImageCache? = nil) -> ImageLoader.Options {
        ImageLoader.Options(
            keepGoing: keepGoing, limits: limits, maxBytes: maxBytes, decoding: decoding, cache: cache)
    }

    /// A loader for inputs an operation names (overlays), through the context's fetcher and cache.
    func loader(in context: CommandContext) -> ImageLoader {
        ImageLoader(fetcher: context.fetcher ?? fetcher, options: loaderOptions(cache: context.cache))
    }

    /// Parses what the user typed; loads libcurl first when an input is an http(s) URL.
    /// - Throws: ``ImgToolError`` naming the input as typed.
    static func parse(_ texts: [String]) throws(ImgToolError) -> [ImageInput] {
        let inputs = try texts.map { (text) throws(ImgToolError) in try ImageInput(text) }
        if let remote = inputs.first(where: \.isRemote) { try CurlLibrary.load(toFetch: remote.name) }
        return inputs
    }

    /// Reads, receives or fetches one input and opens it (no pixels decoded), off the main actor.
    /// - Throws: ``ImgToolError`` naming the input as typed.
    func open(_ text: String, in context: CommandContext = .standalone) async throws(ImgToolError) -> ImageSource {
        let input = try ImageInput(text)
        if input.isRemote { try CurlLibrary.load(toFetch: input.name) }
        return try await open(input, in: context)
    }

    /// Opens a parsed input, through the context's fetcher when it has one.
    /// - Throws: ``ImgToolError`` naming the input as typed.
    func open(_ input: ImageInput, in context: CommandContext = .standalone) async throws(ImgToolError)
        -> ImageSource
    {
        try await input.open(
            limits: limits, decoding: decoding, maxBytes: maxBytes, fetcher: context.fetcher ?? fetcher)
    }
}

extension ImageInput {
    /// Whether the input is fetched over http(s).
    var isRemote: Bool {
        if case .remote = location { return true }
        return false
    }
}
