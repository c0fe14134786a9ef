import ImgToolKit

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
