/// How an animation is played: ImageIO's `kCGImageAnimationStartIndex`,
/// `kCGImageAnimationDelayTime` and `kCGImageAnimationLoopCount`, plus imgtool's own timing
/// policies.
///
/// Every property has a default that plays the file as it declares itself.
public struct AnimationOptions: Sendable, Hashable {
    /// The first frame shown (ImageIO's `kCGImageAnimationStartIndex`). Default 0.
    ///
    /// The frames before it are composited, not shown, since a frame builds on the ones before
    /// it. Later plays start again from frame 0. Out of range gives ``AnimationStatus/parameterError``.
    public var startIndex: Int
    /// A delay for every frame, replacing the file's (ImageIO's `kCGImageAnimationDelayTime`),
    /// used as given without ``delayPolicy``. Default `nil`: the file's delays.
    public var delayTime: Duration?
    /// How many times the animation plays, 0 meaning forever (ImageIO's
    /// `kCGImageAnimationLoopCount`, which counts plays too). Default `nil`: the file's
    /// ``ImageInfo/plays`` (a GIF without a loop extension plays once, a NETSCAPE loop value N
    /// plays N + 1 times, an APNG `num_plays` N plays N times).
    public var plays: Int?
    /// How stored delays are clamped. Default ``DelayPolicy/browser``.
    public var delayPolicy: DelayPolicy
    /// What happens to frames that are ready too late. Default ``LatePolicy/drop``.
    public var latePolicy: LatePolicy
    /// Playback speed: every delay is divided by it. Default 1; from 0.001 to 1000.
    public var speed: Double
    /// Sample depth of delivered frames. Default ``SampleDepth/eight``.
    public var depth: SampleDepth
    /// Sizes refused before allocating. Default ``DecodingLimits/default``.
    public var limits: DecodingLimits

    /// Creates options; every parameter has the documented default.
    public init(
        startIndex: Int = 0, delayTime: Duration? = nil, plays: Int? = nil,
        delayPolicy: DelayPolicy = .browser, latePolicy: LatePolicy = .drop, speed: Double = 1,
        depth: SampleDepth = .eight, limits: DecodingLimits = .default
    ) {
        self.startIndex = startIndex
        self.delayTime = delayTime
        self.plays = plays
        self.delayPolicy = delayPolicy
        self.latePolicy = latePolicy
        self.speed = speed
        self.depth = depth
        self.limits = limits
    }

    /// Checks the options that need no image: ``speed`` from 0.001 to 1000 (a factor that makes
    /// every delay a number of milliseconds a `Duration` still converts), ``delayTime`` and
    /// ``plays`` not negative, ``startIndex`` not negative.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option.
    public func validate() throws(ImgToolError) {
        guard speed.isFinite, speed >= 0.001, speed <= 1000 else {
            throw ImgToolError(.invalidArgument, "speed must be from 0.001 to 1000, not \(speed)")
        }
        if let delayTime, delayTime < .zero {
            throw ImgToolError(.invalidArgument, "delay time must not be negative, not \(delayTime)")
        }
        if let plays, plays < 0 {
            throw ImgToolError(
                .invalidArgument, "plays must be 0 (forever) or more, not \(plays)")
        }
        guard startIndex >= 0 else {
            throw ImgToolError(.invalidArgument, "start index must not be negative, not \(startIndex)")
        }
    }
}
