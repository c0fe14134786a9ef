import Testing

@testable import ImgToolKit

/// Colours used by the GIF tests, by the letter that draws them in a picture.
enum GIFTestColor {
    static let red: GIFBuilder.RGB = (255, 0, 0)
    static let green: GIFBuilder.RGB = (0, 255, 0)
    static let blue: GIFBuilder.RGB = (0, 0, 255)
    static let white: GIFBuilder.RGB = (255, 255, 255)
    static let yellow: GIFBuilder.RGB = (255, 255, 0)

    /// `R G B W Y` are the opaque colours above, `K` opaque black, `.` transparent.
    static let letters: [Character: [UInt8]] = [
        "R": [255, 0, 0, 255], "G": [0, 255, 0, 255], "B": [0, 0, 255, 255], "W": [255, 255, 255, 255],
        "Y": [255, 255, 0, 255], "K": [0, 0, 0, 255], ".": [0, 0, 0, 0],
    ]
}

/// RGBA8 samples for a picture drawn with ``GIFTestColor/letters``, one string per row.
func gifRGBA(_ rows: [String]) -> [UInt8] {
    rows.flatMap { row in row.flatMap { GIFTestColor.letters[$0] ?? [1, 2, 3, 4] } }
}

/// Compares a whole frame with a picture; on a mismatch, reports the first differing pixel and
/// how many differ (pixels with alpha 0 compare equal whatever their colour).
func expectGIFPicture(
    _ image: PixelBuffer, _ rows: [String], _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    let height = rows.count
    let width = rows.first?.count ?? 0
    guard image.width == width, image.height == height else {
        Issue.record(
            "\(comment) size \(image.width)x\(image.height), expected \(width)x\(height)",
            sourceLocation: sourceLocation)
        return
    }
    expectGIFSamples(image, gifRGBA(rows), comment, sourceLocation: sourceLocation)
}

/// Compares a whole 8-bit frame with expected RGBA8 samples, reporting the first difference.
func expectGIFSamples(
    _ image: PixelBuffer, _ expected: [UInt8], _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    var actual = image.converted(to: .eight)
    actual.clearInvisibleColor()
    var want = PixelBuffer(width: image.width, height: image.height, rgba8: expected)
    want.clearInvisibleColor()
    guard let got = actual.rgba8, let wanted = want.rgba8, got != wanted else { return }
    var first: Int?
    var differing = 0
    for pixel in 0..<image.width * image.height
    where got[pixel * 4..<pixel * 4 + 4] != wanted[pixel * 4..<pixel * 4 + 4] {
        if first == nil { first = pixel }
        differing += 1
    }
    let at = first ?? 0
    let actualPixel = Array(got[at * 4..<at * 4 + 4])
    let expectedPixel = Array(wanted[at * 4..<at * 4 + 4])
    let place = "pixel (\(at % image.width),\(at / image.width))"
    let message = "\(comment) \(place) is \(actualPixel), expected \(expectedPixel); \(differing) differ"
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// Every composited frame of `bytes`, opened as `name`.
///
/// The frames are also decoded with every frame's LZW data decoded by the reader itself and
/// with two helper threads decoding ahead (``DecodeAhead``); all three must give the same
/// frames, or fail at the same frame with the same error.
func decodeGIFFrames(
    _ bytes: [UInt8], name: String = "test.gif", depth: SampleDepth? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (ImageInfo, [Frame]) {
    let source = try ImageSource(data: bytes, name: name)
    let (frames, failure) = readAllFrames(try source.makeFrameReader(depth: depth))
    if let gif = try? GIFSource(data: bytes, limits: .default) {
        for helpers in [0, 2] {
            let (otherFrames, otherFailure) = readAllFrames(
                GIFFrameReader(source: gif, depth: depth ?? .eight, helpers: helpers))
            #expect(otherFrames == frames, "\(helpers) helpers: different frames", sourceLocation: sourceLocation)
            #expect(
                otherFailure?.code == failure?.code, "\(helpers) helpers: \(String(describing: otherFailure))",
                sourceLocation: sourceLocation)
        }
    }
    if let failure { throw failure }
    return (source.info, frames)
}

/// Palette indices from digit strings, one per row: `["01", "23"]`.
func gifIndices(_ rows: [String]) -> [UInt8] {
    rows.flatMap { row in row.map { UInt8($0.hexDigitValue ?? 0) } }
}

/// The palette most GIF tests use: 0 red, 1 green, 2 blue, 3 white.
let gifTestPalette: [GIFBuilder.RGB] = [GIFTestColor.red, GIFTestColor.green, GIFTestColor.blue, GIFTestColor.white]

/// Every frame a reader gives, and the error that stopped it, if any.
func readAllFrames(_ reader: any FrameReader) -> (frames: [Frame], failure: ImgToolError?) {
    var frames: [Frame] = []
    do throws(ImgToolError) {
        while let frame = try reader.nextFrame() { frames.append(frame) }
    } catch {
        return (frames, error)
    }
    return (frames, nil)
}
