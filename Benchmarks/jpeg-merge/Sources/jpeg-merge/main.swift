// jpeg-merge BACKGROUND OVERLAY OUT.jpg [QUALITY]: merge through ImgToolKit, write JPEG with JPEGCodec
// (at its default quality unless QUALITY is given).
import Foundation
import ImgToolKit

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: jpeg-merge BACKGROUND OVERLAY OUT.jpg [QUALITY]\n".utf8))
    exit(64)
}
do {
    let result = try await ImageMerger().merge(
        background: try ImageInput(arguments[1]), overlays: [try ImageInput(arguments[2])])
    let still = StillSource(image: result.image)
    var sink = ByteSink()
    try await JPEGCodec().write(still, into: &sink, options: ImageWriteOptions(quality: arguments.count == 5 ? Int(arguments[4]) : nil), progress: nil)
    try Data(sink.bytes).write(to: URL(fileURLWithPath: arguments[3]))
} catch {
    FileHandle.standardError.write(Data("jpeg-merge: \(error)\n".utf8))
    exit(1)
}

/// The merged image as a one-frame source.
struct StillSource: FrameSource {
    let image: PixelBuffer
    var info: ImageInfo {
        ImageInfo(
            format: .png, width: image.width, height: image.height, bitDepth: 8, colorType: .rgba,
            frames: [
                FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: image.width, height: image.height),
                    disposal: .none, blend: .source)
            ])
    }
    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader { Reader(image: image) }

    final class Reader: FrameReader {
        var image: PixelBuffer?
        init(image: PixelBuffer) { self.image = image }
        func nextFrame() throws(ImgToolError) -> Frame? {
            guard let frame = image else { return nil }
            image = nil
            return Frame(
                info: FrameInfo(
                    index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: frame.width, height: frame.height),
                    disposal: .none, blend: .source), image: frame)
        }
    }
}
