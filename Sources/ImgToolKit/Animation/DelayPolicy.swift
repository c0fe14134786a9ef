/// How a frame's stored delay becomes the time it is shown.
///
/// Files often store delays too short to play as written (a GIF delay of 0 or 1 centisecond was
/// meant as "as fast as the viewer goes" by old tools), so players clamp them. The policy applies
/// to delays from the file; an explicit ``AnimationOptions/delayTime`` is used as given.
public enum DelayPolicy: Sendable, Hashable, CustomStringConvertible {
    /// What Firefox, Chromium and WebKit do: a delay of 10 ms or less plays as 100 ms. The default.
    case browser
    /// Apple ImageIO's clamps, as documented for `kCGImagePropertyGIFDelayTime` and
    /// `kCGImagePropertyAPNGDelayTime` against their `UnclampedDelayTime` twins: a GIF frame is
    /// shown at least 100 ms, an APNG frame at least 50 ms (a still PNG is not clamped).
    case imageio
    /// Delays as stored, 0 included.
    case raw
    /// Every delay is at least the given duration.
    case minimum(Duration)

    /// The time a frame with stored delay `delay` is shown in a file of format `format`.
    public func effectiveDelay(_ delay: Duration, format: ImageFormat) -> Duration {
        let clamped = max(delay, .zero)
        switch self {
        case .browser:
            return clamped <= .milliseconds(10) ? .milliseconds(100) : clamped
        case .imageio:
            switch format {
            case .gif: return max(clamped, .milliseconds(100))
            case .apng: return max(clamped, .milliseconds(50))
            default: return clamped
            }
        case .raw:
            return clamped
        case .minimum(let floor):
            return max(clamped, floor)
        }
    }

    /// `browser`, `imageio`, `raw` or `min=MS`, as `--delay-policy` spells it.
    public var description: String {
        switch self {
        case .browser: "browser"
        case .imageio: "imageio"
        case .raw: "raw"
        case .minimum(let floor): "min=\(Self.format(floor.milliseconds))"
        }
    }

    /// Parses ``description``'s spelling: `browser`, `imageio`, `raw`, `min=MS` (MS >= 0).
    /// - Returns: the policy, or `nil` for any other text.
    public init?(parsing text: String) {
        switch text {
        case "browser": self = .browser
        case "imageio": self = .imageio
        case "raw": self = .raw
        default:
            guard text.hasPrefix("min="), let milliseconds = Double(text.dropFirst(4)),
                milliseconds.isFinite, milliseconds >= 0, milliseconds <= 86_400_000
            else { return nil }
            self = .minimum(.microseconds(Int64((milliseconds * 1000).rounded())))
        }
    }

    private static func format(_ milliseconds: Double) -> String {
        milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }
}
