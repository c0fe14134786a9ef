#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strerror(code)` with the number, e.g. "No such file or directory (errno 2)".
func systemErrorText(_ code: Int32) -> String {
    guard code != 0 else { return "unknown error" }
    return "\(String(cString: strerror(code))) (errno \(code))"
}

/// The ``ImgToolError/Code`` that best describes an errno from opening or reading a file.
func errorCode(forErrno code: Int32) -> ImgToolError.Code {
    switch code {
    case ENOENT, ENOTDIR: .notFound
    case ENOMEM, EFBIG: .tooLarge
    default: .unreadable
    }
}
