/// How a stored image is turned to show it upright: the eight values of the EXIF and TIFF
/// orientation tag (0x0112), with the raw values of the tag and of Apple's
/// `CGImagePropertyOrientation`.
///
/// Each case names where the stored image's first row and first column go, and the transform
/// that undoes it is `PIL.ImageOps.exif_transpose`'s.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left-right.
    case upMirrored = 2
    /// 3: turned 180 degrees.
    case down = 3
    /// 4: mirrored top-bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: shown turned 90 degrees clockwise.
    case right = 6
    /// 7: mirrored along the other diagonal (transverse).
    case rightMirrored = 7
    /// 8: shown turned 90 degrees counter-clockwise.
    case left = 8

    /// Whether showing the image swaps its width and height (5-8).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The size shown for an image stored as `stored`.
    public func displayedSize(of stored: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: stored.height, height: stored.width) : stored
    }

    /// Where the stored pixel (`x`, `y`) of a `width` x `height` image is shown.
    public func displayedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (height - 1 - y, x)
        case .rightMirrored: (height - 1 - y, width - 1 - x)
        case .left: (y, width - 1 - x)
        }
    }
}
