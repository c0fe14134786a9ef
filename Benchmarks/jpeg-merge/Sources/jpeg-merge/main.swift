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
    let still = StillImageSource(result.image)
    var sink = ByteSink()
    try await JPEGCodec().write(still, into: &sink, options: ImageWriteOptions(quality: arguments.count == 5 ? Int(arguments[4]) : nil), progress: nil)
    try Data(sink.bytes).write(to: URL(fileURLWithPath: arguments[3]))
} catch {
    FileHandle.standardError.write(Data("jpeg-merge: \(error)\n".utf8))
    exit(1)
}
