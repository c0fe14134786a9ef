/// A video's frames as an animation: each frame's delay from the presentation timestamps (a
/// variable frame rate kept), played once, turned as the container's display matrix asks, its
/// YUV samples converted to RGB with the matrix and range the stream declares (BT.601 or BT.709,
/// limited or full; an untagged stream is BT.601, as ffmpeg takes it), and its transfer shown as
/// sRGB without a curve, as browsers and ffmpeg show BT.601/BT.709 video. Audio is ignored.
///
/// The demuxer lists the frames' times first (no decoding), so ``info`` is complete before a frame
/// is decoded; readers decode one frame at a time. The handle (or child process) that described
/// the file goes to the first reader; later readers open the file again.
///
/// A reader can start at a later frame (``FrameSkippingSource``, for `--time`): the demuxer seeks
/// through the container's index to the key frame before it, and only the frames from there are
/// decoded (those before the start are not converted). A reader can also be asked for some frames
/// only (``FrameSelectingSource``, for `--fps`): the others are decoded (later frames depend on
/// them) but neither converted to RGB nor sent from the decoder process.
///
/// With a ``DecoderIsolation`` installed, FFmpeg runs in child processes (``VideoIsolation``),
/// which stream the frames: a crash inside libavcodec fails that input with `corrupt` and a message
/// naming the signal, and the program goes on.
struct VideoSource: FrameSource, FrameSkippingSource, FrameSelectingSource {
    let info: ImageInfo
    let description: VideoDescription
    /// The container's name for messages ("MP4", "WebM").
    let name: String
    private let data: [UInt8]
    private let limits: DecodingLimits
    private let decoding: Decoding

    /// Where FFmpeg runs.
    private enum Decoding {
        /// In this process: the handle that described the file, until a reader takes it.
        case inProcess(Locked<VideoFile?>)
        /// In child processes: the one that described the file, `waiting` for the first reader.
        case isolated(DecoderIsolation, waiting: Locked<IsolatedDecode?>)
    }

    /// - Parameter isolation: the child processes to decode in, or `nil` for this process.
    /// - Throws: ``ImgToolError``: `unsupportedFormat` when FFmpeg is not installed (naming the
    ///   packages) or cannot decode the codec; `tooLarge` past the pixel, frame or total limits;
    ///   `truncated`; `corrupt` (a crash of FFmpeg in a child too).
    init(
        data: [UInt8], limits: DecodingLimits, format: ImageFormat, name: String,
        isolation: DecoderIsolation? = DecoderIsolation.current
    ) throws(ImgToolError) {
        let description: VideoDescription
        if let isolation {
            let (described, waiting) = try VideoIsolation.describe(
                data, limits: limits, name: name, isolation: isolation)
            description = described
            decoding = .isolated(isolation, waiting: Locked(waiting))
        } else {
            let file = try VideoFile(data: data, limits: limits, name: name)
            description = file.description
            decoding = .inProcess(Locked(file))
        }
        let turned = description.quarterTurns % 2 == 1
        let (width, height) =
            turned ? (description.height, description.width) : (description.width, description.height)
        try limits.checkPixels(width: width, height: height, what: "\(name) video frame")
        if description.times.count > limits.maxFrames {
            // The demuxer stops counting one past the limit.
            throw ImgToolError(
                .tooLarge,
                "the \(name) video has more than \(limits.maxFrames) frames, over the limit of \(limits.maxFrames)",
                limit: .frames)
        }
        try limits.checkAnimation(frames: description.times.count, width: width, height: height)
        let frames = description.delays.enumerated().map { index, delay in
            FrameInfo(
                index: index, delay: delay, region: FrameRegion(x: 0, y: 0, width: width, height: height),
                disposal: .none, blend: .source)
        }
        var info = ImageInfo(
            format: format, width: width, height: height, bitDepth: 8, colorType: description.hasAlpha ? .rgba : .rgb,
            frames: frames, plays: 1, isComplete: !description.cutShort, compression: .lossy)
        info.storedSize = PixelSize(width: description.width, height: description.height)
        info.appliedOrientation = [.up, .right, .down, .left][description.quarterTurns & 3]
        info.delaysArePlayTimes = true
        if description.mirrored {
            info.warnings.append(
                "the \(name) display matrix mirrors the picture, which imgtool does not apply: the frames are shown as coded"
            )
        }
        if description.cutShort {
            info.warnings.append(
                "the \(name) container is cut or damaged after \(frames.count) frames; the frames before are shown")
        }
        self.info = info
        self.description = description
        self.name = name
        self.data = data
        self.limits = limits
    }

    var isOpaque: Bool { !description.hasAlpha }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try makeFrameReader(startingAt: 0, depth: depth)
    }

    /// A reader whose first frame is frame `start`, found through the container's index.
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try makeFrameReader(selecting: Array(max(0, min(start, info.frameCount))..<info.frameCount), depth: depth)
    }

    /// A reader of the frames `frames` (ascending): it seeks to the first through the container's
    /// index, and passes over the others unconverted.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let depth = depth ?? .eight
        let frames = frames.filter { (0..<info.frameCount).contains($0) }
        switch decoding {
        case .inProcess(let waiting):
            let handed = waiting.withLock { (file: inout VideoFile?) in
                defer { file = nil }
                return file
            }
            let file: VideoFile
            if let handed { file = handed } else { file = try VideoFile(data: data, limits: limits, name: name) }
            if let first = frames.first, first > 0 { try file.seek(to: first, name: name) }
            return VideoFrameReader(source: self, decoder: .inProcess(file), depth: depth, frames: frames)
        case .isolated(let isolation, let waiting):
            let session = try VideoIsolation.decode(
                data, limits: limits, name: name, depth: depth, frames: frames, count: info.frameCount,
                isolation: isolation, waiting: waiting)
            return VideoFrameReader(source: self, decoder: .isolated(session), depth: depth, frames: frames)
        }
    }
}

/// Decodes a ``VideoSource``'s frames in order, one at a time.
final class VideoFrameReader: FrameReader {
    /// Where the frames come from.
    enum Decoder {
        case inProcess(VideoFile)
        case isolated(IsolatedDecode)
    }

    private let source: VideoSource
    private let decoder: Decoder
    private let depth: SampleDepth
    /// The frames given, ascending, and how many have been.
    private let frames: [Int]
    private var given = 0
    /// The frame the in-process decoder gives next.
    private var position: Int

    /// A reader of `frames` (ascending), the decoder ready to give the first (sought to it).
    init(source: VideoSource, decoder: Decoder, depth: SampleDepth, frames: [Int]) {
        self.source = source
        self.decoder = decoder
        self.depth = depth
        self.frames = frames
        position = frames.first ?? 0
    }

    /// A decoded frame as shown: turned clockwise by `turns` quarter turns, at `depth`.
    static func displayed(_ image: PixelBuffer, turns: Int, depth: SampleDepth) -> PixelBuffer {
        let turned = image.rotated(quarterTurns: turns)
        return depth == .sixteen ? turned.converted(to: .sixteen) : turned
    }

    /// The next frame, turned and at the reader's depth; `nil` after the last frame listed, or
    /// when the decoder ends early (a damaged stream: the frames before the damage).
    func nextFrame() throws(ImgToolError) -> Frame? {
        guard given < frames.count else { return nil }
        let index = frames[given]
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled before video frame \(index)") }
        var image: PixelBuffer
        switch decoder {
        case .inProcess(let file):
            while position < index {
                guard try file.skipFrame(name: source.name) else { return nil }
                position += 1
            }
            guard let decoded = try file.nextFrame(name: source.name) else { return nil }
            position += 1
            image = Self.displayed(decoded, turns: source.description.quarterTurns, depth: depth)
        case .isolated(let session):
            guard
                let received = try session.nextFrame(
                    width: source.info.width, height: source.info.height, depth: depth)
            else { return nil }
            image = received
        }
        image.metadata = ImageMetadata(
            format: source.info.format, bitDepth: 8, colorType: source.info.colorType, color: source.info.color)
        given += 1
        return Frame(info: source.info.frames[index], image: image)
    }
}
