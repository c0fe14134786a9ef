import ImgToolKit

/// A usage error found once the input is read (a crop box outside the image, a frame range past
/// its last frame, an animation written as JPEG): printed as one `error:` line naming the input
/// or the output, without the usage lines (the words parsed; the image did not fit them), and
/// exiting 64 as every usage error does.
struct UsageErrorAfterReading: Error, CustomStringConvertible {
    /// The library's error, naming the input or the output.
    var error: ImgToolError

    /// The line printed after `error: `.
    var description: String { error.commandLineDescription }
}

extension ImgToolError {
    /// The error as the command line prints it: the library's line, plus the option that raises a
    /// limit the input passed (the library names limits, never options).
    var commandLineDescription: String {
        guard let limit else { return description }
        let option =
            switch limit {
            case .pixels: "--max-pixels"
            case .frames: "--max-frames"
            case .totalPixels: "--max-total-pixels"
            case .bytes: "--max-bytes"
            }
        return description + "; raise it with \(option)"
    }
}
