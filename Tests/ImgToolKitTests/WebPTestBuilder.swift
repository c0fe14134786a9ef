import CWebP
import ImgToolKit

/// Builds WebP files for the tests with libwebp's own encoders (`WebPEncodeRGBA`,
/// `WebPEncodeLosslessRGBA`) and a small RIFF writer, so that each animated case states its
/// frame offsets, blend and disposal flags; and decodes them with libwebp's `WebPAnimDecoder`,
/// the reference the compositor must match bit for bit.
enum WebPTestBuilder {
    /// One ANMF frame to write.
    struct Frame {
        var image: PixelBuffer
        var x = 0
        var y = 0
        var duration = 100
        var blends = true
        var disposes = false
        var lossless = true
    }

    /// The chunks libwebp writes for one still image (`VP8L`, or `ALPH` + `VP8 `, or `VP8 `),
    /// without the RIFF and VP8X headers.
    static func bitstreamChunks(_ image: PixelBuffer, lossless: Bool, quality: Float = 80) -> [UInt8] {
        let file = still(image, lossless: lossless, quality: quality)
        var offset = 12
        var chunks: [UInt8] = []
        while offset + 8 <= file.count {
            let tag = String(decoding: file[offset..<offset + 4], as: UTF8.self)
            let size =
                Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16
                | Int(file[offset + 7]) << 24
            let end = min(offset + 8 + size + (size & 1), file.count)
            if tag != "VP8X" { chunks += file[offset..<end] }
            offset = end
        }
        return chunks
    }

    /// A still WebP file as `cwebp` would write it (lossless or lossy at `quality`).
    static func still(_ image: PixelBuffer, lossless: Bool, quality: Float = 80) -> [UInt8] {
        let rgba = image.rgba8 ?? []
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgba.withUnsafeBufferPointer { pixels in
            lossless
                ? WebPEncodeLosslessRGBA(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 4), &output)
                : WebPEncodeRGBA(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 4), quality,
                    &output)
        }
        defer { WebPFree(output) }
        guard let output, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// An animated WebP: VP8X, ANIM, then one ANMF chunk per frame.
    static func animation(
        width: Int, height: Int, loopCount: Int = 0, background: [UInt8] = [255, 255, 255, 255], frames: [Frame]
    ) -> [UInt8] {
        var body: [UInt8] = Array("WEBP".utf8)
        let hasAlpha = frames.contains {
            ($0.image.rgba8 ?? []).enumerated().contains { $0.offset % 4 == 3 && $0.element != 255 }
        }
        body += chunk("VP8X", [hasAlpha ? 0x12 : 0x02, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        body += chunk("ANIM", background + [UInt8(loopCount & 0xff), UInt8(loopCount >> 8)])
        for frame in frames {
            var payload = le24(frame.x / 2) + le24(frame.y / 2) + le24(frame.image.width - 1)
            payload += le24(frame.image.height - 1) + le24(frame.duration)
            payload.append((frame.blends ? 0 : 2) | (frame.disposes ? 1 : 0))
            payload += bitstreamChunks(frame.image, lossless: frame.lossless)
            body += chunk("ANMF", payload)
        }
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    /// A chunk: tag, little-endian size, payload, pad byte.
    static func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        Array(tag.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff)]
    }

    static func le32(_ value: Int) -> [UInt8] {
        le24(value) + [UInt8((value >> 24) & 0xff)]
    }

    /// Every canvas `WebPAnimDecoder` gives for `bytes` (RGBA, straight alpha), with its end
    /// timestamp in ms, and the loop count; `nil` when libwebp refuses the file.
    static func reference(_ bytes: [UInt8]) -> (frames: [(pixels: [UInt8], timestamp: Int)], loopCount: Int)? {
        bytes.withUnsafeBufferPointer { buffer -> (frames: [(pixels: [UInt8], timestamp: Int)], loopCount: Int)? in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&data, &options) else { return nil }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { return nil }
            let count = Int(info.canvas_width * info.canvas_height * 4)
            var frames: [(pixels: [UInt8], timestamp: Int)] = []
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else { return nil }
                frames.append((Array(UnsafeBufferPointer(start: canvas, count: count)), Int(timestamp)))
            }
            return (frames, Int(info.loop_count))
        }
    }

    /// libwebp's own decode of a still file (`WebPDecodeRGBA`), as `dwebp` gives it.
    static func referenceStill(_ bytes: [UInt8]) -> [UInt8]? {
        var width: Int32 = 0
        var height: Int32 = 0
        return bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let pixels = WebPDecodeRGBA(buffer.baseAddress, buffer.count, &width, &height) else { return nil }
            defer { WebPFree(pixels) }
            return Array(UnsafeBufferPointer(start: pixels, count: Int(width * height * 4)))
        }
    }
}

/// A deterministic generator for test pictures (SplitMix64).
struct WebPTestRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A `width` x `height` picture of blocks of colour, some translucent or transparent when
    /// `alpha` (transparent pixels keep a colour, which lossless `exact` output must keep too).
    mutating func picture(width: Int, height: Int, alpha: Bool) -> PixelBuffer {
        var samples = [UInt8](repeating: 0, count: width * height * 4)
        let block = Int.random(in: 1...4, using: &self)
        var colors: [[UInt8]] = []
        for _ in 0..<6 {
            let a: UInt8 = alpha ? [0, 0, 64, 128, 200, 255, 255][Int.random(in: 0..<7, using: &self)] : 255
            colors.append([
                UInt8.random(in: 0...255, using: &self), UInt8.random(in: 0...255, using: &self),
                UInt8.random(in: 0...255, using: &self), a,
            ])
        }
        for y in 0..<height {
            for x in 0..<width {
                let color = colors[((x / block) * 7 + (y / block) * 3 + Int(state % 3)) % colors.count]
                samples.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: color)
            }
        }
        return PixelBuffer(width: width, height: height, rgba8: samples)
    }
}

/// A frame source over pictures held in memory, for the writer's tests.
struct WebPTestSource: FrameSource {
    var info: ImageInfo
    let images: [PixelBuffer]

    init(images: [PixelBuffer], delays: [Duration], plays: Int = 0, format: ImageFormat = .gif) {
        self.images = images
        let width = images[0].width
        let height = images[0].height
        info = ImageInfo(
            format: format, width: width, height: height, bitDepth: 8, colorType: .rgba,
            frames: images.indices.map {
                FrameInfo(
                    index: $0, delay: delays[$0], region: FrameRegion(x: 0, y: 0, width: width, height: height),
                    disposal: .none, blend: .source)
            }, loopValue: plays, plays: plays)
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        Reader(source: self)
    }

    final class Reader: FrameReader {
        let source: WebPTestSource
        var index = 0

        init(source: WebPTestSource) {
            self.source = source
        }

        func nextFrame() throws(ImgToolError) -> Frame? {
            guard index < source.images.count else { return nil }
            defer { index += 1 }
            return Frame(info: source.info.frames[index], image: source.images[index])
        }
    }
}
