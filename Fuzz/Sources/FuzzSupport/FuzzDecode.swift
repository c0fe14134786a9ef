import ImgToolKit

/// The body of the decoding fuzz targets: opens `bytes` and decodes every frame under small
/// limits, discarding errors (they are the expected outcome for most inputs).
public enum FuzzDecode {
    /// Limits small enough that a fuzzer never waits on a legitimately huge image.
    public static let limits = DecodingLimits(maxPixels: 1 << 22, maxFrames: 512, maxTotalPixels: 1 << 26)

    /// Opens and fully decodes `bytes` with `options` (default: upright, full size); returns how
    /// many frames decoded.
    @discardableResult
    public static func run(_ bytes: [UInt8], name: String, options: DecodingOptions = .default) -> Int {
        do {
            let source = try ImageSource(data: bytes, name: name, limits: limits, options: options)
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

    /// ``run(_:name:)``, then ``roundTrip(_:name:)``.
    public static func runAndRoundTrip(_ bytes: [UInt8], name: String) {
        run(bytes, name: name)
        roundTrip(bytes, name: name)
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

    /// Decodes `bytes` as JPEG and, when it decodes, writes the frame with ``JPEGEncoder`` and
    /// checks that the result decodes to an image of the same size (trapping if not). Small
    /// inputs only (at most 256 Ki pixels), so the fuzzer keeps its pace.
    public static func jpegRoundTrip(_ bytes: [UInt8], name: String, quality: Int, progressive: Bool) {
        guard let source = try? ImageSource(data: bytes, name: name, limits: limits),
            source.info.width * source.info.height <= 1 << 18,
            let frame = try? source.frame(at: 0)
        else { return }
        do {
            let written = try JPEGEncoder(quality: quality, progressive: progressive).encode(frame.image)
            let copy = try ImageSource(data: written, name: "written.jpg", limits: limits).frame(at: 0)
            precondition(copy.image.width == frame.image.width && copy.image.height == frame.image.height, "size")
        } catch {
            preconditionFailure("a decoded JPEG could not be written and read back: \(error)")
        }
    }
}
