import CCurlLoader
import ImgToolKit

/// libcurl, which URLSession fetches with, loaded when the first URL is about to be fetched.
///
/// `imgtool` does not load libcurl (and the thirty libraries it brings) at start-up: CCurlLoader
/// answers FoundationNetworking's libcurl calls and loads the library on first use. A command
/// that fetches calls ``load(toFetch:)`` first, so a machine without libcurl gets an error naming
/// the input instead of a URLSession that cannot work.
enum CurlLibrary {
    /// Loads libcurl (once per process).
    /// - Throws: ``ImgToolError`` `network` naming `input` when libcurl cannot be loaded.
    static func load(toFetch input: String) throws(ImgToolError) {
        var reason: UnsafePointer<CChar>?
        if imgtool_curl_load(&reason) != 0 { return }
        let message = reason.map { String(cString: $0) } ?? "cannot load libcurl.so.4"
        throw ImgToolError(.network, "cannot fetch URLs: \(message)", input: input)
    }
}
