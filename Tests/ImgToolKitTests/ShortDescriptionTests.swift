import Testing

@testable import ImgToolKit

@Suite("Public values print as short summaries", .timeLimit(.minutes(5)))
struct ShortDescriptionTests {
    @Test("A buffer, a frame, a source and a merge result print their sizes, never their samples or bytes")
    func summaries() throws {
        let buffer = PixelBuffer(width: 320, height: 200)
        #expect("\(buffer)" == "PixelBuffer(320x200, rgba8)")
        #expect(String(reflecting: buffer) == "PixelBuffer(320x200, rgba8)")
        let frame = Frame(
            info: FrameInfo(
                index: 3, delay: .milliseconds(40), region: FrameRegion(x: 0, y: 0, width: 320, height: 200),
                disposal: .none, blend: .source), image: buffer)
        #expect("\(frame)" == "Frame(3, 40 ms, PixelBuffer(320x200, rgba8))")
        let source = try ImageSource(data: try PNGEncoder().encode(buffer), name: "a.png")
        #expect("\(source)" == "ImageSource(a.png: png 320x200, 1 frame, plays once)")
        let result = ImageMerger.Result(image: buffer, backgroundInfo: source.info, skipped: [])
        #expect("\(result)".count < 100)
    }
}
