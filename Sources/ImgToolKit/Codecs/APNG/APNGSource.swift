/// Placeholder until the APNG decoder lands (issue 4): detects `acTL` and refuses.
struct APNGSource: FrameSource {
    let info: ImageInfo

    init?(data: [UInt8], limits: DecodingLimits) throws(ImgToolError) {
        var offset = 8
        while offset + 8 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if type == "acTL" { throw ImgToolError(.unsupportedFormat, "APNG animation is not supported yet") }
            if type == "IDAT" || type == "IEND" { return nil }
            offset += 12 + length
        }
        return nil
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        throw ImgToolError(.unsupportedFormat, "APNG animation is not supported yet")
    }
}
