import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// A right-angle turn or a mirror just before a resize is moved after it (the image resized as
/// stored, the small result turned): the same pixels whatever the source, and a JPEG under the
/// turn is resized as it is decoded.
@Suite("A turn before a resize")
struct TurnThenResizeTests {
    static let photo = JPEGSplitDecodeTests.photo(width: 301, height: 203)

    static func jpeg() throws -> ImageSource {
        try ImageSource(data: try JPEGEncoder(quality: 92).encode(photo), name: "photo.jpg")
    }

    static func pixels(_ source: any FrameSource) throws -> PixelBuffer? {
        try OperationsTests.frames(source).first?.image
    }

    @Test(arguments: [
        ("rotate 90", RotateOperation(degrees: 90) as any FrameOperation, ImageOrientation.right),
        ("rotate 180", RotateOperation(degrees: 180), .down),
        ("rotate -90", RotateOperation(degrees: -90), .left),
        ("flip", MirrorOperation(.flip), .downMirrored),
        ("flop", MirrorOperation(.flop), .upMirrored),
    ])
    func turnThenResizeIsResizeThenTurn(name: String, turn: any FrameOperation, orientation: ImageOrientation)
        async throws
    {
        let context = OperationContext()
        let resize = try ResizeOperation(size: "120")
        // The JPEG, and the same pixels decoded whole (a source that does not stream).
        let jpeg = try Self.jpeg()
        guard let decoded = try Self.pixels(jpeg) else { throw ImgToolError(.corrupt, "no frame") }
        for source in [jpeg as any FrameSource, StillImageSource(decoded)] {
            let chained = try await resize.apply(
                to: try await turn.apply(to: source, context: context), context: context)
            #expect(chained.info.width == 120, "\(name)")
            // The resize runs on the stored image, right under the turn.
            let mapped = chained as? MappedFrameSource
            #expect(mapped?.base is ResizedFrameSource, "\(name)")
            #expect((mapped?.base as? ResizedFrameSource)?.base is ImageSource == (source is ImageSource), "\(name)")
            // Reference: the stored image resized to the turned-back size, then turned.
            let stored = orientation.inverse.displayedSize(
                of: PixelSize(width: chained.info.width, height: chained.info.height))
            let reference = try ResizedFrameSource(
                StillImageSource(decoded), geometry: ResizeGeometry(whole: stored), limits: .default)
            let expected = try Self.pixels(reference)?.turned(orientation)
            let got = try Self.pixels(chained)
            #expect(got?.width == expected?.width && got?.height == expected?.height, "\(name)")
            let same = got?.rgba8 == expected?.rgba8
            #expect(same, "\(name) from \(type(of: source))")
        }
    }

    @Test func anAngleThatIsNotARightAngleIsNotMoved() async throws {
        let context = OperationContext()
        let turned = try await RotateOperation(degrees: 30).apply(to: try Self.jpeg(), context: context)
        let chained = try await ResizeOperation(size: "100").apply(to: turned, context: context)
        #expect(chained is ResizedFrameSource)
    }
}
