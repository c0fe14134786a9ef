internal import CResample

/// A resize of images of one size to another, its weight tables computed once: make one per
/// (source size, output size, filter) and resample any number of frames with it.
///
/// How a resize is computed:
/// - **Separable**: each source row is filtered horizontally into a small ring of rows, and each
///   output row is a weighted sum of the ring's rows (the vertical pass). Every intermediate is
///   `Float32` RGBA, one `SIMD4<Float>` per pixel, so 8- and 16-bit inputs keep more than 16
///   bits of precision until the single rounding at the end.
/// - **Premultiplied alpha**: colour is multiplied by alpha before filtering and divided by it
///   after, so transparent pixels lend no colour to their neighbours (no dark or light fringe
///   at the edge of an opaque shape on a transparent field). Colour is clamped to alpha before
///   the division (Lanczos ringing can overshoot), and an output pixel whose alpha rounds to 0
///   is written as (0, 0, 0, 0).
/// - **Linear light** (optional): with `linear`, the R, G and B samples are decoded from sRGB
///   to linear light before filtering (and before premultiplying) and encoded back after
///   un-premultiplying; alpha is always linear. Averaging linear light keeps the brightness
///   of fine detail (a black-and-white checkerboard becomes the grey of equal light, not the
///   darker sRGB mid-grey); averaging encoded values (the default, as most tools do) darkens it
///   but matches what other tools produce.
/// - **Both cores**: a large resize computes the top and bottom halves of the output on two
///   threads at once (a fork and join of two threads); source rows where the halves meet are
///   filtered by both.
///
/// A `Resampler` is an immutable `Sendable` value; ``resample(_:)`` is synchronous CPU work
/// with no isolation, so call it from a `@concurrent` function or a background task, never
/// from the main actor.
public struct Resampler: Sendable {
    /// The size of the images this resampler takes.
    public let sourceSize: PixelSize
    /// The size of the images it makes.
    public let outputSize: PixelSize
    /// The reconstruction filter.
    public let filter: ResampleFilter
    /// Whether filtering happens in linear light (see the type's documentation).
    public let linear: Bool
    /// The transfer curve that linear light undoes: sRGB's unless the image's profile has its
    /// own (``withTransfer(_:)``).
    public private(set) var transfer: TransferCurve = .sRGB

    /// This resampler, undoing `curve` instead of sRGB's when it filters in linear light.
    public func withTransfer(_ curve: TransferCurve) -> Resampler {
        var copy = self
        copy.transfer = curve
        copy.preReduction = preReduction.map { $0.withTransfer(curve) }
        return copy
    }

    /// Whether large reductions start with a box pre-reduction (the thumbnail fast path).
    public let shrinksFirst: Bool

    /// The size the whole image (or its ``window``) is scaled to, and the part of it kept (the
    /// output).
    let scaledSize: PixelSize
    let crop: FrameRegion
    /// The box of the source that is scaled, when not the whole of it.
    let window: SourceWindow?
    let horizontal: ResampleWeights
    let vertical: ResampleWeights
    /// The box pre-reduction run before the weights above, when ``shrinksFirst`` chose one:
    /// none or one element (an array, because a struct cannot hold itself).
    private(set) var preReduction: [Resampler]
    /// Whether both passes run on 256-bit vectors (CResample), as they do where the processor has
    /// AVX. The results are the same to the bit either way (each lane does the Swift loop's
    /// arithmetic in its order); tests turn it off to check that.
    var usesWideVectors = Resampler.hasWideVectors
    /// Whether this processor and system have AVX.
    static let hasWideVectors = MemoryLayout<Int>.size == 8 && imgtool_resample_has_avx() != 0

    /// A resize of `source`-sized images to `size`, aspect ratio as given.
    /// - Parameters:
    ///   - source: the size of the images to resize.
    ///   - size: the output size.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light (decode sRGB before, encode after). Default `false`.
    ///   - shrinkingFirst: reduce large reductions with a box filter first. Default `false`.
    ///   - limits: the output is checked against `limits.maxPixels` before anything is
    ///     allocated. Default ``DecodingLimits/default``.
    /// - Throws: ``ImgToolError`` `invalidArgument` when a size is empty or negative; `tooLarge`
    ///   when the output passes the limit.
    public init(
        from source: PixelSize, to size: PixelSize, filter: ResampleFilter = .lanczos3, linear: Bool = false,
        shrinkingFirst: Bool = false, limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        try self.init(
            from: source, scaledTo: size, croppedTo: FrameRegion(x: 0, y: 0, width: size.width, height: size.height),
            filter: filter, linear: linear, shrinkingFirst: shrinkingFirst, limits: limits)
    }

    /// A resize of `source`-sized images to `scaled`, keeping only the part `crop` of the scaled
    /// image (as `cover` needs). Pixels outside `crop` are never computed, so the scaled size may
    /// be far larger than the output.
    /// - Parameters:
    ///   - source: the size of the images to resize.
    ///   - scaled: the size the whole image is scaled to.
    ///   - crop: the part of the scaled image kept, within it; the output has its size.
    ///   - filter: the reconstruction filter. Default ``ResampleFilter/lanczos3``.
    ///   - linear: filter in linear light. Default `false`.
    ///   - shrinkingFirst: the thumbnail fast path, as vipsthumbnail's shrink before its
    ///     reduce: where an axis shrinks by 4 or more, the image is first reduced along it by a
    ///     whole factor with the box filter (to between 2 and 3 times the output there, rounded
    ///     to the input's depth), then `filter` does the rest. Several times faster for large
    ///     reductions, slightly softer than `filter` alone. A JPEG or PNG resized as it is decoded
    ///     (``ResizedFrameSource``) skips it: there the filter alone is as fast. Default `false`.
    ///   - limits: the output is checked against `limits.maxPixels`. Default ``DecodingLimits/default``.
    /// - Throws: ``ImgToolError`` `invalidArgument` when a size is empty or the crop is outside
    ///   the scaled image; `tooLarge` when the output passes the limit.
    public init(
        from source: PixelSize, scaledTo scaled: PixelSize, croppedTo crop: FrameRegion,
        filter: ResampleFilter = .lanczos3, linear: Bool = false, shrinkingFirst: Bool = false,
        limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        guard source.width > 0, source.height > 0 else {
            throw ImgToolError(.invalidArgument, "cannot resize an empty \(source) image")
        }
        guard scaled.width > 0, scaled.height > 0 else {
            throw ImgToolError(.invalidArgument, "cannot resize to \(scaled): both sides must be at least 1 pixel")
        }
        guard crop.width > 0, crop.height > 0, crop.clipped(toWidth: scaled.width, height: scaled.height) == crop
        else {
            throw ImgToolError(.invalidArgument, "the crop \(crop) is not inside the \(scaled) scaled image")
        }
        try limits.checkPixels(width: crop.width, height: crop.height, what: "the resized image")
        self.init(
            checkedFrom: source, scaledTo: scaled, croppedTo: crop, filter: filter, linear: linear,
            shrinkingFirst: shrinkingFirst)
    }

    /// The resize of ``init(from:scaledTo:croppedTo:filter:linear:limits:)`` for arguments the
    /// caller has checked (non-empty sizes, the crop inside the scaled size, the output within
    /// its limits): overlays sized to a background, whose output is never larger than the
    /// background.
    ///
    /// With a `window`, that box of the source (in fractions of pixels, inside it) is what is
    /// scaled to `scaled`, rather than the whole source: a crop carried to a smaller decode.
    init(
        checkedFrom source: PixelSize, scaledTo scaled: PixelSize, croppedTo crop: FrameRegion,
        filter: ResampleFilter, linear: Bool, shrinkingFirst: Bool = false, window: SourceWindow? = nil
    ) {
        precondition(source.width > 0 && source.height > 0 && crop.width > 0 && crop.height > 0, "empty resize")
        precondition(window == nil || !shrinkingFirst, "a window is resized by the filter alone")
        self.window = window
        sourceSize = source
        outputSize = PixelSize(width: crop.width, height: crop.height)
        scaledSize = scaled
        self.crop = crop
        self.filter = filter
        self.linear = linear
        shrinksFirst = shrinkingFirst
        // The whole factor of each axis's box pre-reduction: the reduction halved, so that the
        // filter still reduces by 2 to 3 (a factor of 1 leaves the axis alone).
        let factorX = shrinkingFirst && filter != .box ? max(source.width / (2 * scaled.width), 1) : 1
        let factorY = shrinkingFirst && filter != .box ? max(source.height / (2 * scaled.height), 1) : 1
        var stage = source
        if factorX > 1 || factorY > 1 {
            stage = PixelSize(
                width: (source.width + factorX / 2) / factorX, height: (source.height + factorY / 2) / factorY)
            preReduction = [
                Resampler(
                    checkedFrom: source, scaledTo: stage,
                    croppedTo: FrameRegion(x: 0, y: 0, width: stage.width, height: stage.height), filter: .box,
                    linear: linear)
            ]
        } else {
            preReduction = []
        }
        horizontal = ResampleWeights(
            filter: filter, sourceCount: stage.width, scaledCount: scaled.width,
            outputRange: crop.x..<crop.x + crop.width, window: window.map { $0.x...($0.x + $0.width) })
        vertical = ResampleWeights(
            filter: filter, sourceCount: stage.height, scaledCount: scaled.height,
            outputRange: crop.y..<crop.y + crop.height, window: window.map { $0.y...($0.y + $0.height) })
    }

    /// A box of the source in fractions of pixels.
    struct SourceWindow: Sendable, Hashable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    /// `image` resized: ``outputSize``, the same depth, straight alpha.
    ///
    /// An identity resize (same size, no crop) returns `image` unchanged.
    /// - Parameter image: a ``sourceSize`` image, 8- or 16-bit.
    /// - Throws: ``ImgToolError`` `invalidArgument` when `image` is not ``sourceSize``;
    ///   `cancelled` when the current task is cancelled before the work starts.
    public func resample(_ image: PixelBuffer) throws(ImgToolError) -> PixelBuffer {
        guard image.width == sourceSize.width, image.height == sourceSize.height else {
            throw ImgToolError(
                .invalidArgument,
                "this resampler takes \(sourceSize) images, not \(image.width)x\(image.height)")
        }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before resizing") }
        return resampleChecked(image)
    }

    /// `image` resized and flattened onto `background`: every output pixel opaque, its colour
    /// the resized premultiplied colour plus `background` times the transparency left, computed
    /// before the single rounding (in linear light with ``linear``). The background's alpha is
    /// ignored. This is what a terminal or an encoder without alpha needs, without the double
    /// rounding of un-premultiplying first.
    /// - Parameters:
    ///   - image: a ``sourceSize`` image, 8- or 16-bit.
    ///   - background: the colour under the image.
    /// - Throws: ``ImgToolError`` `invalidArgument` when `image` is not ``sourceSize``; `cancelled`.
    public func resample(_ image: PixelBuffer, flattenedOnto background: RGBAColor) throws(ImgToolError)
        -> PixelBuffer
    {
        guard image.width == sourceSize.width, image.height == sourceSize.height else {
            throw ImgToolError(
                .invalidArgument,
                "this resampler takes \(sourceSize) images, not \(image.width)x\(image.height)")
        }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before resizing") }
        return resampleChecked(image, background: background)
    }

    /// ``resample(_:)`` for an image the caller knows is ``sourceSize``, without the
    /// cancellation check; flattened onto `background` when given.
    func resampleChecked(_ image: PixelBuffer, background: RGBAColor? = nil) -> PixelBuffer {
        precondition(image.width == sourceSize.width && image.height == sourceSize.height, "wrong source size")
        if let pre = preReduction.first {
            var result = resampleStage(pre.resampleChecked(image), background: background)
            result.metadata = image.metadata
            return result
        }
        return resampleStage(image, background: background)
    }

    /// The main stage: `image` (``sourceSize``, or the pre-reduction's output) through the
    /// weights.
    private func resampleStage(_ image: PixelBuffer, background: RGBAColor?) -> PixelBuffer {
        if background == nil && horizontal.isIdentity && vertical.isIdentity { return image }
        var result: PixelBuffer
        switch image.samples {
        case .rgba8(let samples):
            let conversion = Conversion(maximum: 255, linear: linear, transfer: transfer, background: background)
            result = PixelBuffer(
                width: outputSize.width, height: outputSize.height, rgba8: render(samples, conversion))
        case .rgba16(let samples):
            let conversion = Conversion(maximum: 65535, linear: linear, transfer: transfer, background: background)
            result = PixelBuffer(
                width: outputSize.width, height: outputSize.height, rgba16: render(samples, conversion))
        }
        result.metadata = image.metadata
        return result
    }

    /// How samples become filtered floats and back.
    struct Conversion: Sendable {
        /// The largest sample: 255 or 65535.
        let maximum: Float
        /// sRGB to linear light in sample units, by sample value, or `nil`.
        let decode: [Float]?
        /// Linear light `i / 65535` to sRGB `0...1`, or `nil`.
        let encode: [Float]?
        /// The colour to flatten onto, in sample units (linear light with `decode`), or `nil`.
        let background: SIMD4<Float>?

        init(maximum: Float, linear: Bool, transfer: TransferCurve = .sRGB, background: RGBAColor?) {
            self.maximum = maximum
            decode = linear ? (maximum == 255 ? transfer.decode8 : transfer.decode16) : nil
            encode = linear ? transfer.encode16 : nil
            self.background = background.map { color in
                let values = [color.red, color.green, color.blue].map { channel in
                    linear
                        ? transfer.decoded(channel, maximum: maximum)
                        : Float(channel) * maximum / 255
                }
                return SIMD4<Float>(values[0], values[1], values[2], 0)
            }
        }
    }

    /// Sources or outputs with at least this many pixels are computed in two bands at once;
    /// below it a second thread costs more than it saves.
    static let parallelThreshold = 1 << 18

    /// Every output sample, in two bands on two threads when the work is large enough.
    private func render<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar & Sendable>(
        _ samples: [Sample], _ conversion: Conversion
    ) -> [Sample] {
        let height = outputSize.height
        let rowLength = outputSize.width * 4
        let work = max(horizontal.sourceCount * vertical.sourceCount, outputSize.width * height)
        let split = work >= Self.parallelThreshold && height >= 2 && availableProcessors > 1 ? height / 2 : 0
        return [Sample](unsharedUninitializedCapacity: rowLength * height) { output, initialized in
            if split == 0 {
                renderBand(rows: 0..<height, of: samples, conversion: conversion, into: output)
            } else {
                let top = forkJoin(
                    { [self] in
                        [Sample](unsharedUninitializedCapacity: rowLength * split) { band, count in
                            renderBand(rows: 0..<split, of: samples, conversion: conversion, into: band)
                            count = rowLength * split
                        }
                    },
                    alongside: {
                        renderBand(
                            rows: split..<height, of: samples, conversion: conversion,
                            into: UnsafeMutableBufferPointer(rebasing: output[(rowLength * split)...]))
                    }
                ).side
                _ = UnsafeMutableBufferPointer(rebasing: output[..<(rowLength * split)]).initialize(from: top)
            }
            initialized = rowLength * height
        }
    }

    /// Output rows `rows` into `output` (which starts at the first of them), from the whole
    /// source image: its rows go through a ``Band`` in order.
    private func renderBand<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar>(
        rows: Range<Int>, of samples: [Sample], conversion: Conversion,
        into output: UnsafeMutableBufferPointer<Sample>
    ) {
        let band = Band(self, rows: rows, conversion: conversion, output: output)
        let rowLength = horizontal.sourceCount * 4
        samples.withUnsafeBufferPointer { samples in
            for row in band.sourceRows {
                band.push(row: row, UnsafeBufferPointer(rebasing: samples[row * rowLength..<(row + 1) * rowLength]))
            }
        }
    }

    /// The output rows ``rows`` of a resize, computed from source rows handed over one at a time,
    /// top to bottom, each of ``sourceRows`` once: a source row is filtered horizontally into a
    /// ring of the vertical pass's widest span of rows as it comes, and an output row is computed
    /// as soon as the last source row it reads has come. Whether the rows come from an image held
    /// whole or straight from a decoder, every sample is the same.
    ///
    /// Owned by one thread; its buffers are freed with it.
    final class Band<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar> {
        /// The output rows computed.
        let rows: Range<Int>
        /// The source rows they read, in the order ``push(row:_:)`` takes them.
        let sourceRows: Range<Int>
        private let resampler: Resampler
        private let conversion: Conversion
        /// Where output row `rows.lowerBound` goes; the rest follow.
        private let output: UnsafeMutableBufferPointer<Sample>
        private let horizontalIsIdentity: Bool
        /// Converting while filtering (see ``init(_:rows:conversion:output:)``).
        private let fused: Bool
        /// The next output row to compute.
        private var next: Int
        /// Filtered source rows: row `r` in slot `r % ringSize`.
        private let ring: UnsafeMutableBufferPointer<SIMD4<Float>>
        private let ringSize: Int
        /// Source rows as premultiplied floats, before the horizontal pass: one, or two when
        /// rows are paired (the second row after the first).
        private let rowBuffer: UnsafeMutableBufferPointer<SIMD4<Float>>
        /// Whether source rows are filtered in pairs that read the weights once (the wide-vector
        /// horizontal pass that is not fused with the conversion): on the 4096x4096 JPEG's resize
        /// to 512, one core, 117 ms of CPU alone, 107 ms in pairs (and in fours).
        private let pairsRows: Bool
        /// The source row loaded first in ``rowBuffer`` and waiting for its partner.
        private var pendingRow: Int?
        private let accumulator: UnsafeMutableBufferPointer<SIMD4<Float>>
        /// The ring rows an output row reads, reused from row to row.
        private var rowsOfTaps: [UnsafeMutablePointer<SIMD4<Float>>] = []

        /// A band writing output rows `rows` of `resampler` to `output`.
        init(
            _ resampler: Resampler, rows: Range<Int>, conversion: Conversion,
            output: UnsafeMutableBufferPointer<Sample>
        ) {
            let vertical = resampler.vertical
            let horizontal = resampler.horizontal
            var lower = Int.max
            var upper = 0
            for y in rows {
                lower = min(lower, vertical.firsts[y])
                upper = max(upper, vertical.firsts[y] + vertical.tapCounts[y])
            }
            self.rows = rows
            sourceRows = rows.isEmpty ? 0..<0 : lower..<upper
            self.resampler = resampler
            self.conversion = conversion
            self.output = output
            horizontalIsIdentity = horizontal.isIdentity
            // When each source pixel feeds at most about two output pixels (box, or any filter at
            // a small reduction), converting while filtering beats converting the row first.
            fused = conversion.decode == nil && horizontal.tapCounts.reduce(0, +) <= 2 * horizontal.sourceCount
            next = rows.lowerBound
            pairsRows = resampler.usesWideVectors && !horizontalIsIdentity && !fused
            // A pair's first row is written to the ring before the outputs it completes are
            // emitted: one more slot keeps its partner from overwriting a row those outputs read.
            ringSize = vertical.stride + (pairsRows ? 1 : 0)
            let width = resampler.outputSize.width
            ring = .allocate(capacity: ringSize * width)
            ring.initialize(repeating: .zero)
            rowBuffer = .allocate(capacity: (pairsRows ? 2 : 1) * horizontal.sourceCount)
            rowBuffer.initialize(repeating: .zero)
            accumulator = .allocate(capacity: width)
            accumulator.initialize(repeating: .zero)
            rowsOfTaps.reserveCapacity(ringSize)
        }

        deinit {
            ring.deallocate()
            rowBuffer.deallocate()
            accumulator.deallocate()
        }

        /// Takes source row `row` (straight samples, ``sourceSize`` wide), the one after the
        /// last taken, and computes every output row it completes.
        func push(row: Int, _ samples: UnsafeBufferPointer<Sample>) {
            let width = resampler.outputSize.width
            let slot = row % ringSize
            let target = UnsafeMutableBufferPointer(rebasing: ring[slot * width..<(slot + 1) * width])
            if horizontalIsIdentity {
                Resampler.load(samples, decode: conversion.decode, into: target)
            } else if fused {
                resampler.horizontal.weights.withUnsafeBufferPointer { weights in
                    resampler.filterRow(samples: samples, weights: weights, into: target)
                }
            } else {
                let length = resampler.horizontal.sourceCount
                let first = UnsafeMutableBufferPointer(rebasing: rowBuffer[0..<length])
                if let pending = pendingRow {
                    // The partner of a waiting row: both filtered in one pass over the weights.
                    let second = UnsafeMutableBufferPointer(rebasing: rowBuffer[length..<2 * length])
                    load(samples, into: second)
                    let pendingSlot = (pending % ringSize) * width
                    resampler.filterRows(
                        first, second,
                        into: UnsafeMutableBufferPointer(rebasing: ring[pendingSlot..<pendingSlot + width]),
                        target)
                    pendingRow = nil
                } else {
                    load(samples, into: first)
                    // Paired rows wait for their partner; the band's last row goes alone.
                    if pairsRows, row + 1 < sourceRows.upperBound {
                        pendingRow = row
                        return
                    }
                    resampler.filterRow(first, into: target)
                }
            }
            let vertical = resampler.vertical
            while next < rows.upperBound, vertical.firsts[next] + vertical.tapCounts[next] <= row + 1 {
                emit(next)
                next += 1
            }
        }

        /// `samples` as premultiplied floats in `row`.
        private func load(_ samples: UnsafeBufferPointer<Sample>, into row: UnsafeMutableBufferPointer<SIMD4<Float>>) {
            if Sample.self == UInt8.self, conversion.decode == nil, resampler.usesWideVectors,
                let pixels = samples.baseAddress
            {
                imgtool_resample_load_rgba8(
                    UnsafeRawPointer(pixels).assumingMemoryBound(to: UInt8.self), Int64(row.count), row.baseAddress)
            } else {
                Resampler.load(samples, decode: conversion.decode, into: row)
            }
        }

        /// Output row `y`: the vertical weights applied to its rows in the ring.
        private func emit(_ y: Int) {
            let vertical = resampler.vertical
            let width = resampler.outputSize.width
            let first = vertical.firsts[y]
            rowsOfTaps.removeAll(keepingCapacity: true)
            for row in first..<first + vertical.tapCounts[y] {
                rowsOfTaps.append(ring.baseAddress.unsafelyUnwrapped + (row % ringSize) * width)
            }
            vertical.weights.withUnsafeBufferPointer { weights in
                let rowWeights = weights.baseAddress.unsafelyUnwrapped + y * vertical.stride
                if resampler.usesWideVectors {
                    rowsOfTaps.withUnsafeBufferPointer { rows in
                        imgtool_resample_accumulate(
                            UnsafeRawPointer(rows.baseAddress.unsafelyUnwrapped)
                                .assumingMemoryBound(to: UnsafeRawPointer?.self),
                            rowWeights, Int64(rows.count), accumulator.baseAddress, Int64(accumulator.count))
                    }
                } else {
                    Resampler.accumulate(rowsOfTaps, weights: rowWeights, into: accumulator)
                }
            }
            let start = (y - rows.lowerBound) * width * 4
            Resampler.store(
                accumulator, conversion: conversion, wide: resampler.usesWideVectors,
                into: UnsafeMutableBufferPointer(rebasing: output[start..<start + width * 4]))
        }
    }

    /// One source row, premultiplied, filtered to the output's width. Four partial sums per
    /// output pixel, so that consecutive taps do not wait on each other's addition, and weights
    /// already in every lane (``ResampleWeights/splatWeights``).
    private func filterRow(
        _ source: UnsafeMutableBufferPointer<SIMD4<Float>>, into target: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        let stride = horizontal.stride
        guard let pixels = source.baseAddress else { return }
        if usesWideVectors, let out = target.baseAddress {
            horizontal.splatWeights.withUnsafeBufferPointer { splat in
                horizontal.firsts.withUnsafeBufferPointer { firsts in
                    horizontal.tapCounts.withUnsafeBufferPointer { tapCounts in
                        imgtool_resample_filter_row(
                            pixels, firsts.baseAddress, tapCounts.baseAddress, splat.baseAddress, Int64(stride), out,
                            Int64(target.count))
                    }
                }
            }
            return
        }
        horizontal.splatWeights.withUnsafeBufferPointer { splat in
            horizontal.firsts.withUnsafeBufferPointer { firsts in
                horizontal.tapCounts.withUnsafeBufferPointer { tapCounts in
                    guard let splat = splat.baseAddress else { return }
                    for x in 0..<target.count {
                        let from = pixels + firsts[x]
                        let weights = splat + x &* stride
                        let taps = tapCounts[x]
                        var sum0 = SIMD4<Float>.zero
                        var sum1 = SIMD4<Float>.zero
                        var sum2 = SIMD4<Float>.zero
                        var sum3 = SIMD4<Float>.zero
                        var tap = 0
                        while tap &+ 3 < taps {
                            sum0 += from[tap] * weights[tap]
                            sum1 += from[tap &+ 1] * weights[tap &+ 1]
                            sum2 += from[tap &+ 2] * weights[tap &+ 2]
                            sum3 += from[tap &+ 3] * weights[tap &+ 3]
                            tap &+= 4
                        }
                        while tap < taps {
                            sum0 += from[tap] * weights[tap]
                            tap &+= 1
                        }
                        target[x] = (sum0 + sum1) + (sum2 + sum3)
                    }
                }
            }
        }
    }

    /// ``filterRow(_:into:)`` of two source rows with the wide vectors, the weights read once:
    /// each target the same as its row filtered alone.
    private func filterRows(
        _ first: UnsafeMutableBufferPointer<SIMD4<Float>>, _ second: UnsafeMutableBufferPointer<SIMD4<Float>>,
        into firstTarget: UnsafeMutableBufferPointer<SIMD4<Float>>,
        _ secondTarget: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        horizontal.splatWeights.withUnsafeBufferPointer { splat in
            horizontal.firsts.withUnsafeBufferPointer { firsts in
                horizontal.tapCounts.withUnsafeBufferPointer { tapCounts in
                    imgtool_resample_filter_rows2(
                        first.baseAddress, second.baseAddress, firsts.baseAddress, tapCounts.baseAddress,
                        splat.baseAddress, Int64(horizontal.stride), firstTarget.baseAddress,
                        secondTarget.baseAddress, Int64(firstTarget.count))
                }
            }
        }
    }

    /// `accumulator` set to the sum of `rows` (each ``outputSize`` wide) times their weights,
    /// four rows at a time so that each accumulated pixel is loaded and stored once per four.
    @inline(__always)
    private static func accumulate(
        _ rows: [UnsafeMutablePointer<SIMD4<Float>>], weights: UnsafePointer<Float>,
        into accumulator: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        guard let out = accumulator.baseAddress else { return }
        let width = accumulator.count
        var tap = 0
        var started = false
        while tap < rows.count {
            let group = min(rows.count &- tap, 4)
            let w0 = SIMD4<Float>(repeating: weights[tap])
            let r0 = rows[tap]
            switch group {
            case 4:
                let (r1, r2, r3) = (rows[tap &+ 1], rows[tap &+ 2], rows[tap &+ 3])
                let w1 = SIMD4<Float>(repeating: weights[tap &+ 1])
                let w2 = SIMD4<Float>(repeating: weights[tap &+ 2])
                let w3 = SIMD4<Float>(repeating: weights[tap &+ 3])
                if started {
                    for x in 0..<width { out[x] += (r0[x] * w0 + r1[x] * w1) + (r2[x] * w2 + r3[x] * w3) }
                } else {
                    for x in 0..<width { out[x] = (r0[x] * w0 + r1[x] * w1) + (r2[x] * w2 + r3[x] * w3) }
                }
            case 3:
                let (r1, r2) = (rows[tap &+ 1], rows[tap &+ 2])
                let w1 = SIMD4<Float>(repeating: weights[tap &+ 1])
                let w2 = SIMD4<Float>(repeating: weights[tap &+ 2])
                if started {
                    for x in 0..<width { out[x] += (r0[x] * w0 + r1[x] * w1) + r2[x] * w2 }
                } else {
                    for x in 0..<width { out[x] = (r0[x] * w0 + r1[x] * w1) + r2[x] * w2 }
                }
            case 2:
                let r1 = rows[tap &+ 1]
                let w1 = SIMD4<Float>(repeating: weights[tap &+ 1])
                if started {
                    for x in 0..<width { out[x] += r0[x] * w0 + r1[x] * w1 }
                } else {
                    for x in 0..<width { out[x] = r0[x] * w0 + r1[x] * w1 }
                }
            default:
                if started {
                    for x in 0..<width { out[x] += r0[x] * w0 }
                } else {
                    for x in 0..<width { out[x] = r0[x] * w0 }
                }
            }
            started = true
            tap &+= group
        }
    }

    /// One row of straight samples, premultiplied as it is read and filtered to the output's
    /// width in the same loop.
    private func filterRow<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar>(
        samples source: UnsafeBufferPointer<Sample>, weights: UnsafeBufferPointer<Float>,
        into target: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        guard let base = source.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let pixelBytes = 4 * MemoryLayout<Sample>.stride
        let stride = horizontal.stride
        horizontal.firsts.withUnsafeBufferPointer { firsts in
            horizontal.tapCounts.withUnsafeBufferPointer { tapCounts in
                for x in 0..<target.count {
                    var offset = firsts[x] * pixelBytes
                    let base = x * stride
                    // Lanes 0-2 of the sums add up r·a·w (lane 3, a·a·w, is not used), the alpha
                    // sums a·w; two of each, so that consecutive taps do not wait on each other.
                    var sum = SIMD4<Float>.zero
                    var other = SIMD4<Float>.zero
                    var alphaSum: Float = 0
                    var otherAlpha: Float = 0
                    let taps = tapCounts[x]
                    var tap = 0
                    while tap + 1 < taps {
                        let pixel = SIMD4<Float>(raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self))
                        let next = SIMD4<Float>(
                            raw.loadUnaligned(fromByteOffset: offset + pixelBytes, as: SIMD4<Sample>.self))
                        let alphaWeight = pixel[3] * weights[base + tap]
                        let nextWeight = next[3] * weights[base + tap + 1]
                        sum += pixel * alphaWeight
                        other += next * nextWeight
                        alphaSum += alphaWeight
                        otherAlpha += nextWeight
                        offset += 2 * pixelBytes
                        tap += 2
                    }
                    if tap < taps {
                        let pixel = SIMD4<Float>(raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self))
                        let alphaWeight = pixel[3] * weights[base + tap]
                        sum += pixel * alphaWeight
                        alphaSum += alphaWeight
                    }
                    sum += other
                    alphaSum += otherAlpha
                    sum[3] = alphaSum
                    target[x] = sum
                }
            }
        }
    }

    /// Straight samples to premultiplied floats in sample units: `(r·a, g·a, b·a, a)`, colour
    /// decoded to linear light first (by the table `decode`, scaled to the sample range) when
    /// given.
    @inline(__always)
    private static func load<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar>(
        _ source: UnsafeBufferPointer<Sample>, decode: [Float]?,
        into target: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        if let decode {
            decode.withUnsafeBufferPointer { table in
                for x in 0..<target.count {
                    let alpha = Float(source[x * 4 + 3])
                    target[x] =
                        SIMD4<Float>(
                            table[Int(source[x * 4])], table[Int(source[x * 4 + 1])], table[Int(source[x * 4 + 2])], 1)
                        * SIMD4<Float>(alpha, alpha, alpha, alpha)
                }
            }
            return
        }
        guard let base = source.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let pixelBytes = 4 * MemoryLayout<Sample>.stride
        for x in 0..<target.count {
            let pixel = SIMD4<Float>(raw.loadUnaligned(fromByteOffset: x &* pixelBytes, as: SIMD4<Sample>.self))
            target[x] = pixel * SIMD4<Float>(pixel[3], pixel[3], pixel[3], 1)
        }
    }

    /// Premultiplied floats (sample units) back to straight samples, rounded half up: alpha
    /// clamped to `0...maximum`, colour to `0...alpha·maximum` before the division by alpha (so
    /// ringing cannot overshoot), and a pixel whose alpha rounds to 0 written as (0, 0, 0, 0).
    /// With a background, premultiplied colour plus the background times the transparency left,
    /// opaque.
    @inline(__always)
    private static func store<Sample: FixedWidthInteger & UnsignedInteger>(
        _ pixels: UnsafeMutableBufferPointer<SIMD4<Float>>, conversion: Conversion, wide: Bool,
        into target: UnsafeMutableBufferPointer<Sample>
    ) {
        if wide, Sample.self == UInt8.self, conversion.encode == nil, conversion.background == nil,
            let base = target.baseAddress
        {
            imgtool_resample_store_rgba8(
                pixels.baseAddress, Int64(pixels.count),
                UnsafeMutableRawPointer(base).assumingMemoryBound(to: UInt8.self), conversion.maximum)
            return
        }
        let maximum = conversion.maximum
        let toTable = 65535 / maximum
        let encode = conversion.encode
        for x in 0..<pixels.count {
            let pixel = pixels[x]
            let alpha = min(max(pixel[3], 0), maximum)
            var straight: SIMD4<Float>
            if let background = conversion.background {
                let limit = alpha * maximum
                straight =
                    Self.clamp(pixel, limit) / maximum
                    + background * ((maximum - alpha) / maximum)
                straight[3] = maximum
            } else {
                guard alpha >= 0.5 else {
                    target[x * 4] = 0
                    target[x * 4 + 1] = 0
                    target[x * 4 + 2] = 0
                    target[x * 4 + 3] = 0
                    continue
                }
                let limit = alpha * maximum
                straight =
                    Self.clamp(pixel, limit)
                    / SIMD4<Float>(alpha, alpha, alpha, 1)
                straight[3] = alpha
            }
            if let encode {
                straight[0] = encode[Int(min(straight[0], maximum) * toTable + 0.5)] * maximum
                straight[1] = encode[Int(min(straight[1], maximum) * toTable + 0.5)] * maximum
                straight[2] = encode[Int(min(straight[2], maximum) * toTable + 0.5)] * maximum
            }
            // Every lane is in 0.5 ... maximum + 0.5, so truncation is the floor (one conversion
            // instruction, where `rounded(.down)` was a call to `floorf` per lane).
            let half = Self.clamp(straight, maximum) + 0.5
            target[x * 4] = Sample(truncatingIfNeeded: Int32(half[0]))
            target[x * 4 + 1] = Sample(truncatingIfNeeded: Int32(half[1]))
            target[x * 4 + 2] = Sample(truncatingIfNeeded: Int32(half[2]))
            target[x * 4 + 3] = Sample(truncatingIfNeeded: Int32(half[3]))
        }
    }

    /// Every lane of `value` within `0...limit` (lane by lane: the standard library's
    /// `clamped` is a call per vector here).
    @inline(__always)
    private static func clamp(_ value: SIMD4<Float>, _ limit: Float) -> SIMD4<Float> {
        SIMD4<Float>(
            Swift.min(Swift.max(value[0], 0), limit), Swift.min(Swift.max(value[1], 0), limit),
            Swift.min(Swift.max(value[2], 0), limit), Swift.min(Swift.max(value[3], 0), limit))
    }
}
