/// The operations as methods, for chains written in Swift:
/// `try await source.cropped(to: .aspect(width: 16, height: 9)).resized(to: "1200").overlaid(...)`.
/// Each builds the same step as the ``ImageOperation`` the command line parses, and is lazy.
extension FrameSource {
    /// ``CropOperation``.
    public func cropped(to box: CropOperation.Box) async throws(ImgToolError) -> any FrameSource {
        try await CropOperation(box).apply(to: self, context: OperationContext())
    }

    /// ``ResizeOperation``: `size` as `--resize` takes it (`1200`, `x480`, `640x480`, `50%`).
    public func resized(to size: String, filter: String = "lanczos3", linear: Bool = false)
        async throws(ImgToolError) -> any FrameSource
    {
        try await ResizeOperation(size: size, filter: filter, linear: linear).apply(
            to: self, context: OperationContext())
    }

    /// ``RotateOperation``: clockwise.
    public func rotated(byDegrees degrees: Double, background: RGBAColor? = nil) async throws(ImgToolError)
        -> any FrameSource
    {
        try await RotateOperation(degrees: degrees, background: background).apply(to: self, context: OperationContext())
    }

    /// ``MirrorOperation``, top to bottom.
    public func flipped() async throws(ImgToolError) -> any FrameSource {
        try await MirrorOperation(.flip).apply(to: self, context: OperationContext())
    }

    /// ``MirrorOperation``, left to right.
    public func flopped() async throws(ImgToolError) -> any FrameSource {
        try await MirrorOperation(.flop).apply(to: self, context: OperationContext())
    }

    /// ``TrimOperation``.
    public func trimmed() async throws(ImgToolError) -> any FrameSource {
        try await TrimOperation().apply(to: self, context: OperationContext())
    }

    /// ``PadOperation``.
    public func padded(top: Int, right: Int, bottom: Int, left: Int, color: RGBAColor? = nil)
        async throws(ImgToolError) -> any FrameSource
    {
        try await PadOperation(top: top, right: right, bottom: bottom, left: left, color: color)
            .apply(to: self, context: OperationContext())
    }

    /// ``FilterOperation/blur(sigma:)``.
    public func blurred(sigma: Double) async throws(ImgToolError) -> any FrameSource {
        try await FilterOperation.blur(sigma: sigma).apply(to: self, context: OperationContext())
    }

    /// ``FilterOperation/sharpen(sigma:)``.
    public func sharpened(sigma: Double) async throws(ImgToolError) -> any FrameSource {
        try await FilterOperation.sharpen(sigma: sigma).apply(to: self, context: OperationContext())
    }

    /// ``FilterOperation/grayscale``.
    public func grayscaled() async throws(ImgToolError) -> any FrameSource {
        try await FilterOperation.grayscale.apply(to: self, context: OperationContext())
    }

    /// ``OverlayOperation``.
    public func overlaid(_ overlay: OverlayOperation, context: OperationContext = OperationContext())
        async throws(ImgToolError) -> any FrameSource
    {
        try await overlay.apply(to: self, context: context)
    }

    /// ``MergeOperation``: `overlays` (files, URLs or `-`) drawn in order, all with `placement`,
    /// as `imgtool merge` draws them.
    public func merged(
        with overlays: [String], placement: OverlayPlacement = .centered, context: OperationContext = OperationContext()
    ) async throws(ImgToolError) -> any FrameSource {
        try await MergeOperation(overlays: overlays, placement: placement).apply(to: self, context: context)
    }

    /// ``TimingOperation/speed(_:)``: every delay divided by `factor`.
    public func speeded(by factor: Double) async throws(ImgToolError) -> any FrameSource {
        try await TimingOperation.speed(factor).apply(to: self, context: OperationContext())
    }

    /// ``TimingOperation/reverse``.
    public func reversed() async throws(ImgToolError) -> any FrameSource {
        try await TimingOperation.reverse.apply(to: self, context: OperationContext())
    }

    /// ``TimingOperation/frames(first:last:)``.
    public func selectingFrames(_ range: ClosedRange<Int>) async throws(ImgToolError) -> any FrameSource {
        try await TimingOperation.frames(first: range.lowerBound, last: range.upperBound)
            .apply(to: self, context: OperationContext())
    }

    /// ``TimingOperation/frames(first:last:)`` from `range`'s first frame to the last.
    public func selectingFrames(_ range: PartialRangeFrom<Int>) async throws(ImgToolError) -> any FrameSource {
        try await TimingOperation.frames(first: range.lowerBound, last: nil)
            .apply(to: self, context: OperationContext())
    }

    /// ``TimingOperation/loops(_:)``.
    public func playing(times plays: Int) async throws(ImgToolError) -> any FrameSource {
        try await TimingOperation.loops(plays).apply(to: self, context: OperationContext())
    }
}
