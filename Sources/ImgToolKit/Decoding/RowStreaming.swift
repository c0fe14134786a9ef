/// Takes the rows of a one-frame image as a decoder makes them, in one or two bands of rows that
/// can each be fed from a thread of their own: a resize that never holds the full-size image.
///
/// The source calls ``bands(splittingNear:)`` once, then hands each band its rows in order, top
/// to bottom, with ``take(_:row:band:)``: every row of the band once, from one thread per band.
/// Bands may overlap (a row where they meet is handed to both).
protocol RowBandConsumer: Sendable {
    /// The size of the image whose rows it takes.
    var sourceSize: PixelSize { get }

    /// The rows each band needs, in order.
    /// - Parameter row: where the source would split the image between two threads, or `nil`
    ///   when it decodes on one thread.
    /// - Returns: one range, or two when `row` is given and the work is worth a second thread.
    func bands(splittingNear row: Int?) -> [Range<Int>]

    /// The columns it reads of each row, or `nil` for all of them: a source may leave the others
    /// undecoded (their samples in the rows handed over are then unspecified).
    var columns: Range<Int>? { get }

    /// Row `row` of band `band`: ``sourceSize`` wide, 8-bit RGBA.
    func take(_ pixels: UnsafeRawBufferPointer, row: Int, band: Int)
}

extension RowBandConsumer {
    /// Every column.
    var columns: Range<Int>? { nil }
}

/// A source that can hand the rows of its single frame to a ``RowBandConsumer`` as it decodes
/// them, instead of decoding the whole frame first.
protocol RowStreamingSource: FrameSource {
    /// How the rows handed over are turned to be shown: the consumer's
    /// ``RowBandConsumer/sourceSize`` is then the stored size, and the frame of
    /// ``FrameSource/makeFrameReader(depth:)`` is shown turned.
    var rowOrientation: ImageOrientation { get }

    /// Decodes the frame into `consumer`, 8 bits a sample.
    /// - Returns: the frame's metadata once every band has had all its rows, or `nil` when this
    ///   image is not streamed: its size is not the consumer's, or the decoder failed or warned
    ///   part way (any rows handed over are then not to be used). Decoding the frame the usual way
    ///   then gives the exact error, warnings and pixels.
    /// - Throws: ``ImgToolError`` `cancelled` only.
    func streamRows(to consumer: some RowBandConsumer) throws(ImgToolError) -> ImageMetadata?
}
