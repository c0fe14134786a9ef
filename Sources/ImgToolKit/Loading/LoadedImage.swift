/// One decoded input: what it declares and its pixels.
///
/// A still image keeps only its pixels (the file's bytes are released after decoding, so a big
/// merge holds each image once). An animation also keeps its ``animation`` source, so that its
/// frames can be read again on a timeline.
public struct LoadedImage: Sendable {
    /// The input as the user gave it.
    public var name: String
    /// Format, size, depth and frame table.
    public var info: ImageInfo
    /// The pixels of frame 0 (the whole image for a still), at the file's depth (16-bit files
    /// give 16-bit buffers) unless the loader was asked for a depth.
    public var image: PixelBuffer
    /// The parsed source of an animated input; `nil` for a still image.
    public var animation: ImageSource?
    /// The animation's frames converted to another colour space (a merge's overlay taken into
    /// its background's), read instead of ``animation`` when set.
    var converted: (any FrameSource)?

    /// Creates a loaded image.
    public init(name: String, info: ImageInfo, image: PixelBuffer, animation: ImageSource? = nil) {
        self.name = name
        self.info = info
        self.image = image
        self.animation = animation
    }

    /// Moves the pixels out, leaving an empty buffer, so that the caller holds the only
    /// reference and can change them in place without a copy.
    public mutating func takeImage() -> PixelBuffer {
        var taken = PixelBuffer(width: 0, height: 0)
        swap(&taken, &image)
        return taken
    }
}
