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
            var last: PixelBuffer?
            while let frame = try reader.nextFrame() {
                precondition(frame.image.width == source.info.width && frame.image.height == source.info.height)
                count += 1
                last = frame.image
            }
            exerciseMetadata(source.info, frame: last)
            return count
        } catch {
            precondition(error.input == name, "an error must name its input: \(error)")
            return -1
        }
    }

    /// ``run(_:name:)``, then ``roundTrip(_:name:)``.
    /// The colour and metadata paths a writer takes: the EXIF and XMP editors on whatever the
    /// file carried (no GPS may survive their removal), and Little CMS on its profile.
    static func exerciseMetadata(_ info: ImageInfo, frame: PixelBuffer?) {
        if let exif = info.exif, let block = EXIFBlock(app1OrTIFF: exif) {
            _ = block.orientation
            let edited = block.edited(orientation: 1, removingGPS: true, removingThumbnail: true)
            precondition(!edited.hasGPS, "GPS survived its removal")
            _ = block.edited(orientation: nil, removingGPS: false, removingThumbnail: true)
        }
        if let xmp = info.xmp {
            let edited = XMPPacket(bytes: xmp).edited(orientation: 1, removingGPS: true)
            precondition(!edited.hasGPS, "GPS survived its removal from XMP")
        }
        _ = info.color.summary
        if let frame, frame.pixelCount <= 1 << 16, let profile = info.color.effectiveProfile {
            _ = try? frame.convertingColors(from: profile, to: nil)
            _ = TransferCurve(describing: info.color)
        }
    }

    public static func runAndRoundTrip(_ bytes: [UInt8], name: String) {
        run(bytes, name: name)
        roundTrip(bytes, name: name)
    }

    /// Decodes `bytes` and, when every frame decodes, writes them as an APNG with ``APNGWriter``
    /// and checks that the APNG decodes to the same frames, delays and plays (trapping if not):
    /// the frames shown, a run of equal consecutive frames once for the run's summed delay (the
    /// writer merges them), each frame starting within half a millisecond of its exact time (a
    /// summed delay with no 16-bit fraction is written in milliseconds, without drift).
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
            var shown: [(image: PixelBuffer, delay: Duration)] = []
            let original = try source.makeFrameReader(depth: nil)
            while let frame = try original.nextFrame() {
                let delay = max(frame.info.delay, .zero)
                if let last = shown.last, last.image == frame.image {
                    shown[shown.count - 1].delay += delay
                } else {
                    shown.append((frame.image, delay))
                }
            }
            let copy = try ImageSource(data: written, name: "written.png", limits: limits)
            precondition(copy.info.frameCount == shown.count && copy.info.plays == info.plays, "frames or plays")
            var exact = Duration.zero
            var stored = Duration.zero
            for (a, b) in zip(copy.info.frames, shown) {
                exact += b.delay
                stored += a.delay
                precondition(abs((stored - exact) / .microseconds(1)) <= 500.001, "delay \(a.delay) != \(b.delay)")
            }
            let again = try copy.makeFrameReader(depth: nil)
            for (index, expected) in shown.enumerated() {
                let actual = try again.nextFrame()
                precondition(actual?.image == expected.image, "frame \(index) differs after writing")
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

    /// Decodes `bytes` and, when every frame decodes, writes them as a lossless WebP with
    /// ``WebPCodec`` and checks that it plays exactly the same canvases (every sample, the colour
    /// of transparent pixels included) for exactly the same times and plays, trapping if not.
    /// The check follows time, not frame numbers: libwebp's animation encoder merges a frame
    /// identical to the one before into its duration, writes an all-alike animation as a still,
    /// and imgtool may encode the halves of a long animation apart. Small inputs only (at most
    /// 256 Ki pixels in all frames).
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
        let written: [UInt8]
        do {
            written = try WebPCodec().encoded(source, options: ImageWriteOptions(lossless: true))
        } catch {
            preconditionFailure("a decoded image does not write as WebP: \(error)")
        }
        do {
            let copy = try ImageSource(data: written, name: "written.webp", limits: limits)
            let reader = try copy.makeFrameReader(depth: .eight)
            var output: [Frame] = []
            while let frame = try reader.nextFrame() { output.append(frame) }
            // Start times in whole ms: the input's rounded from the running sum, as written.
            var inputStarts = [0]
            var elapsed = Duration.zero
            for frame in frames {
                elapsed += max(frame.info.delay, .zero)
                inputStarts.append(Int(elapsed.milliseconds.rounded(.toNearestOrAwayFromZero)))
            }
            var outputStarts = [0]
            for frame in output {
                outputStarts.append(outputStarts[outputStarts.count - 1] + Int(frame.info.delayMilliseconds))
            }
            if copy.info.isAnimated {
                precondition(outputStarts.last == inputStarts.last, "the durations differ")
                precondition(copy.info.plays == source.info.plays, "plays differ")
            } else {
                precondition(output.count == 1, "a still has one frame")
                outputStarts[1] = inputStarts[inputStarts.count - 1]
            }
            precondition(output.count <= frames.count, "more frames written than given")
            // Every stretch of time shows the same canvas in both.
            var j = 0
            for (i, frame) in frames.enumerated() where inputStarts[i + 1] > inputStarts[i] {
                while outputStarts[j + 1] <= inputStarts[i] { j += 1 }
                var k = j
                while k < output.count && outputStarts[k] < inputStarts[i + 1] {
                    if outputStarts[k + 1] > outputStarts[k] {
                        precondition(output[k].image == frame.image, "frame \(i) differs after writing")
                    }
                    k += 1
                }
            }
            if frames.allSatisfy({ $0.info.delay <= .zero }) {
                precondition(output.last?.image == frames.last?.image, "the last frame differs after writing")
            }
        } catch {
            preconditionFailure("the written WebP does not decode: \(error)")
        }
    }
}
