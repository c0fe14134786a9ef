/// A C library loaded on first use by its C target's loader (libavif, libjxl, libheif), not at
/// start-up: what the codec asks before it calls into it.
struct RuntimeLibrary: Sendable {
    /// The library's name, as messages give it ("libavif").
    let name: String
    /// The format that needs it ("AVIF").
    let format: String
    /// The C target's loader: 1 once the library is loaded, else 0 with the reason in `error`.
    let loader: @Sendable @convention(c) (UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32

    /// `nil` when the library is loaded (loading it the first time), else the reason it is not.
    func load() -> String? {
        var error: UnsafePointer<CChar>?
        return loader(&error) == 1 ? nil : error.map { String(cString: $0) } ?? "\(name) is not loaded"
    }

    /// Throws `unsupportedFormat` naming the reason when the library cannot be loaded.
    func required() throws(ImgToolError) {
        if let problem = load() { throw ImgToolError(.unsupportedFormat, "\(format) needs \(name): \(problem)") }
    }
}
