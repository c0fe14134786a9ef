internal import CAOM

extension MP4Writer {
    /// libaom's constant-quality level (0-63) for `quality` (0-100), as WebM's VP9.
    static func av1CQLevel(forQuality quality: Int) -> Int {
        WebMWriter.cqLevel(forQuality: quality)
    }

    /// libaom's cpu-used for a compression level 0-9, and whether it runs in real-time mode
    /// (levels 0-3: cpu-used 10-7; good-quality mode for 4-9: cpu-used 6-1).
    static func av1Speed(forLevel level: Int) -> (cpuUsed: Int, realtime: Bool) {
        (10 - level, level < 4)
    }

    /// Encodes `source` as AV1 with libaom into `sink`.
    /// - Throws: ``ImgToolError``: `invalidArgument` for an option out of range; `unsupportedFormat`
    ///   when libaom does not load; a decoding error from `source`; `writeFailed` when libaom fails;
    ///   `cancelled`.
    func encodeAV1(_ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?)
        throws(ImgToolError)
    {
        let info = source.info
        let quality = self.quality ?? 60
        let level = self.level ?? 4
        try Self.check(quality: quality, level: level, info)
        guard imgtool_aom_problem() == nil else {
            throw ImgToolError(
                .unsupportedFormat,
                "writing MP4 needs libavcodec.so.59 with its libx264 encoder, or libaom.so.3 for AV1 (on Debian or Ubuntu: apt-get install libavcodec59, or libaom3)"
            )
        }
        let (starts, end) = Self.timeline(info)
        var settings = imgtool_aom_settings()
        settings.width = Int32(info.width)
        settings.height = Int32(info.height)
        settings.cq_level = Int32(Self.av1CQLevel(forQuality: quality))
        let speed = Self.av1Speed(forLevel: level)
        settings.cpu_used = Int32(speed.cpuUsed)
        settings.realtime = speed.realtime ? 1 : 0
        settings.screen = 1
        settings.threads = Int32(min(availableProcessors, 8))
        settings.key_interval_max = 240
        var message = [CChar](repeating: 0, count: 512)
        /// The error libaom left in `message`.
        func failure() -> ImgToolError {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return ImgToolError(.writeFailed, text.isEmpty ? "libaom failed" : text, cause: text)
        }
        guard let encoder = imgtool_aom_create(&settings, &message, message.count) else { throw failure() }
        defer { imgtool_aom_destroy(encoder) }
        let (width, height) = (Int(imgtool_aom_coded_width(encoder)), Int(imgtool_aom_coded_height(encoder)))

        var packets: [(data: [UInt8], pts: Int, key: Bool)] = []
        /// Takes the temporal units the encoder has ready; whether there was one.
        @discardableResult
        func receive() throws(ImgToolError) -> Bool {
            var any = false
            var data: UnsafePointer<UInt8>?
            var size = 0
            var pts: Int64 = 0
            var key: Int32 = 0
            while imgtool_aom_next_packet(encoder, &data, &size, &pts, &key) == 1, let data {
                guard let sample = MP4Muxer.av1Sample(Array(UnsafeBufferPointer(start: data, count: size))) else {
                    throw ImgToolError(.writeFailed, "libaom gave a temporal unit that is not well-formed OBUs")
                }
                packets.append((sample, Int(pts), key != 0))
                any = true
                progress?(packets.count)
            }
            return any
        }
        let frames = try forEachFrame(of: source, upTo: starts.count) { (index, samples) throws(ImgToolError) in
            let next = index + 1 < starts.count ? starts[index + 1] : end
            let encoded = samples.withUnsafeBufferPointer { pixels in
                imgtool_aom_encode(
                    encoder, pixels.baseAddress, info.width * 4, Int64(starts[index]),
                    UInt(max(next - starts[index], 1)), &message, message.count)
            }
            guard encoded == 1 else { throw failure() }
            try receive()
        }
        repeat {
            guard imgtool_aom_encode(encoder, nil, 0, 0, 0, &message, message.count) == 1 else { throw failure() }
        } while try receive()
        guard packets.count == frames else {
            throw ImgToolError(.writeFailed, "libaom gave \(packets.count) frames for \(frames)")
        }
        let samples = Self.samples(packets, end: frames < starts.count ? starts[frames] : end)
        var header = [UInt8](repeating: 0, count: 256)
        let size = imgtool_aom_sequence_header(encoder, &header, header.count)
        guard size > 0, size <= header.count,
            let configuration = MP4Muxer.av1Configuration(sequenceHeader: Array(header[..<size]))
        else { throw ImgToolError(.writeFailed, "libaom gave no sequence header") }
        try sink.append(MP4Muxer(width: width, height: height, entry: .av1(configuration)).file(samples))
    }
}
