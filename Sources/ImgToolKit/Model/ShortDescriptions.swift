/// Public values print as short summaries: `print(result)` on a merge shows its size and frame
/// count, never the samples of a buffer (megabytes) or the bytes of a file.

extension PixelBuffer: CustomStringConvertible, CustomDebugStringConvertible {
    /// A short summary, never the samples: `PixelBuffer(320x200, rgba8)`.
    public var description: String {
        "PixelBuffer(\(width)x\(height), rgba\(depth == .sixteen ? 16 : 8))"
    }

    /// The same short summary (the samples would be megabytes).
    public var debugDescription: String { description }
}

extension Frame: CustomStringConvertible {
    /// `Frame(3, 40 ms, PixelBuffer(320x200, rgba8))`.
    public var description: String {
        "Frame(\(index), \(Self.milliseconds(info.delay)) ms, \(image))"
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = duration.milliseconds
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension ImageInfo: CustomStringConvertible {
    /// `gif 96x96, 24 frames, plays forever`.
    public var description: String {
        let plays = plays == 0 ? "plays forever" : plays == 1 ? "plays once" : "plays \(plays) times"
        return "\(format) \(width)x\(height), \(frameCount) frame\(frameCount == 1 ? "" : "s"), \(plays)"
    }
}

extension ImageSource: CustomStringConvertible {
    /// `ImageSource(a.gif: gif 96x96, 24 frames, plays forever)`, never the file's bytes.
    public var description: String { "ImageSource(\(name): \(info))" }
}

extension StillImageSource: CustomStringConvertible {
    /// `StillImageSource(PixelBuffer(320x200, rgba8))`.
    public var description: String { "StillImageSource(\(image))" }
}

extension MergedAnimation: CustomStringConvertible {
    /// `MergedAnimation(320x200, 24 frames, plays forever)`.
    public var description: String { "MergedAnimation(\(info))" }
}

extension LoadedImage: CustomStringConvertible {
    /// `LoadedImage(a.png: png 320x200, 1 frame, plays once)`.
    public var description: String { "LoadedImage(\(name): \(info))" }
}

extension ImageMerger.Result: CustomStringConvertible {
    /// `Result(PixelBuffer(320x200, rgba8), animated: 24 frames, 0 skipped)`.
    public var description: String {
        let animated = animation.map { "animated: \($0.frameCount) frames" } ?? "still"
        return "ImageMerger.Result(\(image), \(animated), \(skipped.count) skipped)"
    }
}
