/// A PNG without an `acTL` chunk: one frame, decoded by ``PNGDecoder``.
struct StillPNGSource: FrameSource {
    let data: [UInt8]
    let limits: DecodingLimits
    let info: ImageInfo

    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        let header = try PNGDecoder(limits: limits).header(of: data)
        try limits.checkPixels(width: header.width, height: header.height)
        self.data = data
        self.limits = limits
        self.info = ImageInfo(
            format: .png, width: header.width, height: header.height, bitDepth: header.bitDepth,
            colorType: header.colorType, isInterlaced: header.isInterlaced, color: header.color,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: header.width, height: header.height),
                    disposal: .none, blend: .source)
            ])
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        StillReader(source: self, depth: depth)
    }

    private final class StillReader: FrameReader {
        let source: StillPNGSource
        let depth: SampleDepth?
        var done = false

        init(source: StillPNGSource, depth: SampleDepth?) {
            self.source = source
            self.depth = depth
        }

        func nextFrame() throws(ImgToolError) -> Frame? {
            guard !done else { return nil }
            done = true
            let image = try PNGDecoder(limits: source.limits).decode(source.data, depth: depth)
            return Frame(info: source.info.frames[0], image: image)
        }
    }
}
