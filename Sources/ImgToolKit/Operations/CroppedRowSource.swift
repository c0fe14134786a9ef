/// A crop of a one-frame source that streams its rows (a JPEG or a PNG), streaming in turn: a
/// crop followed by a resize is resized as the image is decoded, each row's columns outside the
/// box dropped as it comes and the rows outside never handed on, so the full-size image is
/// never made (``ResizeOperation`` builds one for `--crop ... --resize ...`).
///
/// The rows handed on are exactly the crop's rows, so the resize is the resize of the cropped
/// image, sample for sample. A source shown turned (EXIF orientation) hands over stored rows: the
/// box is then the stored region under it, and the resize runs in stored order, as it does for
/// any turned JPEG (``Resampler/resample(rowsOf:)``). When the source does not stream (a damaged
/// file, an animation), the frame is decoded whole and cropped, as ``CropOperation`` does.
struct CroppedRowSource: RowStreamingSource {
    /// The source, and the box in its displayed pixels.
    let base: any RowStreamingSource
    let region: FrameRegion
    /// The crop when not streamed.
    private let cropped: MappedFrameSource

    init(_ base: any RowStreamingSource, region: FrameRegion) {
        self.base = base
        self.region = region
        cropped = MappedFrameSource(base, mapping: CropOperation.Mapping(region: region))
    }

    var info: ImageInfo { cropped.info }
    var isOpaque: Bool { base.isOpaque }
    var rowOrientation: ImageOrientation { base.rowOrientation }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try cropped.makeFrameReader(depth: depth)
    }

    func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata? {
        let turn = base.rowOrientation
        let stored = turn.displayedSize(of: PixelSize(width: base.info.width, height: base.info.height))
        let box = turn.storedRegion(of: region, stored: stored)
        guard consumer.sourceSize == PixelSize(width: box.width, height: box.height) else { return nil }
        return try base.streamRows(to: CroppingConsumer(inner: consumer, box: box, sourceSize: stored))
    }
}

/// Hands `inner` the part of each row inside `box` (stored pixels of a `sourceSize` image), and
/// only the rows inside it.
private struct CroppingConsumer<Inner: RowBandConsumer>: RowBandConsumer {
    let inner: Inner
    let box: FrameRegion
    let sourceSize: PixelSize

    func bands(splittingNear row: Int?) -> [Range<Int>] {
        inner.bands(splittingNear: row.map { min(max($0 - box.y, 0), box.height) }).map {
            ($0.lowerBound + box.y)..<($0.upperBound + box.y)
        }
    }

    /// The box's columns, or those of them the consumer inside reads.
    var columns: Range<Int>? {
        guard let read = inner.columns else { return box.x..<(box.x + box.width) }
        return (box.x + read.lowerBound)..<(box.x + read.upperBound)
    }

    func take(_ pixels: UnsafeRawBufferPointer, row: Int, band: Int) {
        guard row >= box.y, row < box.y + box.height else { return }
        inner.take(
            UnsafeRawBufferPointer(rebasing: pixels[box.x * 4..<(box.x + box.width) * 4]), row: row - box.y,
            band: band)
    }
}
