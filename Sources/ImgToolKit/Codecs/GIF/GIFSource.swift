/// Placeholder until the GIF decoder lands (issue 4).
struct GIFSource: FrameSource {
    let info: ImageInfo

    init(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        throw ImgToolError(.unsupportedFormat, "GIF is not supported yet")
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        throw ImgToolError(.unsupportedFormat, "GIF is not supported yet")
    }
}
