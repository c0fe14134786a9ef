/// libheif in a child process (``DecoderIsolation``): what the parent asks and what the child
/// answers. `describe` sends back a ``HEIFDescription``, then waits for one more byte from the
/// parent: a depth (8 or 16) to decode the primary image at, or the end of the connection. So
/// the child that parsed the file decodes it too when the first reader asks, and a HEIC costs
/// one process start; a later reader starts a child of its own with `decode`. The child parses
/// the file as ``HEIFSource`` does in one process, item graph and limits checked again there, so
/// the errors are the same ones; the parent checks the sizes it is sent against its limits before
/// allocating.
enum HEIFIsolation {
    /// The kind a child serves (``IsolatedRequest/kind``).
    static let kind = "heif"
    /// Most bytes of a description: an ICC profile, an EXIF block and an XMP packet of at most
    /// 16 MiB each (``HEIFFile``'s bound), and the sizes.
    static let maxDescriptionBytes = 3 * (16 << 20 + 5) + 64

    /// The parent's side of `describe`: the description, and the child, waiting to decode.
    static func describe(_ data: [UInt8], limits: DecodingLimits, isolation: DecoderIsolation)
        throws(ImgToolError) -> (HEIFDescription, waiting: IsolatedDecode)
    {
        let session = try IsolatedDecode(
            isolation, library: "libheif",
            request: IsolatedRequest(kind: kind, operation: "describe", depth: nil, limits: limits, data: data))
        let payload = try session.payload(maxBytes: maxDescriptionBytes)
        guard let description = HEIFDescription(decoding: payload) else {
            throw ImgToolError(.corrupt, "the libheif decoder process sent an unreadable description")
        }
        return (description, session)
    }

    /// The parent's side of `decode`: the primary image, `width` x `height` at `depth` as the
    /// description said, from the child that described it when it is still `waiting`, else
    /// from a new one.
    static func decode(
        _ data: [UInt8], limits: DecodingLimits, depth: SampleDepth, width: Int, height: Int,
        isolation: DecoderIsolation, waiting: Locked<IsolatedDecode?>
    ) throws(ImgToolError) -> PixelBuffer {
        let session: IsolatedDecode
        if let described = waiting.withLock({ (session: inout IsolatedDecode?) in
            defer { session = nil }
            return session
        }) {
            session = described
            try session.ask([depth == .sixteen ? 16 : 8])
        } else {
            session = try IsolatedDecode(
                isolation, library: "libheif",
                request: IsolatedRequest(kind: kind, operation: "decode", depth: depth, limits: limits, data: data))
        }
        let image = try session.frame(width: width, height: height, depth: depth)
        try session.end()
        return image
    }

    /// The child's side of both.
    static func serve(_ request: IsolatedRequest, _ output: IsolatedOutput) throws(ImgToolError) {
        let source = try HEIFSource(data: request.data, limits: request.limits, isolation: nil)
        guard case .inProcess(let file) = source.decoding else { return }
        let depth: SampleDepth
        switch request.operation {
        case "describe":
            output.payload(HEIFDescription(file).encoded)
            guard let asked = IsolatedDecoderService.question(), asked == 8 || asked == 16 else { return }
            depth = asked == 16 ? .sixteen : .eight
        case "decode":
            depth = request.depth ?? (source.storedDepth > 8 ? .sixteen : .eight)
        default:
            throw ImgToolError(.unsupportedFormat, "the HEIF decoder process cannot \(request.operation)")
        }
        output.frame(try file.decode(depth: depth, width: source.info.width, height: source.info.height))
    }
}

/// What libheif says of a HEIF's primary image before decoding it: its displayed size, depth,
/// alpha, coded size, profile, EXIF block and XMP packet.
struct HEIFDescription: Equatable {
    var width: Int
    var height: Int
    var bits: Int
    var hasAlpha: Bool
    var storedSize: PixelSize
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    init(
        width: Int, height: Int, bits: Int, hasAlpha: Bool, storedSize: PixelSize, icc: [UInt8]?, exif: [UInt8]?,
        xmp: [UInt8]?
    ) {
        (self.width, self.height, self.bits, self.hasAlpha) = (width, height, bits, hasAlpha)
        (self.storedSize, self.icc, self.exif, self.xmp) = (storedSize, icc, exif, xmp)
    }

    init(_ file: HEIFFile) {
        (width, height, bits, hasAlpha) = file.imageInfo
        storedSize = file.storedSize
        icc = file.icc
        exif = file.exif
        xmp = file.xmp
    }

    /// Sizes as 32-bit numbers, alpha a byte, then the three blocks (absent or length-prefixed).
    var encoded: [UInt8] {
        var wire = WireWriter()
        for value in [width, height, bits, storedSize.width, storedSize.height] {
            wire.u32(UInt32(clamping: value))
        }
        wire.byte(hasAlpha ? 1 : 0)
        wire.optionalBlock(icc)
        wire.optionalBlock(exif)
        wire.optionalBlock(xmp)
        return wire.bytes
    }

    /// Reads ``encoded``; `nil` when the bytes are cut or too long.
    init?(decoding bytes: [UInt8]) {
        var wire = WireReader(bytes)
        var numbers: [Int] = []
        for _ in 0..<5 {
            guard let value = wire.u32() else { return nil }
            numbers.append(Int(value))
        }
        guard let alpha = wire.byte(), let icc = wire.optionalBlock(), let exif = wire.optionalBlock(),
            let xmp = wire.optionalBlock(), wire.at == bytes.count
        else { return nil }
        (width, height, bits) = (numbers[0], numbers[1], numbers[2])
        storedSize = PixelSize(width: numbers[3], height: numbers[4])
        hasAlpha = alpha == 1
        (self.icc, self.exif, self.xmp) = (icc, exif, xmp)
    }
}
