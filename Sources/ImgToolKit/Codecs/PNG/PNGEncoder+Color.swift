internal import CLibPNG

/// One ancillary chunk a PNG writer adds after IHDR.
struct PNGExtraChunk: Sendable, Hashable {
    var type: PNGChunkType
    var data: [UInt8]
}

extension PNGEncoder {
    /// This encoder, writing what `color` says about colour and metadata: an ICC profile as
    /// `iCCP` (and no grey storage, which an RGB profile cannot describe), `sRGB`, or `gAMA` and
    /// `cHRM`; then `eXIf` and the XMP packet as an `iTXt` keyed `XML:com.adobe.xmp`.
    func describing(_ color: OutputColor) throws(ImgToolError) -> PNGEncoder {
        var encoder = self
        var chunks: [PNGExtraChunk] = []
        switch color.description {
        case .none:
            break
        case .icc(let profile):
            chunks.append(PNGExtraChunk(type: PNGChunkType("iCCP"), data: try Self.iccp(profile)))
            encoder.allowsGray = profile.colorSpace == .gray
        case .srgb(let intent):
            chunks.append(PNGExtraChunk(type: PNGChunkType("sRGB"), data: [UInt8(clamping: intent)]))
        case .gammaAndChromaticities(let gamma, let chromaticities):
            if let gamma {
                var data: [UInt8] = []
                data.appendBigEndian(UInt32(clamping: Int((gamma * 100_000).rounded())))
                chunks.append(PNGExtraChunk(type: PNGChunkType("gAMA"), data: data))
            }
            if let c = chromaticities {
                var data: [UInt8] = []
                for value in c.white + c.red + c.green + c.blue {
                    data.appendBigEndian(UInt32(clamping: Int((value * 100_000).rounded())))
                }
                chunks.append(PNGExtraChunk(type: PNGChunkType("cHRM"), data: data))
            }
        }
        if let exif = color.exif { chunks.append(PNGExtraChunk(type: PNGChunkType("eXIf"), data: exif)) }
        if let xmp = color.xmp {
            // keyword, NUL, compression flag 0, method 0, empty language and translated keyword.
            let head = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]
            chunks.append(PNGExtraChunk(type: PNGChunkType("iTXt"), data: head + xmp))
        }
        encoder.extraChunks = chunks.filter { $0.data.count <= PNGChunk.maxLength }
        return encoder
    }

    /// The `iCCP` chunk's data: the profile's name (a PNG keyword: 1-79 printable letters, single
    /// spaces), NUL,
    /// compression method 0, the zlib-compressed profile.
    static func iccp(_ profile: ColorProfile) throws(ImgToolError) -> [UInt8] {
        // A PNG keyword: printable Latin-1, no leading, trailing or doubled spaces (libpng drops a
        // profile whose name breaks these rules).
        var name: [UInt8] = []
        for scalar in profile.description.unicodeScalars where (32...126).contains(scalar.value) {
            if scalar.value == 32 && (name.isEmpty || name.last == 32) { continue }
            name.append(UInt8(scalar.value))
        }
        name = Array(name.prefix(79))
        while name.last == 32 { name.removeLast() }
        if name.isEmpty { name = Array("ICC profile".utf8) }
        var length = 0
        let compressed = profile.data.withUnsafeBufferPointer { bytes in
            imgtool_png_zlib_compress(bytes.baseAddress, bytes.count, 9, &length)
        }
        guard let compressed else { throw ImgToolError(.tooLarge, "out of memory compressing the ICC profile") }
        defer { imgtool_png_buffer_free(compressed) }
        return name + [0, 0] + Array(UnsafeBufferPointer(start: compressed, count: length))
    }

    /// The extra chunks as the C writer takes them: type, big-endian length, data.
    var extraChunkRecords: [UInt8] {
        var records: [UInt8] = []
        for chunk in extraChunks {
            records.append(contentsOf: chunk.type.bytes)
            records.appendBigEndian(UInt32(chunk.data.count))
            records.append(contentsOf: chunk.data)
        }
        return records
    }
}
