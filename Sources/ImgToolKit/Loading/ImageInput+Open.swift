import Foundation

extension ImageInput {
    /// The byte limit of an input when none is given: 512 MiB, for files, standard input,
    /// memory and downloads alike (`--max-bytes`).
    public static let defaultMaxBytes = 512 * 1024 * 1024

    /// Reads, receives or fetches the input's bytes and opens them as an ``ImageSource`` (its
    /// structure parsed, no pixels decoded), off the caller's actor.
    ///
    /// This is the one way every command and ``ImageLoader`` open an input. A still PNG file is
    /// decoded straight from disk later and never read whole; every other input is read into
    /// memory, up to `maxBytes`.
    /// - Parameters:
    ///   - limits: sizes refused before allocating. Default ``DecodingLimits/default``.
    ///   - decoding: orientation and shrink-on-load. Default ``DecodingOptions/default``.
    ///   - maxBytes: the largest input accepted, in bytes. Default ``defaultMaxBytes``.
    ///   - fetcher: fetches `http(s)` inputs. Default a ``HTTPFetcher`` with `maxBytes`.
    ///   - registry: the codecs asked. Default ``CodecRegistry/standard``.
    ///   - progress: called as bytes arrive (standard input, memory and fetched inputs), last
    ///     with the whole count.
    /// - Returns: the opened image, named as the user gave it.
    /// - Throws: ``ImgToolError`` naming the input exactly as given: `notFound`, `unreadable`,
    ///   `network`, `tooLarge` (with ``ImgToolError/Limit/bytes`` or a decoding limit),
    ///   `unsupportedFormat`, `corrupt`, `truncated`, `cancelled`.
    @concurrent
    public func open(
        limits: DecodingLimits = .default, decoding: DecodingOptions = .default,
        maxBytes: Int = ImageInput.defaultMaxBytes, fetcher: (any DataFetching)? = nil,
        registry: CodecRegistry = .standard, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws(ImgToolError) -> ImageSource {
        do throws(ImgToolError) {
            let bytes: [UInt8]
            switch location {
            case .file(let path):
                return try ImageSource(
                    contentsOf: path, name: name, maxBytes: maxBytes, limits: limits, options: decoding,
                    registry: registry)
            case .standardInput:
                bytes = try FileBytes.read("/dev/stdin", maxBytes: maxBytes) { (head) throws(ImgToolError) in
                    _ = try ImageSource.codec(recognising: head, registry: registry)
                }
            case .memory(let data):
                guard data.count <= maxBytes else {
                    throw ImgToolError(
                        .tooLarge, "the data is \(data.count) bytes, over the limit of \(maxBytes)", limit: .bytes)
                }
                bytes = data
            case .remote(let url):
                let fetcher = fetcher ?? HTTPFetcher(maxBytes: maxBytes)
                bytes = try await fetcher.fetch(url, name: name) { progress?($0) }
                guard bytes.count <= maxBytes else {
                    throw ImgToolError(
                        .tooLarge, "the body is \(bytes.count) bytes, over the limit of \(maxBytes)", limit: .bytes)
                }
            }
            progress?(FetchProgress(bytesSoFar: bytes.count, total: bytes.count))
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled") }
            return try ImageSource(data: bytes, name: name, limits: limits, options: decoding, registry: registry)
        } catch {
            var named = error
            named.input = name
            throw named
        }
    }
}
