/// A selection of frames by index: `3`, `10..20`, `5..` or `..4` (inclusive), as
/// `imgtool frames --range` takes it.
public struct FrameSelection: Sendable, Hashable {
    /// The first frame selected; `nil` from the first.
    public var lower: Int?
    /// The last frame selected; `nil` to the last.
    public var upper: Int?

    /// Selects `lower...upper`; both default to the ends (every frame).
    public init(lower: Int? = nil, upper: Int? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Parses `N`, `A..B`, `A..` or `..B`; `nil` for anything else (negative numbers, `B < A`).
    public init?(parsing text: String) {
        if let single = Int(text), single >= 0 {
            self.init(lower: single, upper: single)
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].isEmpty else { return nil }
        let lower = parts[0].isEmpty ? nil : Int(parts[0])
        let upper = parts[2].isEmpty ? nil : Int(parts[2])
        if !parts[0].isEmpty && lower == nil || !parts[2].isEmpty && upper == nil { return nil }
        if let lower, let upper, lower > upper { return nil }
        if (lower ?? 0) < 0 || (upper ?? 0) < 0 { return nil }
        self.init(lower: lower, upper: upper)
    }

    /// The indices selected in an image of `frameCount` frames (an upper end past the last frame
    /// stops at the last).
    /// - Throws: ``ImgToolError`` `invalidArgument` when no frame is selected.
    public func resolved(frameCount: Int) throws(ImgToolError) -> ClosedRange<Int> {
        let first = lower ?? 0
        let last = min(upper ?? frameCount - 1, frameCount - 1)
        guard first < frameCount, first <= last else {
            throw ImgToolError(
                .invalidArgument,
                "the range selects no frame: the image has \(frameCount) frame\(frameCount == 1 ? "" : "s")")
        }
        return first...last
    }
}
