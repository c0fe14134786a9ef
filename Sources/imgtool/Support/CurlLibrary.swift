import ImgToolKit

/// libcurl, which ``HTTPFetcher`` fetches with, loaded when the first URL is about to be fetched.
///
/// `imgtool` does not load libcurl (and the thirty libraries it brings) at start-up: `HTTPFetcher`
/// loads it on first use (and CCurlLoader answers FoundationNetworking's libcurl calls the same
/// way). A command that fetches calls ``load(toFetch:)`` first, so a machine without libcurl gets
/// an error naming the input before any work starts.
enum CurlLibrary {
    /// Loads libcurl (once per process).
    /// - Throws: ``ImgToolError`` `network` naming `input` when libcurl cannot be loaded.
    static func load(toFetch input: String) throws(ImgToolError) {
        try HTTPFetcher.loadLibrary(toFetch: input)
    }
}
