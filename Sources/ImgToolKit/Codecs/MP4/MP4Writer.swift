internal import CAOM
internal import CVPX
internal import CVideo
import Foundation

/// Writes a ``FrameSource`` as an MP4 video: H.264 encoded by x264 through libavcodec (loaded at
/// run time, never linked: Debian builds it with --enable-gpl), or AV1 encoded by libaom (loaded
/// at run time too) when libavcodec or its libx264 encoder is missing, muxed by ``MP4Muxer`` with
/// `moov` first.
///
/// - Timing as ``WebMWriter``: start times from the running sum of the delays in milliseconds, a
///   file's delays as browsers play them, a still shown for 100 ms.
/// - Frames: flattened onto ``ImageWriteOptions/background`` (white by default: H.264 has no
///   alpha), converted to BT.709 limited-range 4:2:0 (the VUI and the `colr` box say so), odd
///   sides padded to even by repeating the last column or row.
/// - Quality 0-100 (default 55) becomes x264's constant rate factor
///   `crf = round((100 - quality) x 51 / 100)`: 55 is crf 23, x264's own default.
/// - Level 0-9 is x264's preset, ultrafast, superfast, veryfast, faster, fast, medium, slow,
///   slower, veryslow, placebo (default: medium).
/// - No B-frames, so decoding order is presentation order and no `ctts` or edit list is needed.
/// - The coded frames are kept in memory until the end, to write `moov` before them.
/// - AV1 (``encodeAV1(_:into:progress:)``): the same frames, timing and colour, quality 0-100
///   (default 60) as libaom's constant-quality level `round((100 - quality) x 63 / 100)` (WebM's
///   mapping: 60 is cq-level 25), level 0-9 (default 4) as libaom's cpu-used `10 - level`, in
///   real-time mode for levels 0-3 (cpu-used 10-7) and good-quality mode for 4-9 (cpu-used 6-1),
///   tuned for screen content.
struct MP4Writer {
    /// The video coding written.
    enum VideoCodec: String {
        case h264
        case av1
    }

    let quality: Int?
    let level: Int?
    let background: RGBAColor
    let videoCodec: VideoCodec

    /// `codec` `nil`: ``chosenCodec``.
    init(options: ImageWriteOptions, codec: VideoCodec? = nil) {
        quality = options.quality
        level = options.compressionLevel
        background = options.background ?? .white
        videoCodec = codec ?? Self.chosenCodec
    }

    /// The coding an MP4 is written in: `IMGTOOL_MP4_CODEC` (`h264` or `av1`) when set, else
    /// H.264 when libavcodec loads with its libx264 encoder, else AV1.
    static var chosenCodec: VideoCodec {
        if let value = ProcessInfo.processInfo.environment["IMGTOOL_MP4_CODEC"],
            let forced = VideoCodec(rawValue: value)
        {
            return forced
        }
        return isAvailable ? .h264 : .av1
    }

    /// The note `convert` prints when an MP4 is written as AV1 rather than H.264; `nil` for H.264,
    /// and when libaom does not load either (writing then fails).
    static var fallbackNote: String? {
        guard chosenCodec == .av1, imgtool_aom_problem() == nil else { return nil }
        let why =
            isAvailable
            ? "as IMGTOOL_MP4_CODEC=av1 asks" : "libavcodec.so.59 with its libx264 encoder is not installed"
        return
            "written as AV1 (libaom), \(why): it plays in current Chrome, Firefox and Safari 17 or later but less widely than H.264"
    }

    /// x264's constant rate factor for `quality`.
    static func crf(forQuality quality: Int) -> Int {
        ((100 - quality) * 51 + 50) / 100
    }

    static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    /// Whether libavcodec loads and has its libx264 encoder.
    static var isAvailable: Bool { imgtool_h264_available() == 1 }

    /// Encodes `source` into `sink`.
    /// - Throws: ``ImgToolError``: `unsupportedFormat` when libavcodec or its libx264 encoder is
    ///   missing; `invalidArgument` for an option out of range; a decoding error from `source`;
    ///   `writeFailed` when x264 fails; `cancelled`.
    func encode(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        if videoCodec == .av1 { return try encodeAV1(source, into: &sink, progress: progress) }
        let quality = self.quality ?? 55
        let info = source.info
        try Self.check(quality: quality, level: level, info)
        guard Self.isAvailable else {
            throw ImgToolError(
                .unsupportedFormat,
                "writing MP4 needs libavcodec.so.59 with its libx264 encoder (on Debian or Ubuntu: apt-get install libavcodec59)"
            )
        }
        let (starts, end) = Self.timeline(info)
        let fps = max(1, min(240, Int((Double(info.frameCount) * 1000 / Double(max(end, 1))).rounded())))
        let (width, height) = (info.width + info.width % 2, info.height + info.height % 2)
        var error = imgtool_video_error()
        let preset = Self.presets[level ?? 5]
        guard
            let encoder = imgtool_h264_open(
                Int32(width), Int32(height), Int32(Self.crf(forQuality: quality)), preset,
                Int32(min(availableProcessors, 8)), Int32(fps), &error)
        else { throw Self.failure(error) }
        defer { imgtool_h264_close(encoder) }

        var packets: [(data: [UInt8], pts: Int, key: Bool)] = []
        /// Takes the packets the encoder has ready.
        func receive() throws(ImgToolError) {
            while true {
                var data: UnsafeMutablePointer<UInt8>?
                var size: Int32 = 0
                var pts: Int64 = 0
                var dts: Int64 = 0
                var key: Int32 = 0
                let got = imgtool_h264_receive(encoder, &data, &size, &pts, &dts, &key, &error)
                if got < 0 { throw Self.failure(error) }
                guard got == 1, let data else { return }
                let annexB = Array(UnsafeBufferPointer(start: data, count: Int(size)))
                packets.append((MP4Muxer.lengthPrefixed(annexB), Int(pts), key != 0))
                progress?(packets.count)
            }
        }
        let frames = try forEachFrame(of: source, upTo: starts.count) { (index, samples) throws(ImgToolError) in
            var planes: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
            var strides: [Int32] = [0, 0, 0]
            guard imgtool_h264_frame(encoder, &planes, &strides, &error) == 1 else { throw Self.failure(error) }
            samples.withUnsafeBufferPointer { pixels in
                imgtool_rgba_to_i420(
                    pixels.baseAddress, info.width * 4, Int32(info.width), Int32(info.height), planes, strides)
            }
            guard imgtool_h264_send(encoder, Int64(starts[index]), 0, &error) == 1 else { throw Self.failure(error) }
            try receive()
        }
        guard imgtool_h264_send(encoder, 0, 1, &error) == 1 else { throw Self.failure(error) }
        try receive()
        guard packets.count == frames else {
            throw ImgToolError(.writeFailed, "libx264 gave \(packets.count) frames for \(frames)")
        }
        let samples = Self.samples(packets, end: frames < starts.count ? starts[frames] : end)
        var extradataSize: Int32 = 0
        let extradata = imgtool_h264_extradata(encoder, &extradataSize).map {
            Array(UnsafeBufferPointer(start: $0, count: Int(extradataSize)))
        }
        guard let configuration = extradata.flatMap(MP4Muxer.configuration(fromAnnexB:)) else {
            throw ImgToolError(.writeFailed, "libx264 gave no SPS and PPS")
        }
        try sink.append(MP4Muxer(width: width, height: height, entry: .avc(configuration)).file(samples))
    }

    /// Refuses a quality outside 0-100, a level outside 0-9 and a side outside 1-16384.
    static func check(quality: Int, level: Int?, _ info: ImageInfo) throws(ImgToolError) {
        guard (0...100).contains(quality) else {
            throw ImgToolError(.invalidArgument, "MP4 quality \(quality) is out of range: 0...100")
        }
        if let level, !(0...9).contains(level) {
            throw ImgToolError(.invalidArgument, "MP4 compression level \(level) is out of range: 0...9")
        }
        guard (1...16384).contains(info.width), (1...16384).contains(info.height) else {
            throw ImgToolError(
                .invalidArgument, "cannot write a \(info.width)x\(info.height) MP4: sides must be 1...16384")
        }
    }

    /// Reads `source`'s frames (at most `count`), each flattened onto ``background`` as 8-bit
    /// RGBA, and hands them to `encode` with their index; returns how many there were.
    /// - Throws: `cancelled` when the task is; `corrupt` for a frame of another size or no frame
    ///   at all; what reading or `encode` throws.
    func forEachFrame(
        of source: any FrameSource, upTo count: Int,
        _ encode: (Int, [UInt8]) throws(ImgToolError) -> Void
    ) throws(ImgToolError) -> Int {
        let info = source.info
        let reader = try source.makeFrameReader(depth: .eight)
        var index = 0
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing MP4 frame \(index)") }
            guard index < count else { break }
            let image = frame.image.flattened(onto: background).converted(to: .eight)
            guard case .rgba8(let samples) = image.samples, image.width == info.width, image.height == info.height
            else { throw ImgToolError(.corrupt, "frame \(index) is not \(info.width)x\(info.height)") }
            try encode(index, samples)
            index += 1
        }
        guard index > 0 else { throw ImgToolError(.corrupt, "the image has no frames to write") }
        return index
    }

    /// The coded frames as the muxer's samples: each lasts until the next one's presentation
    /// time, the last until `end` (at least 1 ms each).
    static func samples(_ packets: [(data: [UInt8], pts: Int, key: Bool)], end: Int) -> [MP4Muxer.Sample] {
        packets.indices.map { position in
            let next = position + 1 < packets.count ? packets[position + 1].pts : end
            return MP4Muxer.Sample(
                data: packets[position].data, duration: max(next - packets[position].pts, 1), key: packets[position].key
            )
        }
    }

    /// Each frame's start and the end, in milliseconds, as ``WebMWriter`` times them.
    static func timeline(_ info: ImageInfo) -> (starts: [Int], end: Int) {
        var timeline = MillisecondTimeline()
        var starts: [Int] = []
        var end = 0
        for frame in info.frames {
            starts.append(end)
            end += timeline.duration(of: WebMWriter.shownFor(info.frameCount > 1 ? frame.delay : .zero, in: info))
        }
        return (starts, end)
    }

    private static func failure(_ error: imgtool_video_error) -> ImgToolError {
        var error = error
        let text = withUnsafeBytes(of: &error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let kind: ImgToolError.Code = error.kind == 1 ? .unsupportedFormat : .writeFailed
        return ImgToolError(kind, text.isEmpty ? "libx264 failed" : text, cause: text)
    }
}
