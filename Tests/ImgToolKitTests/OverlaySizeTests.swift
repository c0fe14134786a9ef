import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// Watermarks sized to the background: `OverlayPlacement.overlayWidth` / `overlayHeight`,
/// applied to every overlay before gravity and offset.
@Suite("Overlay size", .timeLimit(.minutes(5)))
struct OverlaySizeTests {
    @Test(
        "Overlay sizes: pixels or percentages of the background, aspect kept",
        arguments: [
            ("25%", nil, "250x125"), (nil, "10%", "160x80"), ("100", nil, "100x50"), ("50%", "10%", "160x80"),
            ("10%", "50%", "100x50"), (nil, nil, "200x100"), ("1", nil, "1x1"),
        ] as [(String?, String?, String)])
    func sizes(width: String?, height: String?, expected: String) throws {
        let placement = try OverlayPlacement(
            overlayWidth: width.map { (text) throws(ImgToolError) in try ResizeSpec.Length(parsing: text) },
            overlayHeight: height.map { (text) throws(ImgToolError) in try ResizeSpec.Length(parsing: text) })
        let size = placement.overlaySize(
            overlay: PixelSize(width: 200, height: 100), canvas: PixelSize(width: 1000, height: 800))
        #expect(size.description == expected)
    }

    /// A white opaque square drawn sized, placed and offset on a black opaque canvas: the white
    /// area is exactly where the sized overlay lands.
    @Test("Sizing happens before gravity and offset")
    func sizeThenPlace() throws {
        let background = MergeFixtures.solid([0, 0, 0, 255], width: 100, height: 80)
        let overlay = MergeFixtures.solid([255, 255, 255, 255], width: 10, height: 5)
        let cases: [(OverlayPlacement, FrameRegion)] = [
            (try OverlayPlacement(overlayWidth: .percent(50)), FrameRegion(x: 25, y: 27, width: 50, height: 25)),
            (
                try OverlayPlacement(gravity: .southEast, offsetX: -3, offsetY: -2, overlayHeight: .pixels(20)),
                FrameRegion(x: 57, y: 58, width: 40, height: 20)
            ),
            (
                try OverlayPlacement(gravity: .northWest, overlayWidth: .pixels(1)),
                FrameRegion(x: 0, y: 0, width: 1, height: 1)
            ),
        ]
        for (placement, white) in cases {
            let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
            for y in 0..<80 {
                for x in 0..<100 {
                    let inside =
                        (white.x..<white.x + white.width).contains(x) && (white.y..<white.y + white.height).contains(y)
                    let pixel = result.pixel8(x: x, y: y)
                    #expect(pixel == (inside ? [255, 255, 255, 255] : [0, 0, 0, 255]), "\(placement) at \(x),\(y)")
                    if pixel != (inside ? [255, 255, 255, 255] : [0, 0, 0, 255]) { return }
                }
            }
        }
    }

    @Test("An overlay resized past the background is computed only where it lands")
    func largerThanTheCanvas() throws {
        let background = MergeFixtures.solid([0, 0, 0, 255], width: 60, height: 40)
        let overlay = MergeFixtures.solid([10, 200, 30, 255], width: 3, height: 3)
        // 1000% of 60 = 600 pixels wide and tall: 360,000 pixels, of which 2,400 are visible.
        let placement = try OverlayPlacement(gravity: .center, offsetX: 5, overlayWidth: .percent(1000))
        let result = OverlayCompositor.composite([overlay], onto: background, placement: placement)
        #expect(result.rgba8 == MergeFixtures.solid([10, 200, 30, 255], width: 60, height: 40).rgba8)
        // Entirely outside: nothing drawn.
        let away = try OverlayPlacement(gravity: .northWest, offsetX: 1000, overlayWidth: .percent(10))
        #expect(OverlayCompositor.composite([overlay], onto: background, placement: away) == background)
    }

    @Test("Animated overlays are resized frame by frame")
    func animatedOverlay() async throws {
        // Given a 40x30 background and a 6x4 3-frame GIF overlay sized to 50% of the background's width
        let background = TestImages.noise8(width: 40, height: 30, seed: 5)
        let gif = MergeAnimationTests.movingSquare(count: 3, delay: 4)
        let (folder, paths) = try MergeAnimationTests.write([
            "bg.png": try MergeFixtures.png(background), "anim.gif": gif,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let placement = try OverlayPlacement(gravity: .southWest, offsetX: 2, overlayWidth: .percent(50))
        // When they are merged
        let result = try await ImageMerger(placement: placement).merge(
            background: try ImageInput(paths["bg.png"] ?? ""), overlays: [try ImageInput(paths["anim.gif"] ?? "")])
        // Then each merged frame is the overlay's frame resized to 20x13, then placed
        let animation = try #require(result.animation)
        let frames = try decodeGIFFrames(gif, depth: .eight).1
        let plain = try OverlayPlacement(gravity: .southWest, offsetX: 2)
        let reader = animation.makeFrameReader(depth: nil)
        for index in 0..<3 {
            let image = try #require(try reader.nextFrame()).image
            let sized = try frames[index].image.resized(to: PixelSize(width: 20, height: 13))
            let expected = OverlayCompositor.composite([sized], onto: background, placement: plain)
            #expect(firstDifference(expected, image) == nil, "frame \(index)")
        }
    }
}
