/// libavformat and libavcodec in a child process (``DecoderIsolation``): what the parent asks and
/// what the child answers. `describe` sends back a ``VideoDescription``, then waits for a depth
/// byte (8 or 16) to decode at and the frames to decode (``selection(_:count:)``), or the end of
/// the connection; then it seeks to the first of them through the container's index
/// (``VideoFile/seek(to:name:)``) and streams them, turned and converted, one `F` record each
/// (the frames between are decoded but neither converted nor sent), and the `Z` record. The socket
/// holds a frame or two, so the child decodes only as far ahead as the parent reads, and memory
/// stays at a frame or two on each side. A later reader starts a child of its own with `decode`,
/// and sends it the frames to decode the same way. The operation names the container after a
/// space (`describe MP4`), for the child's messages.
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
    /// `waiting`, asked to decode `frames` (ascending, of `count`) at `depth`, else a new one.
    static func decode(
        _ data: [UInt8], limits: DecodingLimits, name: String, depth: SampleDepth, frames: [Int], count: Int,
        isolation: DecoderIsolation, waiting: Locked<IsolatedDecode?>
    ) throws(ImgToolError) -> IsolatedDecode {
        if let described = waiting.withLock({ (session: inout IsolatedDecode?) in
            defer { session = nil }
            return session
        }) {
            try described.ask([depth == .sixteen ? 16 : 8] + selection(frames, count: count))
            return described
        }
        let session = try IsolatedDecode(
            isolation, library: "libavcodec",
            request: IsolatedRequest(kind: kind, operation: "decode \(name)", depth: depth, limits: limits, data: data))
        try session.ask(selection(frames, count: count))
        return session
    }

    /// The frames to decode on the wire: the first and how many are listed (32 bits each), then
    /// each listed one; none listed means every frame from the first to the last of `count`.
    static func selection(_ frames: [Int], count: Int) -> [UInt8] {
        var wire = WireWriter()
        let first = frames.first ?? count
        wire.u32(UInt32(clamping: first))
        let toTheEnd = frames.count == count - first && frames.last.map { $0 == count - 1 } ?? true
        wire.u32(toTheEnd ? 0 : UInt32(clamping: frames.count))
        if !toTheEnd {
            for frame in frames { wire.u32(UInt32(clamping: frame)) }
        }
        return wire.bytes
    }

    /// The child's reading of ``selection(_:count:)`` from the parent: the frames, ascending and
    /// below `count`; `nil` when the parent closed the connection or sent something else.
    static func readSelection(count: Int) -> [Int]? {
        guard let head = IsolatedDecoderService.question(count: 8) else { return nil }
        var wire = WireReader(head)
        guard let first = wire.u32().map(Int.init), let listed = wire.u32().map(Int.init), listed <= count else {
            return nil
        }
        if listed == 0 { return first <= count ? Array(first..<count) : nil }
        guard let bytes = IsolatedDecoderService.question(count: 4 * listed) else { return nil }
        var list = WireReader(bytes)
        var frames: [Int] = []
        frames.reserveCapacity(listed)
        for _ in 0..<listed {
            guard let frame = list.u32().map(Int.init), frame < count, (frames.last ?? -1) < frame else { return nil }
            frames.append(frame)
        }
        return frames.first == first ? frames : nil
    }

    /// The child's side of both.
    static func serve(_ request: IsolatedRequest, _ output: IsolatedOutput) throws(ImgToolError) {
        let words = request.operation.split(separator: " ", maxSplits: 1).map(String.init)
        let name = words.count == 2 ? words[1] : "video"
        let file = try VideoFile(data: request.data, limits: request.limits, name: name)
        let depth: SampleDepth
        switch words.first {
        case "describe":
            output.payload(file.description.encoded)
            guard let asked = IsolatedDecoderService.question(), asked == 8 || asked == 16 else { return }
            depth = asked == 16 ? .sixteen : .eight
        case "decode":
            depth = request.depth ?? .eight
        default:
            throw ImgToolError(.unsupportedFormat, "the video decoder process cannot \(request.operation)")
        }
        guard let frames = readSelection(count: file.description.times.count) else { return }
        try file.decode(frames, name: name) { (_, image) throws(ImgToolError) in
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
