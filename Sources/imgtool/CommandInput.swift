import Foundation
import ImgToolKit

/// The one input of `animate` and `convert`: a path, or a `file://`, `http://` or `https://` URL.
enum CommandInput {
    /// Reads (or fetches) and parses the input off the main actor; libcurl is loaded only for
    /// an http(s) URL.
    /// - Throws: ``ImgToolError`` naming the input as given.
    @concurrent
    static func prepare(_ input: String, limits: DecodingLimits) async throws(ImgToolError) -> any FrameSource {
        let lowered = input.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("file://") {
            guard let url = URL(string: input) else {
                throw ImgToolError(.invalidArgument, "not a valid URL", input: input)
            }
            if !url.isFileURL { try CurlLibrary.load(toFetch: input) }
            return try await AnimationInput.url(url).prepare(limits: limits, fetcher: URLSessionDataFetcher())
        }
        return try ImageSource(contentsOf: input, limits: limits)
    }
}
