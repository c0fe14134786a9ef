/// The body of the fuzz targets in `Fuzz/`: opens `bytes` and decodes every frame under small
/// limits, discarding errors (they are the expected outcome for most inputs). Public so that the
/// fuzz package can call it; not meant for other use.
public enum FuzzDecode {
    /// Limits small enough that a fuzzer never waits on a legitimately huge image.
    public static let limits = DecodingLimits(maxPixels: 1 << 22, maxFrames: 512, maxTotalPixels: 1 << 26)

    /// Opens and fully decodes `bytes`; returns how many frames decoded.
    @discardableResult
    public static func run(_ bytes: [UInt8], name: String) -> Int {
        do {
            let source = try ImageSource(data: bytes, name: name, limits: limits)
            let reader = try source.makeFrameReader(depth: nil)
            var count = 0
            while let frame = try reader.nextFrame() {
                precondition(frame.image.width == source.info.width && frame.image.height == source.info.height)
                count += 1
            }
            return count
        } catch {
            precondition(error.input == name, "an error must name its input: \(error)")
            return -1
        }
    }

    /// Decodes `bytes` and, when every frame decodes, writes them as an APNG with ``APNGWriter``
    /// and checks that the APNG decodes to the same frames, delays and plays (trapping if not).
    /// Small inputs only (at most 256 Ki pixels in all frames), so the fuzzer keeps its pace.
    public static func roundTrip(_ bytes: [UInt8], name: String) {
        guard let source = try? ImageSource(data: bytes, name: name, limits: limits),
            source.info.width * source.info.height * source.info.frameCount <= 1 << 18
        else { return }
        let info = source.info
        var writer: APNGWriter?
        do {
            let reader = try source.makeFrameReader(depth: nil)
            while let frame = try reader.nextFrame() {
                if writer == nil {
                    writer = try APNGWriter(
                        width: info.width, height: info.height, frameCount: info.frameCount, plays: info.plays,
                        depth: frame.image.depth)
                }
                try writer?.append(frame.image, delay: frame.info.delay)
            }
            try writer?.finish()
        } catch {
            return  // the input does not decode whole: nothing to compare
        }
        guard let written = writer?.data else { return }
        do {
            let copy = try ImageSource(data: written, name: "written.png", limits: limits)
            precondition(copy.info.frameCount == info.frameCount && copy.info.plays == info.plays, "frames or plays")
            for (a, b) in zip(copy.info.frames, info.frames) {
                precondition(abs((a.delay - b.delay) / .nanoseconds(1)) < 1, "delay \(a.delay) != \(b.delay)")
            }
            let original = try source.makeFrameReader(depth: nil)
            let again = try copy.makeFrameReader(depth: nil)
            while let expected = try original.nextFrame() {
                let actual = try again.nextFrame()
                precondition(actual?.image == expected.image, "frame \(expected.index) differs after writing")
            }
        } catch {
            preconditionFailure("the written APNG does not decode: \(error)")
        }
    }

    /// Decodes `bytes` and, when every frame decodes, writes them as a lossless WebP with
    /// ``WebPCodec``'s writer and checks that it decodes to exactly the same canvases (every
    /// sample, the colour of transparent pixels included), delays and plays, trapping if not.
    /// libwebp's animation encoder merges a frame identical to the one before into its duration,
    /// so the comparison moves to the next written frame only when the picture changes or a
    /// segment encoded on its own starts (`WebPWriter.segments(frameCount:processors:)`), and
    /// an animation whose frames are all alike is written as a still. Small
    /// inputs only (at most 256 Ki pixels in all frames).
    public static func roundTripWebP(_ bytes: [UInt8], name: String) {
        guard let source = try? ImageSource(data: bytes, name: name, limits: limits),
            source.info.width * source.info.height * source.info.frameCount <= 1 << 18
        else { return }
        var frames: [Frame] = []
        do {
            let reader = try source.makeFrameReader(depth: .eight)
            while let frame = try reader.nextFrame() { frames.append(frame) }
        } catch {
            return  // the input does not decode whole: nothing to compare
        }
        guard !frames.isEmpty else { return }
        var sink = ByteSink()
        do {
            try WebPWriter(options: ImageWriteOptions(lossless: true), source: source.info)
                .encode(source, into: &sink, progress: nil)
        } catch {
            preconditionFailure("a decoded image does not write as WebP: \(error)")
        }
        do {
            let copy = try ImageSource(data: sink.bytes, name: "written.webp", limits: limits)
            let reader = try copy.makeFrameReader(depth: .eight)
            guard var current = try reader.nextFrame() else { preconditionFailure("the written WebP has no frame") }
            let segmentStarts = Set(WebPWriter.segments(frameCount: frames.count).map(\.lowerBound))
            var shownUntil = WebPWriter.timestamp(current.info.delay)
            var elapsed = Duration.zero
            for (index, frame) in frames.enumerated() {
                if index > 0, frame.image != frames[index - 1].image || segmentStarts.contains(index) {
                    guard let next = try reader.nextFrame() else { preconditionFailure("frame \(index) is missing") }
                    precondition(shownUntil == WebPWriter.timestamp(elapsed), "frame \(index) starts late or early")
                    current = next
                    shownUntil += WebPWriter.timestamp(next.info.delay)
                }
                precondition(current.image == frame.image, "frame \(index) differs after writing")
                elapsed += max(frame.info.delay, .zero)
            }
            let extra = try reader.nextFrame()
            precondition(extra == nil, "the written WebP has more frames")
            // libwebp writes an animation whose frames are all alike as a still, with no duration.
            if copy.info.isAnimated {
                precondition(shownUntil == WebPWriter.timestamp(elapsed), "the durations differ")
                precondition(copy.info.plays == source.info.plays, "plays differ")
            }
        } catch {
            preconditionFailure("the written WebP does not decode: \(error)")
        }
    }
}
