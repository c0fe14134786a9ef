#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes an animated PNG one frame at a time, holding only the previous frame.
///
/// Each frame is given whole (canvas-sized, as a player shows it). The writer stores frame 0
/// whole, as the default image (IDAT), and every later frame as the smallest rectangle that
/// differs from the frame before it (`dispose_op` none, `blend_op` source), so the file decodes
/// to exactly the frames given, and a frame that changes a few pixels costs a few bytes. Each
/// rectangle is filtered and compressed as ``PNGEncoder`` does a still's rows, into fdAT
/// chunks. A delay is written as an exact fraction when it has one with 16-bit terms,
/// otherwise in milliseconds chosen so that frame start times never drift.
///
/// A frame equal to the one before it is not stored: its delay is added to that frame's, when
/// the output can be rewritten (memory, or a file that can seek), since acTL, written
/// first, then gets the number of frames stored at ``finish()``. On a pipe such a frame is
/// stored as one unchanged pixel, and acTL keeps ``frameCount``.
///
/// Every frame is stored with the same colour type and depth, as APNG requires: RGB or RGBA
/// (``hasAlpha``), 8 or 16 bits (``depth``);
/// ``FrameSource/writePNG(toFileDescriptor:plays:depth:encoder:progress:)`` also finds the
/// smallest storage that fits every frame (a palette, grey). Decoders without APNG
/// support show frame 0.
///
/// A writer is a one-shot object used inside one task and never shared. The corresponding tools
/// are apngasm and ffmpeg's APNG muxer.
public final class APNGWriter {
    /// Canvas width in pixels.
    public let width: Int
    /// Canvas height in pixels.
    public let height: Int
    /// How many frames will be appended (acTL's `num_frames`, written before the first frame).
    public let frameCount: Int
    /// How many times the animation plays, 0 meaning forever (acTL's `num_plays`).
    public let plays: Int
    /// Sample depth of the frames taken: 16 when the file stores 16-bit samples.
    public var depth: SampleDepth { layout.bitDepth == 16 ? .sixteen : .eight }
    /// Whether the file stores alpha (an alpha channel, or a palette with translucent entries);
    /// without it every pixel must be opaque.
    public var hasAlpha: Bool {
        switch layout.colorType {
        case .rgba, .grayAlpha: true
        case .palette: layout.palette.contains { $0 >> 24 != 0xff }
        case .rgb, .gray: false
        }
    }

    private(set) var sink: ByteSink
    private let encoder: PNGEncoder
    private let layout: PNGLayout
    private var delays = APNGDelayWriter()
    private var previous: PixelBuffer?
    /// Whether a frame equal to the one before is merged into its delay.
    private let mergesRepeats: Bool
    /// The delay of the last frame staged that is not a repeat, with its repeats merged so far.
    private var mergedDelay = Duration.zero
    /// The longest delay an fcTL holds.
    private static let longestDelay = AnimationLimits.apng.longestDelay
    /// Where acTL starts, in bytes from the start of the file.
    private var actlOffset = 0
    /// The last frame committed, written once the next frame shows it is not repeated.
    private var pending: CompressedFrame?
    private var stagedCount = 0
    private var framesCommitted = 0
    private var framesWritten = 0
    private var sequenceNumber: UInt32 = 0
    private var finished = false

    /// Largest IDAT or fdAT chunk written.
    static let chunkBytes = 1 << 20

    /// Starts an animation that goes to the open file descriptor `fileDescriptor` (not closed
    /// here), and writes its signature, IHDR and acTL.
    /// - Parameters:
    ///   - fileDescriptor: where the bytes go, as they are produced.
    ///   - width: canvas width, 1 ... 2^31 - 1.
    ///   - height: canvas height, 1 ... 2^31 - 1.
    ///   - frameCount: how many frames will be appended, 1 ... 2^31 - 1.
    ///   - plays: how many times it plays, 0 (forever) ... 2^31 - 1.
    ///   - depth: sample depth stored. Default 8 bits.
    ///   - hasAlpha: whether to store alpha. Default `true`.
    ///   - encoder: zlib level and strategy for each frame. Default: chosen per frame.
    /// - Throws: ``ImgToolError`` `invalidArgument` for a size or count out of range, `writeFailed`.
    public convenience init(
        fileDescriptor: Int32, width: Int, height: Int, frameCount: Int, plays: Int, depth: SampleDepth = .eight,
        hasAlpha: Bool = true, encoder: PNGEncoder = PNGEncoder()
    ) throws(ImgToolError) {
        try self.init(
            sink: ByteSink(fileDescriptor: fileDescriptor), width: width, height: height, frameCount: frameCount,
            plays: plays, layout: .trueColor(alpha: hasAlpha, depth: depth),
            encoder: encoder)
    }

    /// Starts an animation kept in memory (read it from ``data`` after ``finish()``).
    /// - Parameters: as ``init(fileDescriptor:width:height:frameCount:plays:depth:hasAlpha:encoder:)``.
    /// - Throws: ``ImgToolError`` `invalidArgument` for a size or count out of range.
    public convenience init(
        width: Int, height: Int, frameCount: Int, plays: Int, depth: SampleDepth = .eight, hasAlpha: Bool = true,
        encoder: PNGEncoder = PNGEncoder()
    ) throws(ImgToolError) {
        try self.init(
            sink: ByteSink(), width: width, height: height, frameCount: frameCount, plays: plays,
            layout: .trueColor(alpha: hasAlpha, depth: depth),
            encoder: encoder)
    }

    /// Starts an animation stored as `layout` (any colour type and depth, with its palette),
    /// which must hold every frame appended exactly: ``PNGLayout/Analysis`` of the frames gives it.
    init(
        sink: ByteSink, width: Int, height: Int, frameCount: Int, plays: Int, layout: PNGLayout, encoder: PNGEncoder
    ) throws(ImgToolError) {
        let range = 1...PNGChunk.maxLength
        guard range.contains(width), range.contains(height) else {
            throw ImgToolError(.invalidArgument, "cannot write a \(width)x\(height) APNG: sides must be 1...2147483647")
        }
        guard range.contains(frameCount) else {
            throw ImgToolError(.invalidArgument, "cannot write an APNG of \(frameCount) frames: 1...2147483647")
        }
        guard (0...PNGChunk.maxLength).contains(plays) else {
            throw ImgToolError(.invalidArgument, "cannot write an APNG that plays \(plays) times: 0...2147483647")
        }
        self.sink = sink
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.plays = plays
        var frameEncoder = encoder
        frameEncoder.extraChunks = []  // written once, after IHDR, not in each frame's stream
        self.encoder = frameEncoder
        self.layout = layout
        mergesRepeats = sink.canRewrite

        var head: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        let header = IHDRChunk(
            width: width, height: height, bitDepth: layout.bitDepth, colorType: layout.colorType, isInterlaced: false)
        PNGChunk.append(.ihdr, data: header.serialized, to: &head)
        for chunk in encoder.extraChunks { PNGChunk.append(chunk.type, data: chunk.data, to: &head) }
        actlOffset = head.count
        PNGChunk.append(.actl, data: ACTLChunk(frameCount: frameCount, plays: plays).serialized, to: &head)
        if layout.colorType == .palette {
            PNGChunk.append(
                .plte,
                data: layout.palette.flatMap {
                    [
                        UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8),
                        UInt8(truncatingIfNeeded: $0 >> 16),
                    ]
                }, to: &head)
            // Translucent entries sort first, so tRNS stops at the last of them.
            let alphas = layout.palette.map { UInt8(truncatingIfNeeded: $0 >> 24) }
            if let last = alphas.lastIndex(where: { $0 != 255 }) {
                PNGChunk.append(.trns, data: alphas[...last], to: &head)
            }
        }
        try self.sink.append(head)
    }

    /// The whole file, for a writer made with ``init(width:height:frameCount:plays:depth:hasAlpha:encoder:)``;
    /// complete after ``finish()``. Empty for a writer to a file descriptor.
    public var data: [UInt8] { sink.bytes }

    /// Appends the next frame, shown for `delay`.
    /// - Parameters:
    ///   - frame: the whole canvas, ``width`` x ``height``; converted to ``depth`` when it differs.
    ///   - delay: how long it shows (negative counts as 0). Written exactly when it is a fraction
    ///     with 16-bit terms, otherwise in milliseconds with no drift across frames.
    /// - Throws: ``ImgToolError`` `invalidArgument` for a frame of another size, one past
    ///   ``frameCount``, or a translucent pixel when ``hasAlpha`` is `false`; `writeFailed`;
    ///   `tooLarge` when memory runs out.
    public func append(_ frame: PixelBuffer, delay: Duration) throws(ImgToolError) {
        try commit(try stage(frame, delay: delay).compressed())
    }

    /// Appends every frame `nextFrame` returns until it returns `nil`, compressing several
    /// frames at once in child tasks while the next ones are made (at most one per processor
    /// in flight, so memory stays at a few canvases). `nextFrame` runs in the calling task only.
    /// - Parameters:
    ///   - nextFrame: the next canvas and its delay, or `nil` after the last.
    ///   - progress: called in the calling task with the number of frames written so far, after
    ///     each frame is written. Default: none.
    /// - Throws: what `nextFrame` throws, or what ``append(_:delay:)`` throws; `cancelled`
    ///   when the task is cancelled. Nothing more is written after an error.
    public func append(
        from nextFrame: () throws(ImgToolError) -> (image: PixelBuffer, delay: Duration)?,
        progress: ((Int) -> Void)? = nil
    ) async throws(ImgToolError) {
        try await withOrderedWindow(
            width: max(availableProcessors, 2),
            produce: { () throws(ImgToolError) -> StagedFrame? in
                guard let (image, delay) = try nextFrame() else { return nil }
                if Task.isCancelled {
                    throw ImgToolError(.cancelled, "cancelled while writing frame \(framesWritten)")
                }
                return try stage(image, delay: delay)
            },
            work: { (frame) async throws(ImgToolError) in try frame.compressed() },
            consume: { (frame) throws(ImgToolError) in
                try commit(frame)
                progress?(framesCommitted)
            })
    }

    /// A frame ready to compress: the rectangle to store and its pixels, or a repeat of the
    /// frame before.
    struct StagedFrame: Sendable {
        var region: FrameRegion
        var pixels: PixelBuffer
        var delay: Duration
        /// Equal to the frame before, and merged into its delay: nothing to compress.
        var repeats: Bool
        var layout: PNGLayout
        var encoder: PNGEncoder

        /// The zlib stream of the pixels stored as `layout`: the data of its IDAT or fdAT chunks.
        func compressed() throws(ImgToolError) -> CompressedFrame {
            guard !repeats else { return CompressedFrame(region: region, delay: delay, stream: [], repeats: true) }
            return CompressedFrame(
                region: region, delay: delay,
                stream: try encoder.zlibStream(of: pixels, layout: layout, blockBytes: PNGDeflater.frameBlockBytes),
                repeats: false)
        }
    }

    /// A frame ready to write.
    struct CompressedFrame: Sendable {
        var region: FrameRegion
        var delay: Duration
        var stream: [UInt8]
        var repeats: Bool
    }

    /// Checks `frame`, finds what changed since the frame before (frame 0 covers the canvas), and
    /// takes its delay; frames must be staged in order.
    func stage(_ frame: PixelBuffer, delay: Duration) throws(ImgToolError) -> StagedFrame {
        let index = stagedCount
        guard !finished, index < frameCount else {
            throw ImgToolError(.invalidArgument, "the APNG was declared with \(frameCount) frames; cannot add another")
        }
        guard frame.width == width, frame.height == height else {
            throw ImgToolError(
                .invalidArgument,
                "frame \(index) is \(frame.width)x\(frame.height), but the APNG's canvas is \(width)x\(height)")
        }
        let canvas = frame.depth == depth ? frame : frame.converted(to: depth)
        if !hasAlpha, let y = canvas.firstTranslucentRow() {
            throw ImgToolError(
                .invalidArgument,
                "frame \(index) has a translucent pixel in row \(y), but the APNG stores no alpha")
        }
        // Later frames cover what changed; a frame that changes nothing is merged into the one
        // before, or (when acTL cannot be corrected) covers one pixel, since fcTL cannot
        // describe an empty rectangle.
        // A repeat is not merged when the frame it joins would then show longer than an fcTL
        // delay holds (65535 s, ``AnimationLimits``): it covers one pixel instead.
        let delay = max(delay, .zero)
        var repeats = false
        var region = FrameRegion(x: 0, y: 0, width: width, height: height)
        if let previous {
            if let changed = canvas.differingRegion(from: previous) {
                region = changed
            } else {
                repeats = mergesRepeats && mergedDelay + delay <= Self.longestDelay
                region = FrameRegion(x: 0, y: 0, width: 1, height: 1)
            }
        }
        mergedDelay = repeats ? mergedDelay + delay : delay
        let pixels =
            repeats || (region.width == width && region.height == height) ? canvas : canvas.cropped(to: region)
        previous = canvas
        stagedCount += 1
        return StagedFrame(
            region: region, pixels: pixels, delay: delay, repeats: repeats, layout: layout,
            encoder: encoder)
    }

    /// Takes the next frame; frames must be committed in the order they were staged. A repeat
    /// adds its delay to the frame before; any other frame writes the frame before, whose delay
    /// is then final.
    func commit(_ frame: CompressedFrame) throws(ImgToolError) {
        framesCommitted += 1
        if frame.repeats, var last = pending {
            last.delay += frame.delay
            pending = last
            return
        }
        if let last = pending { try write(last) }
        pending = frame
    }

    /// Writes the fcTL and the IDAT (frame 0) or fdAT chunks of a frame.
    private func write(_ frame: CompressedFrame) throws(ImgToolError) {
        let delay = delays.next(frame.delay)
        let control = FCTLChunk(
            sequenceNumber: nextSequenceNumber(), region: frame.region, delayNumerator: delay.numerator,
            delayDenominator: delay.denominator, disposal: .none, blend: .source)
        let stream = frame.stream
        var out: [UInt8] = []
        out.reserveCapacity(stream.count + 64 + 16 * (stream.count / Self.chunkBytes + 1))
        PNGChunk.append(.fctl, data: control.serialized, to: &out)
        var start = 0
        repeat {
            let piece = stream[start..<min(start + Self.chunkBytes, stream.count)]
            if framesWritten == 0 {
                PNGChunk.append(.idat, data: piece, to: &out)
            } else {
                PNGChunk.append(
                    .fdat, data: FDATChunk(sequenceNumber: nextSequenceNumber(), frameData: piece).serialized, to: &out)
            }
            start += piece.count
        } while start < stream.count
        try sink.append(out)
        framesWritten += 1
    }

    /// Writes the last frame and IEND, and corrects acTL's frame count when repeated frames were
    /// merged.
    /// - Throws: ``ImgToolError`` `invalidArgument` when fewer than ``frameCount`` frames were
    ///   appended (the file would be invalid), `writeFailed`.
    public func finish() throws(ImgToolError) {
        guard !finished else { return }
        guard framesCommitted == frameCount, stagedCount == frameCount else {
            throw ImgToolError(
                .invalidArgument, "the APNG was declared with \(frameCount) frames but \(framesCommitted) were added")
        }
        if let last = pending {
            try write(last)
            pending = nil
        }
        if framesWritten != frameCount {
            var actl: [UInt8] = []
            PNGChunk.append(.actl, data: ACTLChunk(frameCount: framesWritten, plays: plays).serialized, to: &actl)
            try sink.rewrite(actl, at: actlOffset)
        }
        var out: [UInt8] = []
        PNGChunk.append(.iend, data: EmptyCollection(), to: &out)
        try sink.append(out)
        finished = true
        previous = nil
    }

    private func nextSequenceNumber() -> UInt32 {
        defer { sequenceNumber += 1 }
        return sequenceNumber
    }
}

extension PixelBuffer {
    /// The smallest rectangle holding every pixel that differs from `other` (same size and
    /// depth), or `nil` when the two are equal.
    func differingRegion(from other: PixelBuffer) -> FrameRegion? {
        precondition(other.width == width && other.height == height && other.depth == depth, "buffers must match")
        let pixelBytes = depth == .eight ? 4 : 8
        let rowBytes = width * pixelBytes
        return withUnsafeSampleBytes { mine in
            other.withUnsafeSampleBytes { theirs in
                var top = -1
                var bottom = -1
                var left = width
                var right = -1
                func same(_ offset: Int) -> Bool {
                    pixelBytes == 4
                        ? mine.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                            == theirs.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                        : mine.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == theirs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                }
                for y in 0..<height {
                    let row = y * rowBytes
                    guard
                        memcmp(
                            mine.baseAddress.unsafelyUnwrapped + row, theirs.baseAddress.unsafelyUnwrapped + row,
                            rowBytes) != 0
                    else { continue }
                    if top < 0 { top = y }
                    bottom = y
                    var x = 0
                    while x < left && same(row + x * pixelBytes) { x += 1 }
                    left = min(left, x)
                    x = width - 1
                    while x > right && same(row + x * pixelBytes) { x -= 1 }
                    right = max(right, x)
                }
                guard top >= 0 else { return nil }
                return FrameRegion(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            }
        }
    }

    /// The first row holding a pixel whose alpha is not the maximum, or `nil` when all are opaque.
    func firstTranslucentRow() -> Int? {
        switch samples {
        case .rgba8(let values): Self.firstTranslucentRow(of: values, width: width)
        case .rgba16(let values): Self.firstTranslucentRow(of: values, width: width)
        }
    }

    private static func firstTranslucentRow<S: Sample>(of values: [S], width: Int) -> Int? {
        var index = 3
        while index < values.count {
            if values[index] != S.max { return index / (width * 4) }
            index += 4
        }
        return nil
    }

    /// Calls `body` with the samples' bytes.
    func withUnsafeSampleBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch samples {
        case .rgba8(let values): values.withUnsafeBytes(body)
        case .rgba16(let values): values.withUnsafeBytes(body)
        }
    }
}
