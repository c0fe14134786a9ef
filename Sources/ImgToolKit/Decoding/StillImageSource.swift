/// A picture already in memory as a one-frame ``FrameSource``, so that it is written through a
/// codec like any decoded image (a still merge's result, a resized still).
public struct StillImageSource: FrameSource {
    /// The picture.
    public let image: PixelBuffer
    /// A one-frame image of the picture's size; format and colour are those of its
    /// ``PixelBuffer/metadata`` when it has some (PNG, 8-bit RGBA otherwise).
    public private(set) var info: ImageInfo
    /// Whether no pixel is translucent, found by looking at the pixels (each time it is asked).
    public var isOpaque: Bool { image.firstTranslucentRow() == nil }

    /// Wraps `image`.
    public init(_ image: PixelBuffer) {
        self.image = image
        let metadata = image.metadata
        info = ImageInfo(
            format: metadata?.format ?? .png, width: image.width, height: image.height,
            bitDepth: metadata?.bitDepth ?? (image.depth == .sixteen ? 16 : 8),
            colorType: metadata?.colorType ?? .rgba, color: metadata?.color ?? ColorMetadata(),
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: image.width, height: image.height),
                    disposal: .none, blend: .source)
            ])
    }

    /// A still image described as `original` describes its pixels: the colour description, the
    /// EXIF and XMP blocks and the orientation applied (a merge's result is described by its
    /// background), so writers carry the profile and metadata on.
    public init(_ image: PixelBuffer, describedBy original: ImageInfo) {
        self.init(image)
        var info = self.info
        info.adoptDescription(of: original)
        self.info = info
    }

    /// A reader that returns the picture once, at `depth` when given.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        var picture = image
        if let depth, depth != picture.depth { picture = picture.converted(to: depth) }
        return OneFrameReader(frame: Frame(info: info.frames[0], image: picture))
    }
}
