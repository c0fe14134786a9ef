internal import CVPX
internal import CVideo

/// Writes a ``FrameSource`` as an MP4 video: H.264 encoded by x264 through libavcodec (loaded at
/// run time, never linked: Debian builds it with --enable-gpl), muxed by ``MP4Muxer`` with `moov`
/// first.
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
struct MP4Writer {
    let quality: Int
    let level: Int?
    let background: RGBAColor

    init(options: ImageWriteOptions) {
        quality = options.quality ?? 55
        level = options.compressionLevel
        background = options.background ?? .white
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
        let info = source.info
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
        guard Self.isAvailable else {
            throw ImgToolError(
                .unsupportedFormat,
                "writing MP4 needs libavcodec.so.59 with its libx264 encoder (on Debian or Ubuntu: apt-get install libavcodec59)"
            )
        }
        var timeline = MillisecondTimeline()
        var starts: [Int] = []
        var end = 0
        for frame in info.frames {
            starts.append(end)
            end += timeline.duration(of: WebMWriter.shownFor(info.frameCount > 1 ? frame.delay : .zero, in: info))
        }
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
        let reader = try source.makeFrameReader(depth: .eight)
        var index = 0
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing MP4 frame \(index)") }
            guard index < starts.count else { break }
            let image = frame.image.flattened(onto: background).converted(to: .eight)
            guard case .rgba8(let samples) = image.samples, image.width == info.width, image.height == info.height
            else { throw ImgToolError(.corrupt, "frame \(index) is not \(info.width)x\(info.height)") }
            var planes: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
            var strides: [Int32] = [0, 0, 0]
            guard imgtool_h264_frame(encoder, &planes, &strides, &error) == 1 else { throw Self.failure(error) }
            samples.withUnsafeBufferPointer { pixels in
                imgtool_rgba_to_i420(
                    pixels.baseAddress, info.width * 4, Int32(info.width), Int32(info.height), planes, strides)
            }
            guard imgtool_h264_send(encoder, Int64(starts[index]), 0, &error) == 1 else { throw Self.failure(error) }
            try receive()
            index += 1
        }
        guard index > 0 else { throw ImgToolError(.corrupt, "the image has no frames to write") }
        guard imgtool_h264_send(encoder, 0, 1, &error) == 1 else { throw Self.failure(error) }
        try receive()
        guard packets.count == index else {
            throw ImgToolError(.writeFailed, "libx264 gave \(packets.count) frames for \(index)")
        }
        let lastEnd = index < starts.count ? starts[index] : end
        let samples = packets.indices.map { position in
            let next = position + 1 < packets.count ? packets[position + 1].pts : lastEnd
            return MP4Muxer.Sample(
                data: packets[position].data, duration: max(next - packets[position].pts, 1), key: packets[position].key
            )
        }
        var extradataSize: Int32 = 0
        let extradata = imgtool_h264_extradata(encoder, &extradataSize).map {
            Array(UnsafeBufferPointer(start: $0, count: Int(extradataSize)))
        }
        guard let configuration = extradata.flatMap(MP4Muxer.configuration(fromAnnexB:)) else {
            throw ImgToolError(.writeFailed, "libx264 gave no SPS and PPS")
        }
        try sink.append(MP4Muxer(width: width, height: height, configuration: configuration).file(samples))
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
