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

extension ImageOrientation {
    /// The orientation that turns the shown image back into the stored one: a quarter turn the
    /// other way; every mirror and the half turn undo themselves.
    var inverse: ImageOrientation {
        switch self {
        case .right: .left
        case .left: .right
        default: self
        }
    }

    /// The stored pixel shown at (`x`, `y`) of an image stored as `width` x `height`: the
    /// inverse of ``displayedPosition(x:y:width:height:)``.
    func storedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let shown = displayedSize(of: PixelSize(width: width, height: height))
        return inverse.displayedPosition(x: x, y: y, width: shown.width, height: shown.height)
    }

    /// The stored region of a `stored`-sized image that is shown as `region`.
    func storedRegion(of region: FrameRegion, stored: PixelSize) -> FrameRegion {
        let first = storedPosition(x: region.x, y: region.y, width: stored.width, height: stored.height)
        let last = storedPosition(
            x: region.x + region.width - 1, y: region.y + region.height - 1, width: stored.width,
            height: stored.height)
        return FrameRegion(
            x: min(first.x, last.x), y: min(first.y, last.y), width: abs(last.x - first.x) + 1,
            height: abs(last.y - first.y) + 1)
    }
}

extension ImageOrientation {
    /// Where the box `x`, `y`, `width`, `height` of a `stored`-sized stored image is shown, in
    /// fractions of pixels: the continuous form of ``storedRegion(of:stored:)``'s inverse (an
    /// edge at `e` of a mirrored axis of length `n` is shown at `n - e`).
    func displayedBox(x: Double, y: Double, width: Double, height: Double, stored: PixelSize)
        -> (x: Double, y: Double, width: Double, height: Double)
    {
        let (w, h) = (Double(stored.width), Double(stored.height))
        // The displayed edges of the stored edges x...x+width (first) and y...y+height (second).
        let (horizontal, vertical): ((Double, Double), (Double, Double))
        switch self {
        case .up: (horizontal, vertical) = ((x, x + width), (y, y + height))
        case .upMirrored: (horizontal, vertical) = ((w - x - width, w - x), (y, y + height))
        case .down: (horizontal, vertical) = ((w - x - width, w - x), (h - y - height, h - y))
        case .downMirrored: (horizontal, vertical) = ((x, x + width), (h - y - height, h - y))
        case .leftMirrored: (horizontal, vertical) = ((y, y + height), (x, x + width))
        case .right: (horizontal, vertical) = ((h - y - height, h - y), (x, x + width))
        case .rightMirrored: (horizontal, vertical) = ((h - y - height, h - y), (w - x - width, w - x))
        case .left: (horizontal, vertical) = ((y, y + height), (w - x - width, w - x))
        }
        return (horizontal.0, vertical.0, horizontal.1 - horizontal.0, vertical.1 - vertical.0)
    }
}

extension PixelBuffer {
    /// This image, as stored, turned to be shown as `orientation` says.
    func turned(_ orientation: ImageOrientation) -> PixelBuffer {
        guard orientation != .up else { return self }
        let shown = orientation.displayedSize(of: PixelSize(width: width, height: height))
        var result: PixelBuffer
        switch samples {
        case .rgba8(let stored):
            result = PixelBuffer(
                width: shown.width, height: shown.height, rgba8: Self.turn(stored, width, height, orientation))
        case .rgba16(let stored):
            result = PixelBuffer(
                width: shown.width, height: shown.height, rgba16: Self.turn(stored, width, height, orientation))
        }
        result.metadata = metadata
        return result
    }

    private static func turn<Sample: FixedWidthInteger>(
        _ stored: [Sample], _ width: Int, _ height: Int, _ orientation: ImageOrientation
    ) -> [Sample] {
        let shownWidth = orientation.swapsAxes ? height : width
        var shown = [Sample](repeating: 0, count: stored.count)
        for y in 0..<height {
            for x in 0..<width {
                let to = orientation.displayedPosition(x: x, y: y, width: width, height: height)
                let from = (y * width + x) * 4
                let at = (to.y * shownWidth + to.x) * 4
                for channel in 0..<4 { shown[at + channel] = stored[from + channel] }
            }
        }
        return shown
    }
}
