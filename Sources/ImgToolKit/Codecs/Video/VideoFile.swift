internal import CVideo

extension RuntimeLibrary {
    /// libavformat and libavcodec, loaded once per process when a video is first read (see
    /// `CVideo/include/CVideo.h`).
    static let video = RuntimeLibrary(name: "libavformat and libavcodec", format: "video", loader: imgtool_video_load)
}

/// What FFmpeg says of itself once loaded.
enum VideoLibrary {
    /// "libavformat 59.27.100, libavcodec 59.37.100", or `nil` when not loaded.
    static var versions: String? {
        imgtool_video_versions().map { String(cString: $0) }
    }

    /// Whether FFmpeg could be loaded, and if not, the line saying what to install.
    static var problem: String? { RuntimeLibrary.video.load() }
}

/// One opened video: libavformat's demuxer over a copy of the file, and libavcodec's decoder of
/// its best video stream, with the shown frames' times listed by a first pass of the demuxer.
///
/// `@unchecked Sendable`: FFmpeg's contexts are used by one reader at a time (``VideoSource``
/// hands each handle to one reader, which decodes on one thread at a time). The copy of the file
/// and the contexts are freed with the last reference.
final class VideoFile: @unchecked Sendable {
    private let bytes: UnsafeMutableRawBufferPointer
    private let video: OpaquePointer
    /// What the container and stream header declare.
    let description: VideoDescription

    /// Opens `data` (copied), checking the declared size and frame count against `limits` before
    /// any frame is decoded.
    /// - Parameter name: the container's name for messages, which also picks the one libavformat
    ///   demuxer that reads it (``demuxers``).
    init(data: [UInt8], limits: DecodingLimits, name: String) throws(ImgToolError) {
        guard let demuxer = Self.demuxers[name] else {
            throw ImgToolError(.unsupportedFormat, "imgtool reads no video container named \(name)")
        }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        var error = imgtool_video_error()
        var info = imgtool_video_info()
        let maxFrames = Int32(clamping: min(limits.maxFrames, Int(Int32.max) - 1))
        guard
            let video = imgtool_video_open(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, demuxer,
                Int64(clamping: limits.maxPixels),
                maxFrames, &info, &error)
        else {
            bytes.deallocate()
            if Int(error.kind) == Int(imgtool_video_too_large.rawValue), info.width > 0, info.height > 0 {
                try limits.checkPixels(width: Int(info.width), height: Int(info.height), what: "\(name) video frame")
            }
            throw Self.error(error, name: name)
        }
        self.bytes = bytes
        self.video = video
        var times: [(seconds: Double, duration: Double)] = []
        for index in 0..<Int(info.frame_count) {
            var seconds = 0.0
            var duration = 0.0
            imgtool_video_frame_time(video, Int32(index), &seconds, &duration)
            times.append((seconds, duration))
        }
        description = VideoDescription(info, times: times)
    }

    /// The libavformat demuxer for each container name: MP4 and QuickTime files are read by `mov`
    /// alone, WebM and Matroska by `matroska` alone, never by whichever demuxer probing would pick.
    static let demuxers = ["MP4": "mov", "WebM": "matroska"]

    deinit {
        imgtool_video_close(video)
        bytes.deallocate()
    }

    /// The next frame as coded (before the rotation), 8-bit RGBA; `nil` at the end of the stream.
    func nextFrame(name: String) throws(ImgToolError) -> PixelBuffer? {
        var error = imgtool_video_error()
        var status: Int32 = 0
        let (width, height) = (description.width, description.height)
        let image = PixelBuffer(width: width, height: height, depth: .eight) { target in
            status = imgtool_video_next_frame(
                video, target.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), &error)
        }
        switch status {
        case 1: return image
        case 0: return nil
        default: throw Self.error(error, name: name)
        }
    }

    /// Makes the next ``nextFrame(name:)`` return frame `index`, before any frame is decoded:
    /// through the container's index to the key frame before it when it can, else by decoding
    /// from the first frame and dropping the frames before it (unconverted); `useIndex` false
    /// takes the second way at once (tests of that fallback).
    /// - Returns: whether the index was used.
    @discardableResult
    func seek(to index: Int, name: String, useIndex: Bool = true) throws(ImgToolError) -> Bool {
        var error = imgtool_video_error()
        let status = imgtool_video_seek(video, Int32(clamping: index), useIndex ? 1 : 0, &error)
        if status < 0 { throw Self.error(error, name: name) }
        return status == 1
    }

    /// Decodes the next frame and passes over it, unconverted; `false` at the end of the stream.
    func skipFrame(name: String) throws(ImgToolError) -> Bool {
        var error = imgtool_video_error()
        let status = imgtool_video_next_frame(
            video, nil, Int32(description.width), Int32(description.height), &error)
        if status < 0 { throw Self.error(error, name: name) }
        return status == 1
    }

    /// Decodes the frames `frames` (ascending) in order, passing over the others unconverted
    /// (after a seek to the first, ``seek(to:name:)``), and hands each to `body` as decoded.
    /// Stops where the stream ends.
    func decode(
        _ frames: [Int], name: String, _ body: (Int, PixelBuffer) throws(ImgToolError) -> Void
    ) throws(ImgToolError) {
        guard let first = frames.first else { return }
        var position = first
        if first > 0 { try seek(to: first, name: name) }
        for wanted in frames {
            while position < wanted {
                guard try skipFrame(name: name) else { return }
                position += 1
            }
            guard let image = try nextFrame(name: name) else { return }
            try body(wanted, image)
            position += 1
        }
    }

    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func error(_ error: imgtool_video_error, name: String) -> ImgToolError {
        let message = text(error.message)
        switch UInt32(bitPattern: error.kind) {
        case imgtool_video_unsupported.rawValue where RuntimeLibrary.video.load() != nil:
            return ImgToolError(
                .unsupportedFormat, "\(name) video needs FFmpeg at run time: \(message)", cause: message)
        case imgtool_video_unsupported.rawValue:
            return ImgToolError(.unsupportedFormat, "unsupported \(name) video: \(message)", cause: message)
        case imgtool_video_truncated.rawValue:
            return ImgToolError(.truncated, "truncated \(name) video: \(message)", cause: message)
        case imgtool_video_too_large.rawValue:
            return ImgToolError(.tooLarge, "\(name) video too large: \(message)", cause: message)
        default:
            return ImgToolError(.corrupt, "corrupt \(name) video: \(message)", cause: message)
        }
    }
}

/// What a video's container and stream header declare, read before any frame is converted.
struct VideoDescription: Equatable {
    /// The coded size, before the rotation.
    var width: Int
    var height: Int
    /// Clockwise quarter turns the display matrix asks for (0 to 3).
    var quarterTurns: Int
    var hasAlpha: Bool
    /// Whether the display matrix mirrors the picture: it is then not applied at all.
    var mirrored = false
    /// Whether the demuxer stopped on damage or a cut before the end of the file.
    var cutShort: Bool
    /// The demuxer's and decoder's names ("mov,mp4,m4a,3gp,3g2,mj2", "h264").
    var container: String
    var codec: String
    /// The colour as the stream header declares it ("bt709", "tv", ...; "unknown" when it does not).
    var matrix: String
    var range: String
    var transfer: String
    /// Each shown frame's presentation time and its container duration (0 when none), in
    /// seconds, in presentation order.
    var times: [(seconds: Double, duration: Double)]

    init(
        width: Int, height: Int, quarterTurns: Int, hasAlpha: Bool, cutShort: Bool, container: String, codec: String,
        matrix: String, range: String, transfer: String, times: [(seconds: Double, duration: Double)]
    ) {
        (self.width, self.height, self.quarterTurns, self.hasAlpha, self.cutShort) = (
            width, height, quarterTurns, hasAlpha, cutShort
        )
        (self.container, self.codec, self.matrix, self.range, self.transfer) = (
            container, codec, matrix, range, transfer
        )
        self.times = times
    }

    init(_ info: imgtool_video_info, times: [(seconds: Double, duration: Double)]) {
        (width, height) = (Int(info.width), Int(info.height))
        quarterTurns = Int(info.quarter_turns)
        hasAlpha = info.has_alpha != 0
        mirrored = info.mirrored != 0
        cutShort = info.cut_short != 0
        container = VideoFile.text(info.container)
        codec = VideoFile.text(info.codec)
        matrix = VideoFile.text(info.matrix)
        range = VideoFile.text(info.range)
        transfer = VideoFile.text(info.transfer)
        self.times = times
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.quarterTurns == rhs.quarterTurns
            && lhs.hasAlpha == rhs.hasAlpha && lhs.codec == rhs.codec
            && lhs.times.elementsEqual(rhs.times) { $0.seconds == $1.seconds && $0.duration == $1.duration }
    }

    /// Each frame's delay: the next frame's time minus its own (a variable frame rate is kept);
    /// the last frame's is its container duration, else the average of the others, else 1/25 s.
    var delays: [Duration] {
        guard !times.isEmpty else { return [] }
        // Each time rounded to the microsecond, and the delays the differences: the frames start
        // where their timestamps say, with no rounding carried from frame to frame.
        let microseconds = times.map { Int64(($0.seconds * 1e6).rounded()) }
        var delays = zip(microseconds, microseconds.dropFirst()).map { max($1 - $0, 0) }
        let average =
            delays.isEmpty ? 0.04 : (times[times.count - 1].seconds - times[0].seconds) / Double(delays.count)
        let last = times[times.count - 1].duration
        delays.append(Int64(((last > 0 ? last : average > 0 ? average : 0.04) * 1e6).rounded()))
        return delays.map { Duration.microseconds($0) }
    }
}
