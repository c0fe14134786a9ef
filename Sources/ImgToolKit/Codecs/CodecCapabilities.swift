/// What a codec can do, as `imgtool formats` lists it.
public struct CodecCapabilities: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates capabilities from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Decodes files of the format.
    public static let read = CodecCapabilities(rawValue: 1 << 0)
    /// Decodes every frame of an animated file (not only the first).
    public static let readAnimation = CodecCapabilities(rawValue: 1 << 1)
    /// Writes still images.
    public static let write = CodecCapabilities(rawValue: 1 << 2)
    /// Writes animations, every frame with its delay and the number of plays.
    public static let writeAnimation = CodecCapabilities(rawValue: 1 << 3)
    /// Writes transparency (full or one-bit alpha); without it, frames are flattened onto
    /// ``ImageWriteOptions/background`` (white by default).
    public static let writeAlpha = CodecCapabilities(rawValue: 1 << 4)
}
