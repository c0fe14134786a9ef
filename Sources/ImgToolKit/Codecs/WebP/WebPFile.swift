/// A WebP file's structure: canvas, animation parameters and frame table, as offsets into the
/// file; no pixels are decoded.
///
/// Three layouts (WebP container specification): the simple lossy (`VP8 `) or lossless (`VP8L`)
/// file, one bitstream chunk after the RIFF header; the extended file (`VP8X`) holding one
/// image (`ALPH` + `VP8 `, or `VP8L`) among metadata chunks; and the animated extended file,
/// an `ANIM` chunk then one `ANMF` chunk per frame. The rules follow libwebp's demuxer, so a
/// file imgtool reads is one libwebp reads: `ANIM` precedes the frames, an `ALPH` chunk goes
/// with a `VP8 ` bitstream only, every frame lies inside the canvas, a frame's size is its
/// bitstream's, and a still's bitstream fills the canvas exactly.
///
/// Each declared size is checked against ``DecodingLimits`` (canvas, each frame, frames x
/// canvas) as it is read, before anything is allocated for it. A file that ends early keeps
/// the frames whose chunks are complete (``truncation`` says where it ended).
struct WebPFile: Sendable {
    /// One frame's entry: its table entry and where its bitstream lies.
    struct Frame: Sendable, Hashable {
        /// Index, delay (the ANMF duration in ms), region, disposal and blend.
        var info: FrameInfo
        /// The bytes libwebp's `WebPDecode` takes: the `ALPH` chunk (when the frame has one)
        /// through the end of the `VP8 ` or `VP8L` chunk, headers included.
        var bitstream: Range<Int>
        /// Offset of the frame's `ANMF` chunk, or of the still's bitstream chunk.
        var offset: Int
        /// Whether the frame has alpha (an `ALPH` chunk, or `alpha_is_used` in a `VP8L` header).
        var hasAlpha: Bool
        /// Whether the bitstream is lossless (`VP8L`).
        var isLossless: Bool
    }

    /// Canvas width in pixels (`VP8X`, or the bitstream's for a simple file).
    var width: Int
    /// Canvas height in pixels.
    var height: Int
    /// Whether the file is an animation (`VP8X` animation flag).
    var isAnimated: Bool
    /// The `VP8X` alpha flag.
    var declaresAlpha: Bool
    /// The animation parameters; `nil` for a still.
    var animation: ANIMChunk?
    /// The complete frames, in file order.
    var frames: [Frame]
    /// Why the frame table stops early (the data ends inside a chunk), or `nil`.
    var truncation: String?
    /// What the parser tolerated, one sentence each.
    var warnings: [String] = []
    /// The payloads of the first `ICCP`, `EXIF` and `XMP ` chunks, each within
    /// ``DecodingLimits/maxChunkBytes``.
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    /// Parses the container in `data`.
    /// - Throws: ``ImgToolError``: `unsupportedFormat` without the `RIFF....WEBP` signature;
    ///   `tooLarge` when the canvas, a frame or the whole animation passes `limits`; `truncated`
    ///   when the data ends before the first frame is complete; `corrupt` for a chunk that breaks
    ///   the rules above, with its offset.
    init(parsing data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        guard data.count >= 12, data[0..<4].elementsEqual("RIFF".utf8), data[8..<12].elementsEqual("WEBP".utf8)
        else {
            throw ImgToolError(.unsupportedFormat, "not a WebP file: no RIFF....WEBP signature")
        }
        let riffSize = Int(data.webPUInt32(at: 4))
        guard riffSize >= 12 else {
            throw ImgToolError(
                .corrupt, "corrupt WebP: the RIFF size is \(riffSize) bytes, fewer than the 12 of a header")
        }
        let riffEnd = 8 + riffSize
        width = 0
        height = 0
        isAnimated = false
        declaresAlpha = false
        frames = []
        do throws(WebPChunk.Failure) {
            let first = try WebPChunk(in: data, at: 12, limit: riffEnd, context: "the RIFF data")
            switch first.tag {
            case "VP8 ", "VP8L":
                try parseSimple(first, data: data, limits: limits)
            case "VP8X":
                try parseExtended(VP8XChunk(parsing: data, chunk: first), after: first, data: data, limits: limits)
            default:
                throw .corrupt("the first chunk is \(first.name) at offset 12, expected VP8, VP8L or VP8X")
            }
        } catch {
            switch error {
            case .truncated(let message):
                guard !frames.isEmpty else { throw ImgToolError(.truncated, "truncated WebP: \(message)") }
                truncation = message
            case .corrupt(let message):
                throw ImgToolError(.corrupt, "corrupt WebP: \(message)")
            case .limit(let refusal):
                throw refusal
            }
        }
    }

    // MARK: - Layouts

    /// A simple file: the bitstream chunk is the image and sets the canvas.
    private mutating func parseSimple(_ chunk: WebPChunk, data: [UInt8], limits: DecodingLimits)
        throws(WebPChunk.Failure)
    {
        let features = try Self.features(of: data, image: chunk, what: "the \(chunk.name) bitstream")
        width = features.width
        height = features.height
        try Self.check { () throws(ImgToolError) in
            try limits.checkPixels(width: width, height: height, what: "WebP image")
        }
        frames = [
            Frame(
                info: Self.stillInfo(width: width, height: height), bitstream: chunk.whole, offset: chunk.offset,
                hasAlpha: features.hasAlpha, isLossless: features.isLossless)
        ]
    }

    /// An extended file: a still among metadata chunks, or an animation.
    private mutating func parseExtended(
        _ header: VP8XChunk, after vp8x: WebPChunk, data: [UInt8], limits: DecodingLimits
    ) throws(WebPChunk.Failure) {
        width = header.canvasWidth
        height = header.canvasHeight
        isAnimated = header.isAnimated
        declaresAlpha = header.hasAlpha
        try Self.check { [width, height] () throws(ImgToolError) in
            try limits.checkPixels(width: width, height: height, what: "WebP canvas")
        }
        let riffEnd = 8 + Int(data.webPUInt32(at: 4))
        var alpha: WebPChunk?
        var ignoredFrames = 0
        // ANMF chunks past --max-frames: counted (their headers only), so that the error says
        // how many frames the animation has.
        var framesPastLimit = 0
        var offset = vp8x.end
        while offset < riffEnd {
            if riffEnd - offset < WebPChunk.headerSize, !frames.isEmpty, data.count >= riffEnd {
                warnings.append(
                    "\(riffEnd - offset) stray bytes at offset \(offset), at the end of the RIFF data, ignored")
                break
            }
            let chunk = try WebPChunk(in: data, at: offset, limit: riffEnd, context: "the RIFF data")
            offset = chunk.end
            switch chunk.tag {
            case "ANIM":
                if isAnimated { animation = try ANIMChunk(parsing: data, chunk: chunk) }
            case "ANMF":
                guard isAnimated else {
                    ignoredFrames += 1
                    continue
                }
                guard animation != nil else {
                    throw .corrupt("the ANMF chunk at offset \(chunk.offset) comes before the ANIM chunk")
                }
                guard frames.count < limits.maxFrames else {
                    framesPastLimit += 1
                    continue
                }
                try appendAnimationFrame(chunk, data: data, limits: limits)
            case "ALPH", "VP8 ", "VP8L":
                guard !isAnimated else {
                    throw .corrupt(
                        "the \(chunk.name) chunk at offset \(chunk.offset) lies outside any ANMF frame of an animation")
                }
                guard frames.isEmpty else { continue }  // libwebp shows the first image
                if chunk.tag == "ALPH" {
                    if alpha == nil { alpha = chunk }
                    continue
                }
                try setStill(chunk, alpha: chunk.tag == "VP8 " ? alpha : nil, data: data)
            case "ICCP", "EXIF", "XMP ":
                keepMetadata(chunk, data: data, limit: limits.maxChunkBytes)
            default:
                continue  // unknown chunks
            }
        }
        if framesPastLimit > 0 {
            try Self.check { [width, height, frames] () throws(ImgToolError) in
                try limits.checkAnimation(frames: frames.count + framesPastLimit, width: width, height: height)
            }
        }
        if ignoredFrames > 0 {
            warnings.append(
                "\(ignoredFrames) ANMF chunk\(ignoredFrames == 1 ? "" : "s") ignored: the VP8X header does not declare an animation"
            )
        }
        if frames.isEmpty {
            throw .corrupt(isAnimated ? "the animation has no ANMF frame" : "no VP8 or VP8L bitstream in the file")
        }
    }

    /// The image of an extended still, which must fill the canvas exactly.
    private mutating func setStill(_ image: WebPChunk, alpha: WebPChunk?, data: [UInt8]) throws(WebPChunk.Failure) {
        let features = try Self.features(of: data, image: image, what: "the \(image.name) bitstream")
        guard features.width == width, features.height == height else {
            throw .corrupt(
                "the \(image.name) bitstream at offset \(image.offset) is \(features.width)x\(features.height), but the VP8X canvas is \(width)x\(height)"
            )
        }
        frames = [
            Frame(
                info: Self.stillInfo(width: width, height: height),
                bitstream: (alpha?.offset ?? image.offset)..<image.payload.upperBound, offset: image.offset,
                hasAlpha: alpha != nil || features.hasAlpha, isLossless: features.isLossless)
        ]
    }

    /// Adds the frame of one complete `ANMF` chunk.
    private mutating func appendAnimationFrame(_ chunk: WebPChunk, data: [UInt8], limits: DecodingLimits)
        throws(WebPChunk.Failure)
    {
        let index = frames.count
        let header = try ANMFChunk(parsing: data, chunk: chunk)
        let name = "ANMF frame \(index) (offset \(chunk.offset))"
        var alpha: WebPChunk?
        var image: WebPChunk?
        var inner = chunk.payload.lowerBound + ANMFChunk.headerSize
        while image == nil, inner < chunk.payload.upperBound {
            let sub = try WebPChunk(in: data, at: inner, limit: chunk.payload.upperBound, context: name)
            inner = sub.end
            switch sub.tag {
            case "ALPH" where alpha == nil:
                alpha = sub
            case "VP8L" where alpha != nil:
                throw .corrupt(
                    "\(name): an ALPH chunk precedes its VP8L bitstream, which carries its own alpha")
            case "VP8 ", "VP8L":
                image = sub
            default:
                inner = chunk.payload.upperBound  // libwebp reads no further
            }
        }
        guard let image else { throw .corrupt("\(name) has no VP8 or VP8L bitstream") }
        let features = try Self.features(of: data, image: image, what: "the \(image.name) bitstream of \(name)")
        let region = FrameRegion(x: header.x, y: header.y, width: features.width, height: features.height)
        guard region.x + region.width <= width, region.y + region.height <= height else {
            throw .corrupt("\(name) (\(region)) extends past the \(width)x\(height) canvas")
        }
        if header.width != features.width || header.height != features.height,
            !warnings.contains(where: {
                $0.hasPrefix("ANMF frame")
            })
        {
            warnings.append(
                "\(name) declares \(header.width)x\(header.height) but its bitstream is \(features.width)x\(features.height); the bitstream's size is used, as libwebp does"
            )
        }
        try Self.check { [width, height] () throws(ImgToolError) in
            try limits.checkPixels(width: region.width, height: region.height, what: "WebP frame \(index) (\(region))")
            try limits.checkAnimation(frames: index + 1, width: width, height: height)
        }
        let info = FrameInfo(
            index: index, delay: .milliseconds(header.duration), region: region,
            disposal: header.disposesToBackground ? .background : .none, blend: header.blends ? .over : .source)
        frames.append(
            Frame(
                info: info, bitstream: (alpha?.offset ?? image.offset)..<image.payload.upperBound,
                offset: chunk.offset, hasAlpha: alpha != nil || features.hasAlpha, isLossless: features.isLossless))
    }

    // MARK: - Helpers

    private static func stillInfo(width: Int, height: Int) -> FrameInfo {
        FrameInfo(
            index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none,
            blend: .source)
    }

    /// The bitstream header of the `VP8 ` or `VP8L` chunk `image`.
    private static func features(of data: [UInt8], image: WebPChunk, what: String) throws(WebPChunk.Failure)
        -> WebPBitstream.Features
    {
        switch WebPBitstream.features(of: data, in: image.whole) {
        case .success(let features): return features
        case .failure(let status):
            throw .corrupt("\(what) at offset \(image.offset) has an invalid header (libwebp: \(status))")
        }
    }

    /// Runs a limit check, carrying its error through the parser's failure type.
    private static func check(_ body: () throws(ImgToolError) -> Void) throws(WebPChunk.Failure) {
        do throws(ImgToolError) {
            try body()
        } catch {
            throw .limit(error)
        }
    }
}

extension WebPFile {
    /// Keeps the first `ICCP`, `EXIF` or `XMP ` chunk's payload, or warns when it is over `limit`.
    fileprivate mutating func keepMetadata(_ chunk: WebPChunk, data: [UInt8], limit: Int) {
        guard chunk.payload.upperBound <= data.count else { return }
        guard chunk.payload.count <= limit else {
            warnings.append(
                "the \(chunk.name) chunk of \(chunk.payload.count) bytes is over the limit of \(limit) bytes; left out")
            return
        }
        let payload = Array(data[chunk.payload])
        switch chunk.tag {
        case "ICCP" where icc == nil: icc = payload
        case "EXIF" where exif == nil: exif = payload
        case "XMP " where xmp == nil: xmp = payload
        default: break
        }
    }
}
