import Foundation

/// What a player opens when it starts: an input to read or fetch, or a source already opened.
enum PlaybackOrigin: Sendable {
    /// An input, opened with ``ImageInput/open(limits:decoding:maxBytes:fetcher:registry:progress:)``.
    case input(ImageInput, fetcher: (any DataFetching)?)
    /// A `file:` or `http(s):` URL, made an ``ImageInput`` when opened (so a bad scheme is a
    /// playback status, not a failure to create the player).
    case url(URL, fetcher: (any DataFetching)?)
    /// An image already opened.
    case source(any FrameSource)

    /// The source to play, read or fetched and parsed off the main actor.
    /// - Throws: ``ImgToolError`` naming the input.
    func open(limits: DecodingLimits) async throws(ImgToolError) -> any FrameSource {
        switch self {
        case .input(let input, let fetcher): try await input.open(limits: limits, fetcher: fetcher)
        case .url(let url, let fetcher): try await ImageInput(url: url).open(limits: limits, fetcher: fetcher)
        case .source(let source): source
        }
    }
}
