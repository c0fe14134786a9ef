extension PixelBuffer {
    /// This image drawn onto an opaque `color`: every pixel's colour blended with it by the
    /// pixel's alpha (straight alpha, rounded to nearest), alpha made opaque. The colour's own
    /// alpha is ignored.
    public func flattened(onto color: RGBAColor) -> PixelBuffer {
        var result: PixelBuffer
        switch samples {
        case .rgba8(let values):
            result = PixelBuffer(width: width, height: height, rgba8: Self.flatten(values, onto: color))
        case .rgba16(let values):
            result = PixelBuffer(width: width, height: height, rgba16: Self.flatten(values, onto: color))
        }
        result.metadata = metadata
        return result
    }

    private static func flatten<S: Sample>(_ values: [S], onto color: RGBAColor) -> [S] {
        let maximum = UInt64(S.max)
        let scale = maximum / 255
        let background = [UInt64(color.red) * scale, UInt64(color.green) * scale, UInt64(color.blue) * scale]
        var out = values
        for pixel in stride(from: 0, to: values.count, by: 4) {
            let alpha = UInt64(values[pixel + 3])
            guard alpha != maximum else { continue }
            for channel in 0..<3 {
                let mixed = UInt64(values[pixel + channel]) * alpha + background[channel] * (maximum - alpha)
                out[pixel + channel] = S(truncatingIfNeeded: (mixed + maximum / 2) / maximum)
            }
            out[pixel + 3] = S.max
        }
        return out
    }
}

/// Flattens each frame onto a colour: what writers do with ``ImageWriteOptions/background``.
struct FlattenMapping: FrameMapping {
    let color: RGBAColor
    var keepsOpacity: Bool { true }
    var makesOpaque: Bool { true }
    func outputSize(for input: PixelSize) -> PixelSize { input }
    func map(_ image: PixelBuffer) -> PixelBuffer { image.flattened(onto: color) }
}
