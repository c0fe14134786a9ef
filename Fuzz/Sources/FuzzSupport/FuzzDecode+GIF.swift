import ImgToolKit

extension FuzzDecode {
    /// Decodes `bytes` and, when every frame decodes, writes them as a GIF with the GIF codec's
    /// writer and checks what it decodes to (trapping if wrong): the same plays, the frames and
    /// centisecond delays ``GIFTiming`` promises, and, when every frame fits a GIF (``fitsGIF(_:)``, alpha only
    /// 0 or 255), exactly the same pixels.
    /// Small inputs only (at most 256 Ki pixels in all frames), so the fuzzer keeps its pace.
    public static func gifRoundTrip(_ bytes: [UInt8], name: String) {
        guard let source = try? ImageSource(data: bytes, name: name, limits: limits),
            source.info.width * source.info.height * source.info.frameCount <= 1 << 18
        else { return }
        let info = source.info
        // Sizes and plays a GIF cannot hold are refused (invalidArgument), not written.
        guard (1...0xFFFF).contains(info.width), (1...0xFFFF).contains(info.height), info.plays <= 0x10000 else {
            return
        }
        let frames: [[UInt32]]
        let options = ImageWriteOptions()
        do {
            var decoded: [[UInt32]] = []
            let reader = try source.makeFrameReader(depth: .eight)
            while let frame = try reader.nextFrame() {
                guard case .rgba8(let samples) = frame.image.samples else { return }
                if samples.indices.contains(where: { $0 % 4 == 3 && samples[$0] != 0 && samples[$0] != 255 }) {
                    decoded.append([])  // not binary alpha: compared by count and timing only
                } else {
                    decoded.append(prepared(frame.image))
                }
            }
            frames = decoded
        } catch {
            return  // the input does not decode whole: nothing to compare
        }
        var sink = ByteSink()
        do {
            try GIFCodec().writeSynchronously(source, into: &sink, options: options)
        } catch {
            preconditionFailure("writing \(name) as GIF failed: \(error)")
        }
        do {
            let copy = try ImageSource(data: sink.bytes, name: "written.gif", limits: limits)
            precondition(copy.info.format == .gif && copy.info.plays == info.plays, "format or plays")
            var back: [[UInt32]] = []
            let reader = try copy.makeFrameReader(depth: .eight)
            while let frame = try reader.nextFrame() { back.append(prepared(frame.image)) }

            // The frames shown, after GIFTiming and the merging of identical frames.
            let isGIF = info.format == .gif
            let delays = GIFTiming.centiseconds(for: info.frames.map(\.delay), keepExactly: isGIF)
            let reader2 = try source.makeFrameReader(depth: .eight)
            var shown: [(pixels: [UInt32], centiseconds: Int)] = []
            var index = 0
            while let frame = try reader2.nextFrame() {
                defer { index += 1 }
                guard index < delays.count, let delay = delays[index] else { continue }
                let pixels = prepared(frame.image)
                if !isGIF, let last = shown.last, last.pixels == pixels {
                    shown[shown.count - 1].centiseconds += delay
                } else {
                    shown.append((pixels, delay))
                }
            }
            // Judged on the frames shown (the writer skips frames GIFTiming folds away).
            let exact = !frames.contains { $0.isEmpty } && fitsGIF(shown.map(\.pixels))
            precondition(back.count == shown.count, "\(back.count) frames written, \(shown.count) expected")
            for (written, wanted) in zip(copy.info.frames, shown) {
                let centiseconds = Int((written.delayMilliseconds / 10).rounded())
                precondition(centiseconds == min(wanted.centiseconds, 0xFFFF), "delay \(centiseconds) cs")
            }
            if exact {
                for (position, (written, wanted)) in zip(back, shown).enumerated() {
                    precondition(written == wanted.pixels, "frame \(position) differs after writing as GIF")
                }
            }
        } catch {
            preconditionFailure("the written GIF does not decode: \(error)")
        }
    }

    /// Whether `frames` (packed pixels, empty when alpha is not binary) fit a GIF exactly: each
    /// frame's colours fit a palette (256, or 255 and the transparent index), or the colours of
    /// the pixels it changes from the frame before fit in 255 and it turns no opaque pixel
    /// transparent (the writer then stores only the changes, with a local table).
    static func fitsGIF(_ frames: [[UInt32]]) -> Bool {
        var previous: [UInt32]?
        for pixels in frames {
            guard !pixels.isEmpty else { return false }
            let opaque = Set(pixels.filter { $0 != 0 })
            if opaque.count + (pixels.contains(0) ? 1 : 0) > 256 {
                guard let before = previous, before.count == pixels.count else { return false }
                let changed = zip(pixels, before).filter { $0.0 != $0.1 }
                if changed.contains(where: { $0.0 == 0 }) || Set(changed.map(\.0)).count > 255 { return false }
            }
            previous = pixels
        }
        return true
    }

    /// `image` as packed pixels the way the GIF writer sees it by default: alpha below 128 is
    /// transparent (0), the rest opaque.
    static func prepared(_ image: PixelBuffer) -> [UInt32] {
        guard case .rgba8(let samples) = image.samples else { return [] }
        return stride(from: 0, to: samples.count, by: 4).map { position in
            samples[position + 3] < 128
                ? 0
                : UInt32(samples[position]) | UInt32(samples[position + 1]) << 8 | UInt32(samples[position + 2]) << 16
                    | 0xFF00_0000
        }
    }
}
