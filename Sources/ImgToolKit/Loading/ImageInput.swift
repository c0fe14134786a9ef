import Foundation

/// Where an image comes from: a local path, a `file://` URL, an `http(s)://` URL, standard input,
/// or bytes already in memory.
///
/// Parse one from what the user typed with ``init(_:)``; ``name`` keeps that text exactly, so
/// every error can say which input failed. The format is never taken from the name: it is sniffed
/// from the bytes once they arrive.
public struct ImageInput: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of location.
    public enum Location: Sendable, Hashable {
        /// A file on this machine (from a plain path or a `file://` URL).
        case file(path: String)
        /// An `http` or `https` URL, fetched with a ``DataFetching`` fetcher.
        case remote(URL)
        /// Standard input (named `-`), read to its end.
        case standardInput
        /// A whole file already in memory.
        case memory([UInt8])
    }

    /// The text as the user gave it; errors name the input with it.
    public let name: String
    /// Where the bytes are.
    public let location: Location

    /// Parses what the user typed: `-` is standard input, `http://` and `https://` are remote,
    /// `file://` URLs and anything without a scheme are local paths.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the input for another URL scheme
    ///   (`ftp://`, `data:` ...), a malformed URL or an empty name.
    public init(_ text: String) throws(ImgToolError) {
        name = text
        if text.isEmpty { throw ImgToolError(.invalidArgument, "an empty name is not an input", input: text) }
        if text == "-" {
            location = .standardInput
            return
        }
        guard let scheme = Self.scheme(of: text) else {
            location = .file(path: text)
            return
        }
        switch scheme {
        case "http", "https":
            guard let url = URL(string: text), url.host != nil, !(url.host ?? "").isEmpty else {
                throw ImgToolError(.invalidArgument, "malformed \(scheme) URL (no host)", input: text)
            }
            location = .remote(url)
        case "file":
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                throw ImgToolError(.invalidArgument, "malformed file URL", input: text)
            }
            if let host = url.host, !host.isEmpty, host != "localhost" {
                throw ImgToolError(
                    .invalidArgument, "file URL names host \(host); only local files can be read", input: text)
            }
            location = .file(path: url.path)
        default:
            throw ImgToolError(
                .invalidArgument, "unsupported URL scheme \(scheme):// (use a path, file://, http:// or https://)",
                input: text)
        }
    }

    /// Creates an input for a location, named `name`.
    public init(name: String, location: Location) {
        self.name = name
        self.location = location
    }

    /// An input for the whole file in `data`, named `name` in errors.
    public init(data: [UInt8], name: String = "data") {
        self.init(name: name, location: .memory(data))
    }

    /// An input for a `file:` or `http(s):` URL, named by its path (a file) or its text.
    /// - Throws: ``ImgToolError`` `invalidArgument` for another scheme or a malformed URL.
    public init(url: URL) throws(ImgToolError) {
        if url.isFileURL {
            self.init(name: url.path, location: .file(path: url.path))
        } else {
            try self.init(url.absoluteString)
        }
    }

    /// The name as given.
    public var description: String { name }

    /// The lowercased scheme of `text` when it starts like `scheme://`, else `nil`.
    ///
    /// A scheme is a letter followed by letters, digits, `+`, `-` or `.` (RFC 3986), before `://`.
    static func scheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let candidate = text[..<range.lowerBound]
        guard let first = candidate.first, first.isASCII, first.isLetter else { return nil }
        let allowed = candidate.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        return allowed ? candidate.lowercased() : nil
    }
}
