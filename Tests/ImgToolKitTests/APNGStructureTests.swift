import Testing

@testable import ImgToolKit

private let red: [UInt8] = [255, 0, 0, 255]
private let green: [UInt8] = [0, 255, 0, 255]
private let blue: [UInt8] = [0, 0, 255, 255]

/// The APNG frame table, loop count, delays and default image, and the chunk records.
@Suite("APNG structure", .timeLimit(.minutes(5)))
struct APNGStructureTests {
    /// A 2x1 animation of two frames whose default image is blue and outside the animation.
    static func hiddenDefault() -> APNGBuilder {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.separateDefaultImage = APNGBuilder.solid(2, 1, blue)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, red)), .init(image: APNGBuilder.solid(2, 1, green))]
        return builder
    }

    @Test("the default image is frame 0 when an fcTL precedes IDAT")
    func defaultImageInAnimation() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, blue)), .init(image: APNGBuilder.solid(2, 1, red))]
        let (info, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(info.format == .apng && info.frameCount == 2 && !info.defaultImageOutsideAnimation)
        #expect(frames == [APNGBuilder.solid(2, 1, blue), APNGBuilder.solid(2, 1, red)])
        #expect(info.warnings.isEmpty)
    }

    @Test("a default image outside the animation is not a frame, but stays reachable")
    func defaultImageOutsideAnimation() throws {
        let bytes = Self.hiddenDefault().build()
        let (info, frames) = try APNGBuilder.decodeAll(bytes)
        #expect(info.frameCount == 2 && info.defaultImageOutsideAnimation)
        #expect(frames == [APNGBuilder.solid(2, 1, red), APNGBuilder.solid(2, 1, green)])
        // The source's accessor and a plain PNG decode of the file both give the IDAT image.
        let source = try #require(try APNGSource(data: bytes, limits: .default))
        #expect(try source.defaultImage(depth: .eight) == APNGBuilder.solid(2, 1, blue))
        #expect(try PNGDecoder().decode(bytes, depth: .eight) == APNGBuilder.solid(2, 1, blue))
    }

    @Test("num_plays is the loop value and the number of plays; 0 plays forever", arguments: [0, 1, 3] as [UInt32])
    func numPlays(_ plays: UInt32) throws {
        var builder = Self.hiddenDefault()
        builder.plays = plays
        let (info, _) = try APNGBuilder.decodeAll(builder.build())
        #expect(info.loopValue == Int(plays))
        #expect(info.plays == Int(plays))
    }

    @Test("delay is delay_num / delay_den seconds, a denominator of 0 meaning 100")
    func delays() throws {
        var builder = APNGBuilder(width: 1, height: 1)
        let image = APNGBuilder.solid(1, 1, red)
        builder.frames = [(1, 3), (50, 0), (0, 0), (0, 100), (65535, 1), (7, 1000)].map {
            APNGBuilder.Frame(image: image, delayNumerator: $0.0, delayDenominator: $0.1)
        }
        let (info, _) = try APNGBuilder.decodeAll(builder.build())
        #expect(
            info.frames.map(\.delay) == [
                .seconds(1) / 3, .milliseconds(500), .zero, .zero, .seconds(65535), .milliseconds(7),
            ])
        #expect(info.frames[0].delayMilliseconds > 333.333 && info.frames[0].delayMilliseconds < 333.334)
    }

    @Test("the frame table lists each frame's region, disposal and blend")
    func frameTable() throws {
        var builder = APNGBuilder(width: 4, height: 3)
        builder.frames = [
            .init(image: APNGBuilder.solid(4, 3, red)),
            .init(image: APNGBuilder.solid(2, 1, green), x: 2, y: 2, dispose: 1, blend: 1),
            .init(image: APNGBuilder.solid(1, 3, blue), x: 3, y: 0, dispose: 2, blend: 0),
        ]
        let (info, frames) = try APNGBuilder.decodeAll(builder.build())
        #expect(
            info.frames.map(\.region) == [
                FrameRegion(x: 0, y: 0, width: 4, height: 3), FrameRegion(x: 2, y: 2, width: 2, height: 1),
                FrameRegion(x: 3, y: 0, width: 1, height: 3),
            ])
        #expect(info.frames.map(\.disposal) == [.none, .background, .previous])
        #expect(info.frames.map(\.blend) == [.source, .over, .source])
        #expect(info.frames.map(\.index) == [0, 1, 2])
        #expect(frames.allSatisfy { $0.width == 4 && $0.height == 3 })
    }

    @Test("an fcTL before acTL is accepted (only acTL's place before IDAT matters)")
    func fctlBeforeActl() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, red)), .init(image: APNGBuilder.solid(2, 1, green))]
        var chunks = builder.chunks()
        let actl = chunks.remove(at: 1)
        chunks.insert(actl, at: 2)  // IHDR fcTL acTL IDAT ...
        #expect(chunks.map(\.type).prefix(4) == ["IHDR", "fcTL", "acTL", "IDAT"])
        let (info, frames) = try APNGBuilder.decodeAll(APNGBuilder.serialize(chunks))
        #expect(info.frameCount == 2 && frames.count == 2 && info.warnings.isEmpty)
    }

    @Test("a PNG whose acTL comes only after IDAT is a still image")
    func actlAfterIDAT() throws {
        var chunks = Self.hiddenDefault().chunks()
        let actl = chunks.remove(at: 1)
        chunks.insert(actl, at: 2)  // IHDR IDAT acTL ...
        let bytes = APNGBuilder.serialize(chunks)
        #expect(try APNGSource(data: bytes, limits: .default) == nil)
        let (info, frames) = try APNGBuilder.decodeAll(bytes)
        #expect(info.format == .png && frames == [APNGBuilder.solid(2, 1, blue)])
    }

    @Test("a 16-bit file decodes to 16-bit frames by default and to rounded 8-bit ones on request")
    func depths() throws {
        var builder = APNGBuilder(width: 1, height: 1, layout: .rgba16)
        builder.frames = [.init(image: PixelBuffer(width: 1, height: 1, rgba16: [0x1280, 0x0081, 0xffff, 0xffff]))]
        let (_, native) = try APNGBuilder.decodeAll(builder.build(), depth: nil)
        #expect(native[0].rgba16 == [0x1280, 0x0081, 0xffff, 0xffff])
        let (_, eight) = try APNGBuilder.decodeAll(builder.build(), depth: .eight)
        // (v * 255 + 32895) >> 16: 0x1280 -> 18, 0x0081 -> 1 (rounded; the high byte would give 0).
        #expect(eight[0].rgba8 == [18, 1, 255, 255])
    }

    // MARK: - Chunk records

    @Test("fcTL, acTL and fdAT records read back what they serialize")
    func recordRoundTrip() throws {
        let header = IHDRChunk(width: 100, height: 50, bitDepth: 8, colorType: .rgba, isInterlaced: false)
        let control = FCTLChunk(
            sequenceNumber: 7, region: FrameRegion(x: 10, y: 20, width: 90, height: 30), delayNumerator: 3,
            delayDenominator: 0, disposal: .previous, blend: .over)
        #expect(try FCTLChunk(parsing: control.serialized[...], header: header, offset: 0) == control)
        #expect(control.delay == .milliseconds(30))
        let animation = ACTLChunk(frameCount: 12, plays: 0)
        #expect(try ACTLChunk(parsing: animation.serialized[...], offset: 0) == animation)
        let data = FDATChunk(sequenceNumber: 9, frameData: [1, 2, 3][...])
        let parsed = try FDATChunk(parsing: data.serialized[...], offset: 0)
        #expect(parsed.sequenceNumber == 9 && Array(parsed.frameData) == [1, 2, 3])
        #expect(try IHDRChunk(parsing: header.serialized[...], offset: 8) == header)
    }

    @Test("fcTL fields are validated")
    func fctlValidation() throws {
        let header = IHDRChunk(width: 10, height: 10, bitDepth: 8, colorType: .rgba, isInterlaced: false)
        func fctl(width: Int = 5, height: Int = 5, x: Int = 0, y: Int = 0, dispose: UInt8 = 0, blend: UInt8 = 0)
            -> [UInt8]
        {
            var bytes = APNGBuilder.bigEndian(0)
            for value in [width, height, x, y] { bytes += APNGBuilder.bigEndian(UInt32(truncatingIfNeeded: value)) }
            return bytes + [0, 1, 0, 10, dispose, blend]
        }
        func error(_ bytes: [UInt8]) -> APNGParseError? {
            do {
                _ = try FCTLChunk(parsing: bytes[...], header: header, offset: 33)
                return nil
            } catch {
                return error
            }
        }
        #expect(error(fctl()) == nil)
        #expect(
            error(fctl(width: 0))
                == .invalidField(.fctl, offset: 33, field: "width", value: 0, allowed: "1...2147483647"))
        #expect(
            error(fctl(height: 0))
                == .invalidField(.fctl, offset: 33, field: "height", value: 0, allowed: "1...2147483647"))
        #expect(
            error(fctl(dispose: 3))
                == .invalidField(.fctl, offset: 33, field: "dispose_op", value: 3, allowed: "0, 1 or 2"))
        #expect(
            error(fctl(blend: 2)) == .invalidField(.fctl, offset: 33, field: "blend_op", value: 2, allowed: "0 or 1"))
        #expect(
            error(fctl(x: 6))
                == .frameOutsideCanvas(
                    offset: 33, sequence: 0, region: FrameRegion(x: 6, y: 0, width: 5, height: 5), canvasWidth: 10,
                    canvasHeight: 10))
        #expect(error(fctl(x: 0x8000_0000)) != nil)
        #expect(error(Array(fctl().dropLast())) == .invalidChunkLength(.fctl, offset: 33, length: 25, expected: "26"))
    }

    @Test("acTL keeps any num_frames and rejects num_plays past 2^31 - 1; fdAT needs a sequence number")
    func actlAndFdatValidation() throws {
        #expect(try ACTLChunk(parsing: [0, 0, 0, 0, 0, 0, 0, 0][...], offset: 1).frameCount == 0)
        #expect(try ACTLChunk(parsing: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0][...], offset: 1).frameCount == 0xFFFF_FFFF)
        #expect(
            throws: APNGParseError.invalidField(
                .actl, offset: 1, field: "num_plays", value: 0x8000_0000, allowed: "0...2147483647")
        ) {
            try ACTLChunk(parsing: [0, 0, 0, 1, 0x80, 0, 0, 0][...], offset: 1)
        }
        #expect(throws: APNGParseError.invalidChunkLength(.fdat, offset: 2, length: 3, expected: "at least 4")) {
            try FDATChunk(parsing: [0, 0, 0][...], offset: 2)
        }
    }

    /// A plain bitwise CRC-32 (no table), written from the definition: the reference for ``CRC32``.
    static func bitwiseCRC32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("CRC-32 matches the standard check value and a bitwise reference at every length")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...bytes.count {
            let prefix = Array(bytes[0..<length])
            #expect(CRC32.checksum(prefix) == Self.bitwiseCRC32(prefix), "length \(length)")
        }
        var split = CRC32()
        split.update(bytes[0..<13])
        split.update(bytes[13...])
        #expect(split.checksum == Self.bitwiseCRC32(bytes))
    }
}
