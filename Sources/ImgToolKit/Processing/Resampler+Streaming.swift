extension Resampler {
    /// The single frame of `source` resized as it is decoded: each row goes through the filter
    /// as the decoder makes it, so the full-size image is never held (a 4096x4096 JPEG's 64 MiB)
    /// and, where the decoder works on two threads, each thread filters the rows it decodes. The
    /// samples are those of ``resample(_:)`` on the decoded image.
    ///
    /// The rows of an image shown turned (``RowStreamingSource/rowOrientation``) are stored rows:
    /// the stored image is resized to the stored shape of the output, which is then turned. The
    /// two passes then run in the other order, so a sample can differ by 1 from the resize of the
    /// turned image (both are the filter's result in 32-bit floats).
    ///
    /// A resize with a box pre-reduction (the thumbnail fast path) is streamed without it: the
    /// filter alone, fed as the rows are decoded, is as fast as the pre-reduction after a whole
    /// decode, and exact.
    /// - Returns: the resized frame, 8-bit; `nil` when the source does not stream this image or
    ///   this resize is an identity: decode it the usual way.
    /// - Throws: ``ImgToolError`` `cancelled`.
    func resample(rowsOf source: some RowStreamingSource) throws(ImgToolError) -> PixelBuffer? {
        let turn = source.rowOrientation
        var streamed = self
        if turn != .up || !preReduction.isEmpty {
            // The same resize of the stored image, without a pre-reduction: sizes and crop in
            // stored terms (the swap that shows a size turns it back).
            let scaled = turn.displayedSize(of: scaledSize)
            let storedWindow = window.map { box in
                // The stored box shown as `box`: the inverse turn shows the displayed image as stored.
                let stored = turn.inverse.displayedBox(
                    x: box.x, y: box.y, width: box.width, height: box.height, stored: sourceSize)
                return SourceWindow(x: stored.x, y: stored.y, width: stored.width, height: stored.height)
            }
            streamed = Resampler(
                checkedFrom: turn.displayedSize(of: sourceSize), scaledTo: scaled,
                croppedTo: turn.storedRegion(of: crop, stored: scaled), filter: filter, linear: linear,
                window: storedWindow
            ).withTransfer(transfer)
            streamed.usesWideVectors = usesWideVectors
        }
        guard !(streamed.horizontal.isIdentity && streamed.vertical.isIdentity) else { return nil }
        return try streamed.resampleRows(of: source)?.turned(turn)
    }

    /// ``resample(rowsOf:)`` for rows that are this resampler's source rows.
    private func resampleRows(of source: some RowStreamingSource) throws(ImgToolError) -> PixelBuffer? {
        let count = outputSize.width * outputSize.height * 4
        var outcome: Result<ImageMetadata?, ImgToolError> = .success(nil)
        let samples = [UInt8](unsharedUninitializedCapacity: count) { output, initialized in
            let stream = ResampleRowStream(self, output: output)
            do throws(ImgToolError) {
                outcome = .success(try source.streamRows(to: stream))
            } catch {
                outcome = .failure(error)
            }
            // Every output row is written once every band has had all its rows.
            if case .success(.some) = outcome { initialized = count }
        }
        guard let metadata = try outcome.get() else { return nil }
        var image = PixelBuffer(width: outputSize.width, height: outputSize.height, rgba8: samples)
        image.metadata = metadata
        return image
    }
}

/// Resizes rows handed over by a decoder (see ``Resampler/resample(rowsOf:)``): one
/// ``Resampler/Band`` per band of output rows, each writing its rows of the output.
///
/// `@unchecked Sendable`: the bands are made in ``bands(splittingNear:)``, before the decoder
/// starts its threads, and each is then used by one thread only, writing output rows no other
/// band writes; `output` belongs to the caller, who reads it after the decoder has returned.
final class ResampleRowStream: RowBandConsumer, @unchecked Sendable {
    private let resampler: Resampler
    private let output: UnsafeMutableBufferPointer<UInt8>
    private var renderers: [Resampler.Band<UInt8>] = []

    init(_ resampler: Resampler, output: UnsafeMutableBufferPointer<UInt8>) {
        self.resampler = resampler
        self.output = output
    }

    var sourceSize: PixelSize { resampler.sourceSize }

    /// Two bands when the source splits and the resize is large enough for two threads (as
    /// ``Resampler/resample(_:)`` decides): the first band computes the output rows that read
    /// only source rows above `row`, the second the rest.
    func bands(splittingNear row: Int?) -> [Range<Int>] {
        let height = resampler.outputSize.height
        let conversion = Resampler.Conversion(
            maximum: 255, linear: resampler.linear, transfer: resampler.transfer, background: nil)
        let work = max(sourceSize.width * sourceSize.height, resampler.outputSize.width * height)
        var splits: [Int] = []
        if let row, height >= 2, work >= Resampler.parallelThreshold {
            let vertical = resampler.vertical
            var split = 0
            while split < height, vertical.firsts[split] + vertical.tapCounts[split] <= row { split += 1 }
            splits = [min(max(split, 1), height - 1)]
        }
        let bounds = [0] + splits + [height]
        renderers = zip(bounds, bounds.dropFirst()).map { lower, upper in
            let rowLength = resampler.outputSize.width * 4
            return Resampler.Band(
                resampler, rows: lower..<upper, conversion: conversion,
                output: UnsafeMutableBufferPointer(rebasing: output[lower * rowLength..<upper * rowLength]))
        }
        return renderers.map(\.sourceRows)
    }

    func take(_ pixels: UnsafeRawBufferPointer, row: Int, band: Int) {
        renderers[band].push(row: row, pixels.assumingMemoryBound(to: UInt8.self))
    }
}
