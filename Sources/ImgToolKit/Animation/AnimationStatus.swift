/// The outcome of playing an animation, with the raw values of Apple ImageIO's
/// `CGImageAnimationStatus`, so code ported from `CGAnimateImageAtURLWithBlock` can compare them.
///
/// ``animateImage(at:options:clock:fetcher:handler:)`` returns a status at once for problems found
/// before the first frame (a missing file, an unknown format, a corrupt header) and at the end of
/// playback otherwise.
public enum AnimationStatus: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The animation played to its end or was stopped (`kCGImageAnimationStatus_Ok`, 0).
    case ok = 0
    /// An argument or option is out of range, or the URL names nothing readable
    /// (`kCGImageAnimationStatus_ParameterError`, -22140).
    case parameterError = -22140
    /// The bytes break the format's rules (`kCGImageAnimationStatus_CorruptInputImage`, -22141).
    case corruptInputImage = -22141
    /// The bytes are not a format imgtool plays (`kCGImageAnimationStatus_UnsupportedFormat`, -22142).
    case unsupportedFormat = -22142
    /// The input ends before the format says it should, or could not be fetched whole
    /// (`kCGImageAnimationStatus_IncompleteInputImage`, -22143).
    case incompleteInputImage = -22143
    /// A declared size passes a limit, or memory ran out
    /// (`kCGImageAnimationStatus_AllocationFailure`, -22144).
    case allocationFailure = -22144

    /// The status that reports `error`:
    ///
    /// | ``ImgToolError/Code`` | status |
    /// |---|---|
    /// | `invalidArgument`, `notFound`, `unreadable`, `writeFailed` | ``parameterError`` |
    /// | `corrupt` | ``corruptInputImage`` |
    /// | `unsupportedFormat` | ``unsupportedFormat`` |
    /// | `truncated`, `network` | ``incompleteInputImage`` |
    /// | `tooLarge` | ``allocationFailure`` |
    /// | `cancelled` | ``ok`` (a cancelled animation was stopped, as a set stop flag stops it) |
    public init(_ error: ImgToolError) {
        self.init(error.code)
    }

    /// The status that reports an error of kind `code` (see ``init(_:)-(ImgToolError)``).
    public init(_ code: ImgToolError.Code) {
        switch code {
        case .invalidArgument, .notFound, .unreadable, .writeFailed: self = .parameterError
        case .corrupt: self = .corruptInputImage
        case .unsupportedFormat: self = .unsupportedFormat
        case .truncated, .network: self = .incompleteInputImage
        case .tooLarge: self = .allocationFailure
        case .cancelled: self = .ok
        }
    }

    /// The name of the ImageIO constant, e.g. `kCGImageAnimationStatus_CorruptInputImage`.
    public var description: String {
        switch self {
        case .ok: "kCGImageAnimationStatus_Ok"
        case .parameterError: "kCGImageAnimationStatus_ParameterError"
        case .corruptInputImage: "kCGImageAnimationStatus_CorruptInputImage"
        case .unsupportedFormat: "kCGImageAnimationStatus_UnsupportedFormat"
        case .incompleteInputImage: "kCGImageAnimationStatus_IncompleteInputImage"
        case .allocationFailure: "kCGImageAnimationStatus_AllocationFailure"
        }
    }
}
