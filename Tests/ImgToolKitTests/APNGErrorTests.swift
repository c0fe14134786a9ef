import Testing

@testable import ImgToolKit

private let red: [UInt8] = [255, 0, 0, 255]
private let green: [UInt8] = [0, 255, 0, 255]
private let blue: [UInt8] = [0, 0, 255, 255]

/// Broken APNGs: a broken animation falls back to the default image with a warning (the APNG
/// specification's recommendation); a file with no image to show is a typed error naming the input.
@Suite("APNG errors", .timeLimit(.minutes(5)))
struct APNGErrorTests {
    /// A 2x1 file: blue default image outside the animation, then red and green frames, each
    /// frame's data in two fdAT pieces (an empty one, then the data).
    static func builder() -> APNGBuilder {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.separateDefaultImage = APNGBuilder.solid(2, 1, blue)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, red)), .init(image: APNGBuilder.solid(2, 1, green))]
        return builder
    }

    /// Expects `bytes` to decode as the blue default image alone, with a warning containing `evidence`.
    static func expectFallback(
        _ bytes: [UInt8], mentioning evidence: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let (info, frames) = try APNGBuilder.decodeAll(bytes)
        #expect(info.frameCount == 1 && frames.count == 1, sourceLocation: sourceLocation)
        #expect(frames.first == APNGBuilder.solid(2, 1, blue), sourceLocation: sourceLocation)
        #expect(info.warnings.count == 1, sourceLocation: sourceLocation)
        #expect(info.warnings.first?.contains("broken APNG animation") == true, sourceLocation: sourceLocation)
        #expect(
            info.warnings.first?.contains(evidence) == true, "\(info.warnings) lacks \(evidence)",
            sourceLocation: sourceLocation)
    }

    /// Expects opening and decoding `bytes` to throw `code`, naming the input, with `evidence` in the message.
    static func expectError(
        _ bytes: [UInt8], _ code: ImgToolError.Code, mentioning evidence: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try APNGBuilder.decodeAll(bytes)
            Issue.record("expected \(code), decoded the file", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.input == "anim.png", sourceLocation: sourceLocation)
            #expect(error.description.contains(evidence), "\(error) lacks \(evidence)", sourceLocation: sourceLocation)
        }
    }

    @Test("the unbroken file decodes (the baseline the other cases break)")
    func baseline() throws {
        let (info, frames) = try APNGBuilder.decodeAll(Self.builder().build())
        #expect(info.warnings.isEmpty)
        #expect(frames == [APNGBuilder.solid(2, 1, red), APNGBuilder.solid(2, 1, green)])
    }

    @Test("a gap in the sequence numbers")
    func sequenceGap() throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == "fdAT" })
        chunks[index].setSequenceNumber(4)  // fcTL 0, fdAT 1, fcTL 2, then 4 instead of 3
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "has sequence number 4, expected 3")
    }

    @Test("fdAT chunks in the wrong order")
    func sequenceReorder() throws {
        var builder = Self.builder()
        builder.fdatPieceSize = 4
        var chunks = builder.chunks()
        let pieces = chunks.indices.filter { chunks[$0].type == "fdAT" }
        chunks.swapAt(pieces[pieces.count - 1], pieces[pieces.count - 2])
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "fdAT at offset")
    }

    @Test("a repeated sequence number")
    func sequenceRepeat() throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == "fcTL" })
        chunks[index].setSequenceNumber(1)
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "fcTL at offset")
    }

    @Test("a frame region outside the canvas")
    func regionOutsideCanvas() throws {
        var builder = Self.builder()
        builder.frames[1] = .init(image: APNGBuilder.solid(2, 1, green), x: 1, y: 0)
        try Self.expectFallback(builder.build(), mentioning: "frame region 2x1 at 1,0 extends past the 2x1 canvas")
    }

    @Test("a zero-size frame", arguments: [(0, 1), (1, 0)])
    func zeroSizeFrame(_ size: (width: Int, height: Int)) throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == "fcTL" })
        chunks[index].data.replaceSubrange(
            4..<12, with: APNGBuilder.bigEndian(UInt32(size.width)) + APNGBuilder.bigEndian(UInt32(size.height)))
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: size.width == 0 ? "width 0" : "height 0")
    }

    @Test("an acTL with no fcTL at all")
    func noFrameControl() throws {
        var chunks = Self.builder().chunks()
        chunks.removeAll { $0.type == "fcTL" || $0.type == "fdAT" }
        try Self.expectFallback(
            APNGBuilder.serialize(chunks), mentioning: "acTL declares num_frames 2, but the file has 0 fcTL chunks")
    }

    @Test("a second acTL")
    func duplicateActl() throws {
        var chunks = Self.builder().chunks()
        chunks.insert(chunks[1], at: 2)
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "a second acTL at offset")
    }

    @Test("an fcTL without data, in the middle and at the end")
    func fctlWithoutData() throws {
        var chunks = Self.builder().chunks()
        let firstData = try #require(chunks.firstIndex { $0.type == "fdAT" })
        chunks.remove(at: firstData)
        APNGBuilder.renumber(&chunks)
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "frame 0 (fcTL at offset")
        var tail = Self.builder().chunks()
        tail.removeAll { $0.type == "fdAT" && $0.sequenceNumber == 3 }
        try Self.expectFallback(APNGBuilder.serialize(tail), mentioning: "frame 1 (fcTL at offset")
    }

    @Test("a frame whose fdAT chunks are all empty has no data")
    func emptyFdatOnly() throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == "fdAT" })
        chunks[index].data = Array(chunks[index].data[0..<4])
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "frame 1 (fcTL at offset")
    }

    @Test("fdAT before IDAT, and fdAT after the default image's fcTL")
    func misplacedFdat() throws {
        var chunks = Self.builder().chunks()
        let data = try #require(chunks.firstIndex { $0.type == "fdAT" })
        let fdat = chunks.remove(at: data)
        let idat = try #require(chunks.firstIndex { $0.type == "IDAT" })
        chunks.insert(fdat, at: idat)
        APNGBuilder.renumber(&chunks)
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "comes before the image data")

        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, blue)), .init(image: APNGBuilder.solid(2, 1, red))]
        var own = builder.chunks()
        let afterIDAT = try #require(own.lastIndex { $0.type == "IDAT" }) + 1
        own.insert(APNGBuilder.Chunk("fdAT", APNGBuilder.bigEndian(0) + [0]), at: afterIDAT)
        APNGBuilder.renumber(&own)
        try Self.expectFallback(APNGBuilder.serialize(own), mentioning: "whose data is the IDAT image")
    }

    @Test("the default image's fcTL must cover the canvas")
    func defaultImageRegion() throws {
        var builder = APNGBuilder(width: 2, height: 1)
        builder.frames = [.init(image: APNGBuilder.solid(2, 1, blue)), .init(image: APNGBuilder.solid(2, 1, red))]
        var chunks = builder.chunks()
        chunks[2].data.replaceSubrange(4..<8, with: APNGBuilder.bigEndian(1))  // width 1
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "for the default image declares 1x1 at 0,0")
    }

    @Test("a wrong CRC on an APNG chunk discards the animation", arguments: ["acTL", "fcTL", "fdAT"])
    func apngChunkCRC(_ type: String) throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == type })
        chunks[index].wrongCRC = 0x1234_5678
        try Self.expectFallback(APNGBuilder.serialize(chunks), mentioning: "has CRC 0x12345678, but its bytes give 0x")
    }

    @Test("a wrong CRC on a critical chunk is an error", arguments: ["IHDR", "IDAT", "IEND"])
    func criticalChunkCRC(_ type: String) throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.firstIndex { $0.type == type })
        chunks[index].wrongCRC = 0xdead_beef
        Self.expectError(APNGBuilder.serialize(chunks), .corrupt, mentioning: "\(type) at offset")
    }

    @Test("a wrong CRC on another ancillary chunk is a warning")
    func ancillaryCRC() throws {
        var chunks = Self.builder().chunks()
        chunks.insert(APNGBuilder.Chunk("tEXt", Array("a\0b".utf8), wrongCRC: 1), at: chunks.count - 1)
        let (info, frames) = try APNGBuilder.decodeAll(APNGBuilder.serialize(chunks))
        #expect(frames.count == 2)
        #expect(info.warnings.count == 1 && info.warnings[0].contains("tEXt at offset"))
    }

    @Test("no IDAT at all is an error: there is nothing to fall back to")
    func noIDAT() {
        var chunks = Self.builder().chunks()
        chunks.removeAll { $0.type == "IDAT" }
        Self.expectError(APNGBuilder.serialize(chunks), .corrupt, mentioning: "no IDAT chunk")
        Self.expectError(
            APNGBuilder.serialize([
                chunks[0], APNGBuilder.Chunk("acTL", [0, 0, 0, 0, 0, 0, 0, 0]), APNGBuilder.Chunk("IEND", []),
            ]),
            .corrupt, mentioning: "no IDAT chunk")
    }

    @Test("undecodable frame data is an error naming the frame")
    func badFrameData() throws {
        var chunks = Self.builder().chunks()
        let index = try #require(chunks.lastIndex { $0.type == "fdAT" })
        chunks[index].data = Array(chunks[index].data[0..<4]) + [0x78, 0x01, 0xff, 0xff, 0xff]
        let source = try ImageSource(data: APNGBuilder.serialize(chunks), name: "anim.png")
        let reader = try source.makeFrameReader(depth: .eight)
        #expect(try reader.nextFrame() != nil)
        #expect {
            _ = try reader.nextFrame()
        } throws: { error in
            guard let error = error as? ImgToolError else { return false }
            return error.code == .corrupt && error.input == "anim.png"
                && error.message.contains("APNG frame 1 (2x1 at 0,0")
        }
    }

    @Test("declared chunk lengths are checked against the bytes that remain")
    func declaredLengths() throws {
        var bytes = Self.builder().build()
        let boundaries = APNGBuilder.chunkBoundaries(bytes)
        let fdat = boundaries[4]  // IHDR acTL IDAT fcTL fdAT
        #expect(bytes[fdat + 4..<fdat + 8].elementsEqual("fdAT".utf8))
        bytes.replaceSubrange(fdat..<fdat + 4, with: APNGBuilder.bigEndian(0x7fff_ffff))
        Self.expectError(bytes, .truncated, mentioning: "declares 2147483647 bytes of data")
        bytes.replaceSubrange(fdat..<fdat + 4, with: APNGBuilder.bigEndian(0x8000_0000))
        Self.expectError(bytes, .corrupt, mentioning: "over PNG's limit")
    }

    @Test("truncation at every chunk boundary is a clear error naming the input")
    func truncationAtChunkBoundaries() {
        var builder = Self.builder()
        builder.fdatPieceSize = 3
        let bytes = builder.build()
        for cut in APNGBuilder.chunkBoundaries(bytes) where cut < bytes.count {
            do {
                let (info, frames) = try APNGBuilder.decodeAll(Array(bytes[0..<cut]))
                Issue.record("cut at \(cut): decoded \(frames.count) frames, \(info.warnings)")
            } catch {
                #expect([.truncated, .corrupt].contains(error.code), "cut at \(cut): \(error)")
                #expect(error.input == "anim.png", "cut at \(cut)")
            }
        }
    }

    @Test("truncation at every byte never crashes")
    func truncationAtEveryByte() async {
        await #expect(processExitsWith: .success) {
            var builder = APNGErrorTests.builder()
            builder.fdatPieceSize = 3
            let bytes = builder.build()
            for cut in 0..<bytes.count {
                _ = try? APNGBuilder.decodeAll(Array(bytes[0..<cut]))
            }
        }
    }

    @Test("a damaged byte anywhere, with or without fixed-up CRCs, never crashes")
    func damagedBytes() async {
        await #expect(processExitsWith: .success) {
            var builder = APNGErrorTests.builder()
            builder.fdatPieceSize = 3
            let chunks = builder.chunks()
            let bytes = APNGBuilder.serialize(chunks)
            // A damaged IHDR declares canvases of up to 2x50331649 pixels from ten bytes of image data;
            // a limit of a million pixels keeps such cases to the refusal (tested with the limits below)
            // rather than to filling 400 MB frames, which took 75 of this test's 76 seconds.
            let limits = DecodingLimits(maxPixels: 1 << 20)
            for position in 0..<bytes.count {
                var damaged = bytes
                damaged[position] ^= 0x5a
                _ = try? APNGBuilder.decodeAll(damaged, depth: nil, limits: limits)
            }
            // Damage inside chunk data with CRCs recomputed, so that the fields themselves are read.
            for (index, chunk) in chunks.enumerated() {
                for position in chunk.data.indices {
                    for value: UInt8 in [0, 1, 2, 3, 0x7f, 0xff] {
                        var edited = chunks
                        edited[index].data[position] = value
                        _ = try? APNGBuilder.decodeAll(APNGBuilder.serialize(edited), depth: nil, limits: limits)
                    }
                }
            }
        }
    }

    @Test("limits are checked before decoding: canvas, frame count, total pixels")
    func limits() {
        let bytes = Self.builder().build()
        do {
            _ = try APNGBuilder.decodeAll(bytes, limits: DecodingLimits(maxPixels: 1))
            Issue.record("expected tooLarge")
        } catch {
            #expect(error.code == .tooLarge && error.message.contains("canvas is 2x1"))
        }
        do {
            _ = try APNGBuilder.decodeAll(bytes, limits: DecodingLimits(maxFrames: 1))
            Issue.record("expected tooLarge")
        } catch {
            #expect(error.code == .tooLarge && error.message.contains("2 frames"))
        }
        do {
            _ = try APNGBuilder.decodeAll(bytes, limits: DecodingLimits(maxTotalPixels: 3))
            Issue.record("expected tooLarge")
        } catch {
            #expect(error.code == .tooLarge && error.input == "anim.png")
        }
    }
}
