/// libavformat and libavcodec in a child process (``DecoderIsolation``): what the parent asks and
/// what the child answers. `describe` sends back a ``VideoDescription``, then waits for five more
/// bytes from the parent: a depth (8 or 16) to decode at and the frame to start from (32 bits,
/// found through the container's index, ``VideoFile/seek(to:name:)``), or the end of the
/// connection; then it streams the frames from there, turned and converted, one `F` record
/// each, and the `Z` record. The socket
/// holds a frame or two, so the child decodes only as far ahead as the parent reads, and memory
/// stays at a frame or two on each side. A later reader starts a child of its own with `decode`,
/// its start frame after the container's name (`decode MP4 120`). The operation names the
/// container after a space (`describe MP4`), for the child's messages.
enum VideoIsolation {
    /// The kind a child serves (``IsolatedRequest/kind``).
    static let kind = "video"

    /// Most bytes of a description listing `frames` frames: 16 per frame and the names.
    static func maxDescriptionBytes(frames: Int) -> Int {
        16 * (min(frames, Int(Int32.max)) + 1) + 4096
    }

    /// The parent's side of `describe`: the description, and the child, waiting to decode.
    static func describe(_ data: [UInt8], limits: DecodingLimits, name: String, isolation: DecoderIsolation)
        throws(ImgToolError) -> (VideoDescription, waiting: IsolatedDecode)
    {
        let session = try IsolatedDecode(
            isolation, library: "libavcodec",
            request: IsolatedRequest(
                kind: kind, operation: "describe \(name)", depth: nil, limits: limits, data: data))
        let payload = try session.payload(maxBytes: maxDescriptionBytes(frames: limits.maxFrames))
        guard let description = VideoDescription(decoding: payload) else {
            throw ImgToolError(.corrupt, "the libavcodec decoder process sent an unreadable description")
        }
        return (description, session)
    }

    /// The parent's side of `decode`: the child that described the file when it is still
    /// `waiting`, asked to decode at `depth` from frame `start`, else a new one.
    static func decode(
        _ data: [UInt8], limits: DecodingLimits, name: String, depth: SampleDepth, from start: Int = 0,
        isolation: DecoderIsolation, waiting: Locked<IsolatedDecode?>
    ) throws(ImgToolError) -> IsolatedDecode {
        if let described = waiting.withLock({ (session: inout IsolatedDecode?) in
            defer { session = nil }
            return session
        }) {
            var question = WireWriter()
            question.byte(depth == .sixteen ? 16 : 8)
            question.u32(UInt32(clamping: start))
            try described.ask(question.bytes)
            return described
        }
        return try IsolatedDecode(
            isolation, library: "libavcodec",
            request: IsolatedRequest(
                kind: kind, operation: "decode \(name) \(start)", depth: depth, limits: limits, data: data))
    }

    /// The child's side of both.
    static func serve(_ request: IsolatedRequest, _ output: IsolatedOutput) throws(ImgToolError) {
        let words = request.operation.split(separator: " ").map(String.init)
        let name = words.count >= 2 ? words[1] : "video"
        let file = try VideoFile(data: request.data, limits: request.limits, name: name)
        let depth: SampleDepth
        let start: Int
        switch words.first {
        case "describe":
            output.payload(file.description.encoded)
            guard let asked = IsolatedDecoderService.question(), asked == 8 || asked == 16,
                let frame = IsolatedDecoderService.question(count: 4)
            else { return }
            depth = asked == 16 ? .sixteen : .eight
            var wire = WireReader(frame)
            start = Int(wire.u32() ?? 0)
        case "decode":
            depth = request.depth ?? .eight
            start = words.count >= 3 ? Int(words[2]) ?? 0 : 0
        default:
            throw ImgToolError(.unsupportedFormat, "the video decoder process cannot \(request.operation)")
        }
        let count = file.description.times.count
        if start > 0 && start < count { try file.seek(to: start, name: name) }
        for _ in min(start, count)..<count {
            guard let image = try file.nextFrame(name: name) else { return }
            output.frame(VideoFrameReader.displayed(image, turns: file.description.quarterTurns, depth: depth))
        }
    }
}

extension VideoDescription {
    /// Sizes and flags as 32-bit numbers, the names as strings, then each frame's time and
    /// duration as 64-bit floating-point bit patterns.
    var encoded: [UInt8] {
        var wire = WireWriter()
        for value in [width, height, quarterTurns, hasAlpha ? 1 : 0, cutShort ? 1 : 0, mirrored ? 1 : 0, times.count] {
            wire.u32(UInt32(clamping: value))
        }
        for text in [container, codec, matrix, range, transfer] { wire.string(text) }
        for time in times {
            wire.u64(time.seconds.bitPattern)
            wire.u64(time.duration.bitPattern)
        }
        return wire.bytes
    }

    /// Reads ``encoded``; `nil` when the bytes are cut, too long, or out of range.
    init?(decoding bytes: [UInt8]) {
        var wire = WireReader(bytes)
        var numbers: [Int] = []
        for _ in 0..<7 {
            guard let value = wire.u32() else { return nil }
            numbers.append(Int(value))
        }
        var names: [String] = []
        for _ in 0..<5 {
            guard let text = wire.string() else { return nil }
            names.append(text)
        }
        guard numbers[2] < 4, numbers[6] <= (bytes.count - wire.at) / 16 else { return nil }
        var times: [(seconds: Double, duration: Double)] = []
        for _ in 0..<numbers[6] {
            guard let seconds = wire.u64(), let duration = wire.u64() else { return nil }
            times.append((Double(bitPattern: seconds), Double(bitPattern: duration)))
        }
        guard wire.at == bytes.count else { return nil }
        self.init(
            width: numbers[0], height: numbers[1], quarterTurns: numbers[2], hasAlpha: numbers[3] == 1,
            cutShort: numbers[4] == 1, container: names[0], codec: names[1], matrix: names[2], range: names[3],
            transfer: names[4], times: times)
        mirrored = numbers[5] == 1
    }
}
