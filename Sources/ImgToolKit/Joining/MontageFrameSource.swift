/// Inputs laid out in a grid, side by side instead of one after the other (`imgtool convert
/// IN... OUT --montage COLSxROWS`), as one ``FrameSource``.
///
/// Input `i` is in column `i % columns`, row `i / columns`. Every cell is as large as the largest
/// input; an input is centred in its cell; ``gap`` pixels separate the cells (none around them);
/// what no input covers is ``background`` (transparent when `nil`). Colours are converted into
/// the first input's colour space; frames are 16-bit when any input is.
///
/// Animated inputs play side by side on one timeline: one frame wherever any input changes
/// frame, each keeping its own timing as browsers play it (``MergeTimeline``, as `merge` does),
/// for one play of the longest input, which sets the plays. Still inputs show the whole time.
/// A reader opens every input once and keeps one canvas per animated input.
public struct MontageFrameSource: FrameSource {
    /// The inputs, in grid order.
    public let inputs: [JoinInput]
    /// Columns of the grid.
    public let columns: Int
    /// Rows of the grid.
    public let rows: Int
    /// The size of every cell: the largest input's width and the largest input's height.
    public let cell: PixelSize
    /// Pixels between two cells.
    public let gap: Int
    /// What no input covers; `nil` transparent.
    public let background: RGBAColor?
    /// The output frames: when each starts, how long it lasts, and which frame of each input it shows.
    public let timeline: MergeTimeline
    /// The grid's canvas and its frame table (one frame per timeline segment).
    public let info: ImageInfo
    /// Whether every frame is opaque: an opaque background, or inputs that are opaque and fill
    /// every cell of a gapless grid.
    public let isOpaque: Bool
    let depth: SampleDepth

    /// Lays `inputs` out in `grid`.
    /// - Parameters:
    ///   - inputs: at least one, in grid order.
    ///   - grid: columns, rows or both.
    ///   - gap: pixels between cells, 0 or more.
    ///   - background: what no input covers; `nil` transparent.
    ///   - limits: the canvas is checked against `maxPixels`, the frames against `maxFrames` and
    ///     `maxTotalPixels`.
    /// - Throws: ``ImgToolError`` `invalidArgument` without inputs, for a negative gap or a grid
    ///   too small for the inputs; `tooLarge` past `limits`.
    public init(
        _ inputs: [JoinInput], grid: GridLayout, gap: Int = 0, background: RGBAColor? = nil,
        limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        guard let first = inputs.first else { throw ImgToolError(.invalidArgument, "a montage needs an input") }
        guard gap >= 0, gap <= 1 << 20 else {
            throw ImgToolError(.invalidArgument, "--gap \(gap): expected pixels, 0 to \(1 << 20)")
        }
        (columns, rows) = try grid.resolved(for: inputs.count, option: "--montage", what: "inputs")
        let cell = PixelSize(
            width: inputs.map(\.info.width).max() ?? 0, height: inputs.map(\.info.height).max() ?? 0)
        self.cell = cell
        let (width, overflowW) = Self.length(cells: columns, of: cell.width, gap: gap)
        let (height, overflowH) = Self.length(cells: rows, of: cell.height, gap: gap)
        guard !overflowW, !overflowH else {
            throw ImgToolError(.tooLarge, "a montage of \(grid) cells of \(cell.width)x\(cell.height) is too large")
        }
        try limits.checkPixels(width: width, height: height, what: "the montage")
        let profile = first.info.color.effectiveProfile
        self.inputs = inputs.map { $0.convertingColors(to: profile) }
        self.gap = gap
        self.background = background
        depth = inputs.contains { $0.info.bitDepth > 8 } ? .sixteen : .eight
        let (columns, rows) = (columns, rows)
        let filled =
            inputs.count == columns * rows && gap == 0
            && inputs.allSatisfy { $0.isOpaque && $0.info.width == cell.width && $0.info.height == cell.height }
        isOpaque = background?.alpha == 255 || filled
        timeline = try MergeTimeline(
            inputs.map(\.info), delayPolicy: MergedAnimation.delayPolicy,
            foldingAtOrBelow: MergedAnimation.shortestClamped, maxFrames: limits.maxFrames)
        try limits.checkAnimation(frames: timeline.frameCount, width: width, height: height)
        let animated = inputs.contains { $0.info.isAnimated }
        var info = first.info.withCanvas(PixelSize(width: width, height: height))
        info.frames = timeline.segments.enumerated().map { index, segment in
            FrameInfo(
                index: index, delay: animated ? segment.duration : .zero,
                region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none, blend: .source)
        }
        info.bitDepth = depth == .sixteen ? 16 : 8
        info.colorType = isOpaque ? .rgb : .rgba
        info.plays = animated ? inputs[timeline.longestInput].info.plays : 1
        info.loopValue = animated ? inputs[timeline.longestInput].info.loopValue : nil
        info.delaysArePlayTimes = animated
        info.isInterlaced = false
        info.warnings = []
        self.info = info
    }

    /// `cells` cells of `length` with `gap` between them, and whether that overflowed.
    private static func length(cells: Int, of length: Int, gap: Int) -> (Int, Bool) {
        let (all, o1) = cells.multipliedReportingOverflow(by: length)
        let (gaps, o2) = (cells - 1).multipliedReportingOverflow(by: gap)
        let (total, o3) = all.addingReportingOverflow(gaps)
        return (total, o1 || o2 || o3 || total > 1 << 30)
    }

    /// Where input `index`'s top-left corner goes: its cell's, moved to centre it in the cell.
    public func origin(of index: Int) -> (x: Int, y: Int) {
        let info = inputs[index].info
        let column = index % columns
        let row = index / columns
        return (
            column * (cell.width + gap) + (cell.width - info.width) / 2,
            row * (cell.height + gap) + (cell.height - info.height) / 2
        )
    }

    /// Makes a one-shot reader of the montage's frames.
    /// - Parameter depth: the depth of the frames returned; `nil` gives 16 bits when any input has them.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        MontageFrameReader(montage: self, depth: depth ?? self.depth)
    }
}

/// Composes a ``MontageFrameSource``'s frames in order: every input's frame of the segment drawn
/// into its cell on a copy of the empty grid.
final class MontageFrameReader: FrameReader {
    private let montage: MontageFrameSource
    private let depth: SampleDepth
    private let cursors: [FrameCursor]
    private var empty: PixelBuffer?
    private var next = 0

    init(montage: MontageFrameSource, depth: SampleDepth) {
        self.montage = montage
        self.depth = depth
        cursors = montage.inputs.map { input in
            FrameCursor(name: input.name, depth: depth) { () throws(ImgToolError) in try input.open() }
        }
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        let segments = montage.timeline.segments
        guard next < segments.count else { return nil }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before montage frame \(next)") }
        let blank =
            empty
            ?? PixelBuffer.filled(
                width: montage.info.width, height: montage.info.height, depth: depth, color: montage.background)
        empty = blank
        var canvas = blank
        let blend: FrameBlend = montage.background == nil ? .source : .over
        for index in montage.inputs.indices {
            var image = try cursors[index].image(at: segments[next].frames[index])
            if image.depth != depth { image = image.converted(to: depth) }
            if index == 0 { canvas.metadata = image.metadata }
            canvas.draw(image, at: montage.origin(of: index), blend: blend)
        }
        defer { next += 1 }
        return Frame(info: montage.info.frames[next], image: canvas)
    }
}

extension PixelBuffer {
    /// A `width` x `height` buffer of `color` (`nil`: transparent black).
    static func filled(width: Int, height: Int, depth: SampleDepth, color: RGBAColor?) -> PixelBuffer {
        var buffer = PixelBuffer(width: width, height: height, depth: depth)
        guard let color, color.alpha != 0 || color.red != 0 || color.green != 0 || color.blue != 0 else {
            return buffer
        }
        switch depth {
        case .eight:
            let pattern = [color.red, color.green, color.blue, color.alpha]
            buffer.withMutableSamples(of: UInt8.self) { samples in
                for start in stride(from: 0, to: samples.count, by: 4) {
                    for channel in 0..<4 { samples[start + channel] = pattern[channel] }
                }
            }
        case .sixteen:
            let pattern = [color.red, color.green, color.blue, color.alpha].map { UInt16($0) * 257 }
            buffer.withMutableSamples(of: UInt16.self) { samples in
                for start in stride(from: 0, to: samples.count, by: 4) {
                    for channel in 0..<4 { samples[start + channel] = pattern[channel] }
                }
            }
        }
        return buffer
    }
}
