import ImgToolKit

/// An RGB picture made for a terminal: straight RGBA composited over black, one `0xRRGGBB`
/// value per pixel, row-major.
struct ScaledImage: Sendable, Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt32]

    /// A picture of `width` x `height` pixels.
    init(width: Int, height: Int, pixels: [UInt32]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `image` scaled to `width` x `height` by the library's ``Resampler`` with the box filter
    /// (each output pixel the mean of the source area it covers, weighted by how much of each
    /// source pixel falls inside it), flattened onto black before the single rounding. Sizes of
    /// 0 give an empty picture.
    init(scaling image: PixelBuffer, toWidth width: Int, height: Int) {
        let narrow = image.converted(to: .eight)
        guard width > 0, height > 0, narrow.width > 0, narrow.height > 0,
            let resampler = try? Resampler(
                from: PixelSize(width: narrow.width, height: narrow.height),
                to: PixelSize(width: width, height: height), filter: .box),
            let samples = try? resampler.resample(narrow, flattenedOnto: .black).rgba8
        else {
            self.init(
                width: max(width, 0), height: max(height, 0),
                pixels: [UInt32](repeating: 0, count: max(width, 0) * max(height, 0)))
            return
        }
        let pixels = [UInt32](unsafeUninitializedCapacity: width * height) { out, count in
            for index in 0..<width * height {
                out[index] =
                    UInt32(samples[index * 4]) << 16 | UInt32(samples[index * 4 + 1]) << 8
                    | UInt32(samples[index * 4 + 2])
            }
            count = width * height
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The largest `width` x `height` with the image's aspect ratio (pixels taken as square)
    /// that fits in `boxWidth` x `boxHeight`, at least 1x1.
    static func fit(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0, boxWidth > 0, boxHeight > 0 else { return (max(boxWidth, 1), max(boxHeight, 1)) }
        let scale = min(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        let fittedWidth = min(boxWidth, max(1, Int((Double(width) * scale).rounded())))
        let fittedHeight = min(boxHeight, max(1, Int((Double(height) * scale).rounded())))
        return (fittedWidth, fittedHeight)
    }
}
