import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// JPEG XL reading and writing through libjxl: lossless round trips (alpha, 16 bits, animation
/// timing and loops), lossy quality, JPEG recompression and its byte-exact reconstruction, and
/// bad input.
@Suite("JPEG XL codec", .timeLimit(.minutes(5)))
struct JXLCodecTests {
    typealias Frames = AVIFCodecTests.Frames

    static func write(_ source: any FrameSource, options: ImageWriteOptions = ImageWriteOptions()) async throws
        -> [UInt8]
    {
        var sink = ByteSink()
        try await JXLCodec().write(source, into: &sink, options: options, progress: nil)
        return sink.bytes
    }

    static func decode(_ bytes: [UInt8], depth: SampleDepth? = .eight, limits: DecodingLimits = .default)
        throws(ImgToolError) -> (ImageInfo, [PixelBuffer])
    {
        let source = try ImageSource(data: bytes, name: "test.jxl", limits: limits)
        let reader = try source.makeFrameReader(depth: depth)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        return (source.info, frames)
    }

    @Test("JPEG XL is sniffed as a codestream or a container and written for .jxl")
    func registry() async throws {
        let file = try await Self.write(Frames([AVIFCodecTests.picture(width: 8, height: 8, seed: 1)], delays: [.zero]))
        #expect(ImageFormat.sniff(file) == .jxl)
        #expect(JXLCodec().sniff([0xFF, 0x0A, 0, 0]))
        #expect(JXLCodec().sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]))
        #expect(!JXLCodec().sniff([0xFF, 0xD8, 0xFF]))
        let writer = try CodecRegistry.standard.writer(forOutput: "photo.JXL")
        #expect(writer.capabilities == [.read, .readAnimation, .write, .writeAnimation, .writeAlpha])
    }

    @Test("a lossless still keeps every sample; an opaque one is written without alpha")
    func losslessStill() async throws {
        let image = AVIFCodecTests.picture(width: 37, height: 21, seed: 2)
        let (info, frames) = try Self.decode(try await Self.write(Frames([image], delays: [.zero])))
        #expect(info.format == .jxl && info.width == 37 && info.height == 21 && info.colorType == .rgba)
        #expect(info.color.profile == nil)  // sRGB: no synthesized profile
        // Colour under alpha 0 is not kept by every path; the visible pixels are.
        #expect(firstDifference(image.clearingInvisibleColor(), frames[0].clearingInvisibleColor()) == nil)
        let opaque = TestImages.make8(width: 9, height: 7) { x, y in [UInt8(x * 20), UInt8(y * 30), 7, 255] }
        let (opaqueInfo, opaqueFrames) = try Self.decode(try await Self.write(Frames([opaque], delays: [.zero])))
        #expect(opaqueInfo.colorType == .rgb)
        #expect(firstDifference(opaque, opaqueFrames[0]) == nil)
    }

    @Test("16-bit samples come back exactly when lossless")
    func deep() async throws {
        let image = TestImages.noise16(width: 10, height: 6, seed: 3)
        let (info, frames) = try Self.decode(try await Self.write(Frames([image], delays: [.zero])), depth: nil)
        #expect(info.bitDepth == 16 && frames[0].depth == .sixteen)
        #expect(firstDifference(image.clearingInvisibleColor(), frames[0].clearingInvisibleColor()) == nil)
    }

    @Test("an animation keeps its frames, its delays in whole milliseconds and its loop count")
    func animation() async throws {
        let images = (0..<3).map { AVIFCodecTests.picture(width: 12, height: 10, seed: UInt64(20 + $0)) }
        var options = ImageWriteOptions()
        options.plays = 3
        let file = try await Self.write(
            Frames(images, delays: [.milliseconds(40), .milliseconds(100), .microseconds(33_333)]), options: options)
        let (info, frames) = try Self.decode(file)
        #expect(frames.count == 3 && info.frameCount == 3)
        #expect(info.frames.map(\.delayMilliseconds) == [40, 100, 33])
        #expect(info.plays == 3 && info.loopValue == 3)
        for index in 0..<3 {
            #expect(
                firstDifference(images[index].clearingInvisibleColor(), frames[index].clearingInvisibleColor()) == nil)
        }
    }

    @Test("quality maps to cjxl's distance; lower quality writes fewer bytes")
    func quality() async throws {
        #expect(JXLWriter.distance(forQuality: 100) == 0)
        #expect(abs(JXLWriter.distance(forQuality: 90) - 1) < 0.0001)
        #expect(abs(JXLWriter.distance(forQuality: 30) - 6.4) < 0.0001)
        #expect(JXLWriter.distance(forQuality: 10) > 7)
        #expect(JXLWriter.effort(forLevel: 4) == 7 && JXLWriter.effort(forLevel: 0) == 1)
        let image = TestImages.noise8(width: 64, height: 48, seed: 4)
        let high = try await Self.write(Frames([image], delays: [.zero]), options: ImageWriteOptions(quality: 95))
        let low = try await Self.write(Frames([image], delays: [.zero]), options: ImageWriteOptions(quality: 30))
        #expect(low.count < high.count)
        let (info, _) = try Self.decode(low)
        #expect(info.compression == .lossy)
    }

    @Test("a JPEG becomes a smaller JPEG XL losslessly, and comes back byte for byte")
    func jpegRecompression() async throws {
        let photo = TestImages.gradient(width: 160, height: 120)
        var jpegSink = ByteSink()
        try await JPEGCodec().write(
            Frames([photo], delays: [.zero]), into: &jpegSink, options: ImageWriteOptions(quality: 92), progress: nil)
        let jpeg = jpegSink.bytes
        let source = try ImageSource(data: jpeg, name: "photo.jpg")
        let jxl = try await Self.write(source)
        #expect(jxl.count < jpeg.count)
        let (info, frames) = try Self.decode(jxl)
        #expect(info.width == 160 && info.height == 120 && info.compression == .jpegRecompression)
        let (_, decodedJPEG) = try Self.decode(jpeg)
        // Pixels as libjxl decodes the coefficients: within a level or two of libjpeg's decode.
        #expect(maxDifference(frames[0], decodedJPEG[0]) <= 3)

        var back = ByteSink()
        try await JPEGCodec().write(
            try ImageSource(data: jxl, name: "photo.jxl"), into: &back, options: ImageWriteOptions(), progress: nil)
        #expect(back.bytes == jpeg)
        // A quality asked for means pixels: a JPEG encoded anew.
        var requantized = ByteSink()
        try await JPEGCodec().write(
            try ImageSource(data: jxl, name: "photo.jxl"), into: &requantized, options: ImageWriteOptions(quality: 50),
            progress: nil)
        #expect(requantized.bytes != jpeg)
        // A lossy JPEG XL write of a JPEG decodes it instead.
        let lossy = try await Self.write(source, options: ImageWriteOptions(quality: 50))
        #expect(try JXLSource(data: lossy, limits: .default).jpegBitstream() == nil)
    }

    @Test("a cut file is refused with a typed error naming the input; over the limits before decoding")
    func badInput() async throws {
        let file = try await Self.write(
            Frames([AVIFCodecTests.picture(width: 40, height: 30, seed: 5)], delays: [.zero]))
        for length in [2, 10, file.count / 2, file.count - 1] {
            let error = #expect(throws: ImgToolError.self) { try Self.decode(Array(file.prefix(length))) }
            #expect(error?.input == "test.jxl")
            #expect([.truncated, .corrupt].contains(error?.code))
        }
        let error = #expect(throws: ImgToolError.self) {
            try Self.decode(file, limits: DecodingLimits(maxPixels: 1000))
        }
        #expect(error?.code == .tooLarge)
    }
}

/// The largest difference of one sample between two 8-bit images of the same size.
private func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    guard let x = a.rgba8, let y = b.rgba8, x.count == y.count else { return .max }
    return zip(x, y).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

extension PixelBuffer {
    /// This image with the colour of fully transparent pixels set to 0.
    fileprivate func clearingInvisibleColor() -> PixelBuffer {
        var copy = self
        copy.clearInvisibleColor()
        return copy
    }
}
