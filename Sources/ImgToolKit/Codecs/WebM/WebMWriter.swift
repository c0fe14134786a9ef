internal import CVPX

/// Writes a ``FrameSource`` as a WebM video: VP9 encoded by libvpx, muxed by ``WebMMuxer``.
///
/// - Timing: each frame starts where the running sum of the delays rounds to, in milliseconds
///   (a variable frame rate kept, no drift, each frame 1 ms at least); a file's stored delays
///   are taken as browsers play them (10 ms or less plays as 100 ms, ``DelayPolicy/browser``),
///   play times (a video's, or `--speed`'s) as they are. A still is one frame shown for 100 ms.
/// - Size: 4:2:0 needs even sides, so an odd width or height is padded by one pixel, the last
///   column or row repeated (a 33x25 input is written 34x26).
/// - Colour: RGB to YUV with the BT.709 matrix in limited range (16-235, 16-240), which the
///   track's Colour element and the VP9 header both declare; the picture is converted to sRGB
///   first, as a GIF's is.
/// - Quality 0-100 (default 60) becomes VP9's constant-quality level
///   `cq = round((100 - quality) x 63 / 100)` (libvpx's Q mode, `--crf` in ffmpeg): 60 is
///   cq 25, 100 is 0, 0 is 63.
/// - Level 0-9 (default 4) becomes libvpx's `cpu-used` `9 - level`: 4 is cpu-used 5; 9 is the
///   slowest and smallest.
/// - Lossless (only when asked: a video is lossy by default, whatever the source) is VP9's
///   lossless mode in 4:4:4 with RGB stored as GBR (profile 1): every colour sample comes back.
/// - Alpha, when a frame has a translucent pixel (the frames are read once first when the
///   source cannot say it is opaque): the alpha plane is a second VP9 stream at half the
///   colour's cq level (sharper edges, no grey veil where it is transparent: at cq 25, a
///   transparent border read back at 10 of 255), in each block's BlockAdditions, key frames
///   every 128 frames on both streams.
struct WebMWriter {
    let lossless: Bool
    let quality: Int
    let level: Int
    let background: RGBAColor?
    /// The threads libvpx may use.
    var threads = min(availableProcessors, 8)

    init(options: ImageWriteOptions) {
        lossless = options.lossless == true
        quality = options.quality ?? 60
        level = options.compressionLevel ?? 4
        background = options.background
    }

    /// VP9's constant-quality level (0-63) for `quality` (0-100).
    static func cqLevel(forQuality quality: Int) -> Int {
        ((100 - quality) * 63 + 50) / 100
    }

    /// libvpx's `cpu-used` for a compression level 0-9.
    static func cpuUsed(forLevel level: Int) -> Int {
        9 - level
    }

    /// How long a frame whose delay is `delay` shows in the video.
    static func shownFor(_ delay: Duration, in info: ImageInfo) -> Duration {
        info.delaysArePlayTimes ? max(delay, .zero) : DelayPolicy.browser.effectiveDelay(delay, format: info.format)
    }

    /// Encodes `source` into `sink`.
    /// - Throws: ``ImgToolError``: `invalidArgument` for a quality outside 0-100, a level outside
    ///   0-9 or a side over 65536; a decoding error from `source`; `writeFailed` when libvpx
    ///   fails; `cancelled`.
    func encode(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        let info = source.info
        guard (0...100).contains(quality) else {
            throw ImgToolError(.invalidArgument, "WebM quality \(quality) is out of range: 0...100")
        }
        guard (0...9).contains(level) else {
            throw ImgToolError(.invalidArgument, "WebM compression level \(level) is out of range: 0...9")
        }
        guard (1...65535).contains(info.width), (1...65535).contains(info.height) else {
            throw ImgToolError(
                .invalidArgument, "cannot write a \(info.width)x\(info.height) WebM: sides must be 1...65535")
        }
        var alpha = false
        if background == nil { alpha = try Self.hasTranslucency(source) }
        var settings = imgtool_vpx_settings()
        settings.width = Int32(info.width)
        settings.height = Int32(info.height)
        settings.cq_level = Int32(Self.cqLevel(forQuality: quality))
        settings.alpha_cq_level = settings.cq_level / 2
        settings.cpu_used = Int32(Self.cpuUsed(forLevel: level))
        settings.lossless = lossless ? 1 : 0
        settings.alpha = alpha ? 1 : 0
        settings.threads = Int32(threads)
        settings.key_interval = alpha ? 128 : 0
        settings.key_interval_max = 128
        var message = [CChar](repeating: 0, count: 512)
        guard let encoder = imgtool_vpx_create(&settings, &message, message.count) else {
            throw Self.failure(message)
        }
        defer { imgtool_vpx_destroy(encoder) }
        var muxer = WebMMuxer(
            width: Int(imgtool_vpx_coded_width(encoder)), height: Int(imgtool_vpx_coded_height(encoder)),
            alpha: alpha, colour: lossless ? .rgb : .bt709Limited)

        // The frames' start times and the end, in milliseconds.
        var timeline = MillisecondTimeline()
        var starts: [Int] = []
        var end = 0
        for frame in info.frames {
            starts.append(end)
            end += timeline.duration(of: Self.shownFor(info.frameCount > 1 ? frame.delay : .zero, in: info))
        }

        // A sink that cannot be rewritten (a pipe) gets the file once it is whole; one that can is
        // written as the frames come (a descriptor's copy writes to the same file).
        let direct = sink.canRewrite
        var out = direct ? sink : ByteSink()
        try muxer.start(duration: Double(end), into: &out)
        var packets = PacketQueue(alpha: alpha)
        var written = 0
        var lastEnd = 0
        /// Muxes the packets ready on both streams.
        func mux() throws(ImgToolError) {
            while let packet = packets.next() {
                try muxer.add(packet.frame, alpha: packet.alpha, time: packet.time, key: packet.key, into: &out)
                written += 1
                progress?(written)
            }
        }

        let reader = try source.makeFrameReader(depth: .eight)
        var index = 0
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing WebM frame \(index)") }
            guard index < starts.count else { break }
            var image = frame.image
            if let background { image = image.flattened(onto: background) }
            if case .rgba16 = image.samples { image = image.converted(to: .eight) }
            guard case .rgba8(let samples) = image.samples, image.width == info.width, image.height == info.height
            else { throw ImgToolError(.corrupt, "frame \(index) is not \(info.width)x\(info.height)") }
            let duration = (index + 1 < starts.count ? starts[index + 1] : end) - starts[index]
            let forceKey = alpha && index % 128 == 0
            let encoded = samples.withUnsafeBufferPointer { pixels in
                imgtool_vpx_encode(
                    encoder, pixels.baseAddress, info.width * 4, Int64(starts[index]), UInt(duration),
                    forceKey ? 1 : 0, &message, message.count)
            }
            guard encoded == 1 else { throw Self.failure(message) }
            _ = packets.take(from: encoder)
            try mux()
            lastEnd = starts[index] + duration
            index += 1
        }
        guard index > 0 else { throw ImgToolError(.corrupt, "the image has no frames to write") }
        // Drain the encoders' look-ahead.
        while true {
            guard imgtool_vpx_encode(encoder, nil, 0, 0, 0, 0, &message, message.count) == 1 else {
                throw Self.failure(message)
            }
            guard packets.take(from: encoder) else { break }
            try mux()
        }
        guard written == index else {
            throw ImgToolError(.writeFailed, "libvpx gave \(written) frames for \(index)")
        }
        try muxer.finish(duration: Double(lastEnd), into: &out)
        if direct { sink = out } else { try sink.append(out.bytes) }
    }

    /// Whether some pixel of some frame is not opaque; the frames are read only when the source
    /// cannot say.
    static func hasTranslucency(_ source: any FrameSource) throws(ImgToolError) -> Bool {
        if source.isOpaque { return false }
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while looking for transparency") }
            if frame.image.firstTranslucentRow() != nil { return true }
        }
        return false
    }

    private static func failure(_ message: [CChar]) -> ImgToolError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ImgToolError(.writeFailed, text.isEmpty ? "libvpx failed" : text, cause: text)
    }
}

/// The packets libvpx made, colour and alpha, paired in order.
private struct PacketQueue {
    struct Packet {
        var frame: [UInt8]
        var alpha: [UInt8]?
        var time: Int
        var key: Bool
    }

    let alpha: Bool
    private var colour: [(bytes: [UInt8], time: Int, key: Bool)] = []
    private var alphas: [(bytes: [UInt8], time: Int, key: Bool)] = []

    init(alpha: Bool) {
        self.alpha = alpha
    }

    /// Copies the packets of the last encode call; `true` when there were any.
    mutating func take(from encoder: OpaquePointer) -> Bool {
        var any = false
        for stream in 0..<(alpha ? 2 : 1) {
            var data: UnsafePointer<UInt8>?
            var size = 0
            var pts: Int64 = 0
            var key: Int32 = 0
            while imgtool_vpx_next_packet(encoder, Int32(stream), &data, &size, &pts, &key) == 1 {
                let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
                if stream == 0 {
                    colour.append((bytes, Int(pts), key != 0))
                } else {
                    alphas.append((bytes, Int(pts), key != 0))
                }
                any = true
            }
        }
        return any
    }

    /// The next frame whose packets are all there, in order.
    mutating func next() -> Packet? {
        guard !colour.isEmpty, !alpha || !alphas.isEmpty else { return nil }
        let frame = colour.removeFirst()
        guard alpha else { return Packet(frame: frame.bytes, alpha: nil, time: frame.time, key: frame.key) }
        let plane = alphas.removeFirst()
        return Packet(frame: frame.bytes, alpha: plane.bytes, time: frame.time, key: frame.key && plane.key)
    }
}
