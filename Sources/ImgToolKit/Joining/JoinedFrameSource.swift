/// Several inputs joined in time: every frame of the first input, then every frame of the
/// second, and so on, as one ``FrameSource`` (`imgtool convert IN... OUT`).
///
/// - An animation keeps its frames and their delays; a still image becomes one frame shown for
///   ``stillDelay``.
/// - The canvas is the first input's; an input of another size is centred on it (cut where it
///   is larger), the rest filled with ``background`` (transparent when `nil`).
/// - Colours are converted into the first input's colour space; frames are 16-bit when any
///   input is.
/// - When some input is a still, the delays are play times (``ImageInfo/delaysArePlayTimes``):
///   an animation's stored delays are read as players show them (``DelayPolicy/browser``), and
///   writers fold delays under 20 ms (``WrittenTiming``). Joining animations only keeps their
///   delays as stored.
/// - It plays as often as the first input does when that is an animation, else forever.
///
/// A reader opens one input at a time (``JoinInput/open()``) and keeps one canvas, so a join of
/// hundreds of files costs a few frames of memory.
public struct JoinedFrameSource: FrameSource, FrameSkippingSource {
    /// The inputs, in the order joined.
    public let inputs: [JoinInput]
    /// How long a still input is shown.
    public let stillDelay: Duration
    /// What surrounds an input smaller than the canvas; `nil` transparent.
    public let background: RGBAColor?
    /// The joined frame table: every input's frames in order, on the first input's canvas.
    public let info: ImageInfo
    /// Whether every joined frame is opaque: every input is, and covers the canvas or is
    /// surrounded by an opaque background.
    public let isOpaque: Bool
    /// For each input, the index of its first joined frame.
    let firstFrames: [Int]
    let depth: SampleDepth

    /// The delay of a still input when none is given: 100 ms, as `--delay` defaults.
    public static let defaultStillDelay = Duration.milliseconds(100)

    /// Joins `inputs` in order.
    /// - Parameters:
    ///   - inputs: at least one.
    ///   - stillDelay: how long each still input is shown. Default ``defaultStillDelay``.
    ///   - background: what surrounds a smaller input; `nil` transparent.
    ///   - limits: `maxFrames` bounds the joined frame count, `maxTotalPixels` the frames times the canvas.
    /// - Throws: ``ImgToolError`` `invalidArgument` without inputs or for a delay outside
    ///   1 ms ... 2³¹ - 1 ms; `tooLarge` past `limits`.
    public init(
        _ inputs: [JoinInput], stillDelay: Duration = defaultStillDelay, background: RGBAColor? = nil,
        limits: DecodingLimits = .default
    ) throws(ImgToolError) {
        guard let first = inputs.first else { throw ImgToolError(.invalidArgument, "a join needs at least one input") }
        guard stillDelay > .zero, stillDelay.milliseconds <= TimingOperation.longestDelayMilliseconds else {
            throw ImgToolError(
                .invalidArgument, "a still's delay must be above 0 and at most \(Int32.max) ms, not \(stillDelay)")
        }
        let count = inputs.reduce(0) { $0 + $1.info.frameCount }
        guard count <= limits.maxFrames else {
            throw ImgToolError(
                .tooLarge, "the inputs have \(count) frames in all, over the limit of \(limits.maxFrames)",
                limit: .frames)
        }
        try limits.checkAnimation(frames: count, width: first.info.width, height: first.info.height)
        let profile = first.info.color.effectiveProfile
        self.inputs = inputs.map { $0.convertingColors(to: profile) }
        self.stillDelay = stillDelay
        self.background = background
        let (width, height) = (first.info.width, first.info.height)
        depth = inputs.contains { $0.info.bitDepth > 8 } ? .sixteen : .eight
        let surroundOpaque = background?.alpha == 255
        isOpaque = inputs.allSatisfy { input in
            input.isOpaque && (surroundOpaque || (input.info.width >= width && input.info.height >= height))
        }
        let playTimes = inputs.contains { $0.info.frameCount == 1 || $0.info.delaysArePlayTimes }
        var frames: [FrameInfo] = []
        var firstFrames: [Int] = []
        frames.reserveCapacity(count)
        for input in inputs {
            firstFrames.append(frames.count)
            let info = input.info
            for frame in info.frames {
                let delay: Duration
                if info.frameCount == 1 {
                    delay = stillDelay
                } else if playTimes && !info.delaysArePlayTimes {
                    delay = DelayPolicy.browser.effectiveDelay(frame.delay, format: info.format)
                } else {
                    delay = frame.delay
                }
                frames.append(
                    FrameInfo(
                        index: frames.count, delay: delay,
                        region: FrameRegion(x: 0, y: 0, width: width, height: height),
                        disposal: .none, blend: .source))
            }
        }
        self.firstFrames = firstFrames
        var info = first.info.withCanvas(PixelSize(width: width, height: height))
        info.frames = frames
        info.bitDepth = depth == .sixteen ? 16 : 8
        info.colorType = isOpaque ? .rgb : .rgba
        info.plays = first.info.isAnimated ? first.info.plays : 0
        info.loopValue = first.info.isAnimated ? first.info.loopValue : 0
        info.delaysArePlayTimes = playTimes
        info.isInterlaced = false
        info.warnings = []
        self.info = info
    }

    /// Makes a one-shot reader of the joined frames, opening each input when it is reached.
    /// - Parameter depth: the depth of the frames returned; `nil` gives 16 bits when any input has them.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        JoinedFrameReader(join: self, depth: depth ?? self.depth)
    }

    /// A reader whose first frame is frame `start`: it opens the input holding that frame first
    /// (the inputs before it are never opened) and reads that input's frames before `start`.
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let input = firstFrames.lastIndex { $0 <= start } ?? 0
        let reader = JoinedFrameReader(join: self, depth: depth ?? self.depth, input: input, frame: firstFrames[input])
        var skipped = firstFrames[input]
        while skipped < start, try reader.nextFrame() != nil {
            skipped += 1
        }
        return reader
    }

    /// `image` on a `size` canvas: centred, cut where it is larger, surrounded by `background`.
    static func centered(_ image: PixelBuffer, on size: PixelSize, background: RGBAColor?) -> PixelBuffer {
        guard image.width != size.width || image.height != size.height else { return image }
        var cut = image
        if image.width > size.width || image.height > size.height {
            let x = max(0, (image.width - size.width) / 2)
            let y = max(0, (image.height - size.height) / 2)
            cut = image.cropped(
                to: FrameRegion(
                    x: x, y: y, width: min(image.width, size.width), height: min(image.height, size.height)))
            cut.metadata = image.metadata
        }
        let left = (size.width - cut.width) / 2
        let top = (size.height - cut.height) / 2
        var placed = cut.padded(
            top: top, right: size.width - cut.width - left, bottom: size.height - cut.height - top, left: left,
            color: background)
        placed.metadata = image.metadata
        return placed
    }
}

/// Reads a ``JoinedFrameSource``'s inputs one after the other, each opened when it is reached
/// and let go of after its last frame.
final class JoinedFrameReader: FrameReader {
    private let join: JoinedFrameSource
    private let depth: SampleDepth
    private var position = 0
    private var reader: (any FrameReader)?
    private var read = 0
    private var next = 0

    /// A reader whose next frame is frame `frame`, the first of input `input`.
    init(join: JoinedFrameSource, depth: SampleDepth, input: Int = 0, frame: Int = 0) {
        self.join = join
        self.depth = depth
        position = input
        next = frame
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        let size = PixelSize(width: join.info.width, height: join.info.height)
        while position < join.inputs.count {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before joined frame \(next)") }
            let input = join.inputs[position]
            if reader == nil {
                reader = try input.open().makeFrameReader(depth: depth)
                read = 0
            }
            if read < input.info.frameCount, let frame = try reader?.nextFrame() {
                read += 1
                var image = frame.image
                if image.depth != depth { image = image.converted(to: depth) }
                image = JoinedFrameSource.centered(image, on: size, background: join.background)
                defer { next += 1 }
                return Frame(info: join.info.frames[next], image: image)
            }
            guard read == input.info.frameCount else {
                throw ImgToolError(.truncated, "the data ends before frame \(read)", input: input.name)
            }
            reader = nil
            position += 1
        }
        return nil
    }
}
