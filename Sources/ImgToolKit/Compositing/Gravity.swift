/// Where an overlay is anchored on the background: one of nine positions.
///
/// The overlay's matching point is put on the background's: ``northWest`` puts the overlay's
/// top-left corner on the background's top-left corner, ``center`` centres it, ``southEast``
/// aligns the bottom-right corners. Names follow ImageMagick's `-gravity`.
public enum Gravity: String, Sendable, Hashable, CaseIterable, Codable {
    /// Top-left corners aligned.
    case northWest = "northwest"
    /// Centred horizontally, top edges aligned.
    case north
    /// Top-right corners aligned.
    case northEast = "northeast"
    /// Left edges aligned, centred vertically.
    case west
    /// Centred both ways (the default).
    case center
    /// Right edges aligned, centred vertically.
    case east
    /// Bottom-left corners aligned.
    case southWest = "southwest"
    /// Centred horizontally, bottom edges aligned.
    case south
    /// Bottom-right corners aligned.
    case southEast = "southeast"

    /// The overlay's top-left corner, before any offset, for an overlay of `overlay` size on a
    /// canvas of `canvas` size.
    ///
    /// Left/top alignment gives 0, right/bottom alignment gives `canvas - overlay`, and centring
    /// gives `⌊(canvas - overlay) / 2⌋`, rounded toward negative infinity, so an odd leftover
    /// pixel goes to the right or bottom, and an overlay larger than the canvas starts left of it.
    /// Values may be negative; drawing clips.
    public func origin(overlay: (width: Int, height: Int), canvas: (width: Int, height: Int)) -> (x: Int, y: Int) {
        let spareX = canvas.width - overlay.width
        let spareY = canvas.height - overlay.height
        let x: Int
        let y: Int
        switch self {
        case .northWest, .west, .southWest: x = 0
        case .north, .center, .south: x = Self.floorHalf(spareX)
        case .northEast, .east, .southEast: x = spareX
        }
        switch self {
        case .northWest, .north, .northEast: y = 0
        case .west, .center, .east: y = Self.floorHalf(spareY)
        case .southWest, .south, .southEast: y = spareY
        }
        return (x, y)
    }

    /// `⌊value / 2⌋` for negative values too.
    static func floorHalf(_ value: Int) -> Int { value >> 1 }
}
