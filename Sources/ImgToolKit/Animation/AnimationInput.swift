import Foundation

/// Where an animation comes from: a URL (file or http(s)), bytes in memory, or a prepared source.
public enum AnimationInput: Sendable {
    /// A `file:` URL or an `http:`/`https:` URL.
    case url(URL)
    /// A whole file in memory; `name` is used in errors.
    case data([UInt8], name: String)
    /// An image already prepared (any ``FrameSource``, such as an ``ImageSource``).
    case source(any FrameSource, name: String)

    /// The name errors use: the path of a file URL, the text of any other URL, or the data's name.
    public var name: String {
        switch self {
        case .url(let url): url.isFileURL ? url.path : url.absoluteString
        case .data(_, let name), .source(_, let name): name
        }
    }

    /// Reads or fetches the bytes and parses the image's structure (no pixels), off the main actor.
    /// - Throws: ``ImgToolError`` naming the input: `notFound`, `unreadable`, `network`,
    ///   `invalidArgument` (a scheme other than file, http, https), `unsupportedFormat`,
    ///   `corrupt`, `truncated`, `tooLarge`.
    @concurrent
    public func prepare(
        limits: DecodingLimits, fetcher: any AnimationDataFetcher
    ) async throws(ImgToolError) -> any FrameSource {
        switch self {
        case .source(let source, _):
            return source
        case .data(let bytes, let name):
            return try ImageSource(data: bytes, name: name, limits: limits)
        case .url(let url):
            if url.isFileURL {
                return try ImageSource(contentsOf: url.path, limits: limits)
            }
            switch url.scheme?.lowercased() {
            case "http", "https":
                let bytes = try await fetcher.data(for: url)
                return try ImageSource(data: bytes, name: name, limits: limits)
            default:
                throw ImgToolError(
                    .invalidArgument,
                    "unsupported URL scheme \(url.scheme.map { "\"\($0)\"" } ?? "(none)"): use a file path, http or https",
                    input: name)
            }
        }
    }
}
