/// Writes an MP4 of one H.264 or AV1 video track with the `moov` box before `mdat` (fast start: a
/// browser starts playing before the whole file has arrived), so the samples are collected first
/// and the file is written whole at the end.
///
/// Layout: `ftyp` (isom, compatible iso2, avc1 or av01, mp41), `moov` (`mvhd`, one `trak` with
/// `tkhd`, `mdia`: `mdhd`, `hdlr` vide, `minf`: `vmhd`, `dinf`, `stbl`: `stsd` with an `avc1` entry
/// holding `avcC` or an `av01` entry holding `av1C`, and a `colr` `nclx` box (BT.709, limited
/// range), `stts` from the samples' durations (run-length coded), `stss` for the key frames, `stsc` (one chunk), `stsz`, and `stco`
/// or `co64`), then `mdat`. Times are in milliseconds (timescale 1000).
struct MP4Muxer {
    /// One coded frame: its NAL units with 4-byte lengths (H.264) or its OBUs without a temporal
    /// delimiter (AV1), its duration in ms, whether it is a key frame.
    struct Sample {
        var data: [UInt8]
        var duration: Int
        var key: Bool
    }

    let width: Int
    let height: Int
    /// The coding and its configuration record.
    let entry: SampleEntry

    /// The video coding of the track, with its decoder configuration record.
    enum SampleEntry {
        /// H.264: the `avcC` record (AVCDecoderConfigurationRecord).
        case avc([UInt8])
        /// AV1: the `av1C` record (AV1CodecConfigurationRecord, ``MP4Muxer/av1Configuration(sequenceHeader:)``).
        case av1([UInt8])

        /// The sample entry's type and its configuration box.
        var boxes: (type: String, configuration: [UInt8]) {
            switch self {
            case .avc(let record): ("avc1", MP4Muxer.box("avcC", record))
            case .av1(let record): ("av01", MP4Muxer.box("av1C", record))
            }
        }
    }

    /// A box: its size, its type and `content`.
    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        EBMLWriter.bigEndian(UInt64(content.count + 8), width: 4) + Array(type.utf8) + content
    }

    /// A full box: a box whose content starts with a version and 24 bits of flags.
    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ content: [UInt8]) -> [UInt8] {
        box(type, [version] + EBMLWriter.bigEndian(UInt64(flags), width: 3) + content)
    }

    static func u32(_ value: Int) -> [UInt8] {
        EBMLWriter.bigEndian(UInt64(UInt32(truncatingIfNeeded: value)), width: 4)
    }
    static func u16(_ value: Int) -> [UInt8] {
        EBMLWriter.bigEndian(UInt64(UInt16(truncatingIfNeeded: value)), width: 2)
    }

    /// The identity matrix of `mvhd` and `tkhd`.
    static let matrix = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000].flatMap { u32($0) }

    /// The whole file.
    func file(_ samples: [Sample]) -> [UInt8] {
        let ftyp = Self.box("ftyp", Array("isom".utf8) + Self.u32(512) + Array("isomiso2\(entry.boxes.type)mp41".utf8))
        let total = samples.reduce(0) { $0 + $1.data.count }
        let large = total + 16 > Int(UInt32.max)
        let mdatHeader =
            large
            ? Self.u32(1) + Array("mdat".utf8) + EBMLWriter.bigEndian(UInt64(total + 16), width: 8)
            : Self.u32(total + 8) + Array("mdat".utf8)
        // The moov's size does not depend on the offset it holds, so it is made twice.
        let sized = moov(samples, dataOffset: 0)
        let offset = ftyp.count + sized.count + mdatHeader.count
        var out = ftyp + moov(samples, dataOffset: offset) + mdatHeader
        out.reserveCapacity(offset + total)
        for sample in samples { out += sample.data }
        return out
    }

    private func moov(_ samples: [Sample], dataOffset: Int) -> [UInt8] {
        let duration = samples.reduce(0) { $0 + $1.duration }
        let mvhd = Self.fullBox(
            "mvhd",
            Self.u32(0) + Self.u32(0) + Self.u32(1000) + Self.u32(duration) + Self.u32(0x0001_0000) + Self.u16(0x0100)
                + [UInt8](repeating: 0, count: 10) + Self.matrix + [UInt8](repeating: 0, count: 24) + Self.u32(2))
        let tkhd = Self.fullBox(
            "tkhd", flags: 3,
            Self.u32(0) + Self.u32(0) + Self.u32(1) + Self.u32(0) + Self.u32(duration) + [UInt8](repeating: 0, count: 8)
                + Self.u16(0) + Self.u16(0) + Self.u16(0) + Self.u16(0) + Self.matrix + Self.u32(width << 16)
                + Self.u32(height << 16))
        let mdhd = Self.fullBox(
            "mdhd", Self.u32(0) + Self.u32(0) + Self.u32(1000) + Self.u32(duration) + Self.u16(0x55C4) + Self.u16(0))
        let hdlr = Self.fullBox(
            "hdlr",
            Self.u32(0) + Array("vide".utf8) + [UInt8](repeating: 0, count: 12) + Array("VideoHandler".utf8) + [0])
        let vmhd = Self.fullBox("vmhd", flags: 1, [UInt8](repeating: 0, count: 8))
        let dinf = Self.box("dinf", Self.fullBox("dref", Self.u32(1) + Self.fullBox("url ", flags: 1, [])))
        let colr = Self.box("colr", Array("nclx".utf8) + Self.u16(1) + Self.u16(1) + Self.u16(1) + [0])
        let (type, configuration) = entry.boxes
        let visual = Self.box(
            type,
            [UInt8](repeating: 0, count: 6) + Self.u16(1) + [UInt8](repeating: 0, count: 16) + Self.u16(width)
                + Self.u16(height) + Self.u32(0x0048_0000) + Self.u32(0x0048_0000) + Self.u32(0) + Self.u16(1)
                + [UInt8](repeating: 0, count: 32) + Self.u16(0x18) + Self.u16(0xFFFF)
                + configuration + colr)
        let stsd = Self.fullBox("stsd", Self.u32(1) + visual)
        var runs: [(count: Int, delta: Int)] = []
        for sample in samples {
            if let last = runs.last, last.delta == sample.duration {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((1, sample.duration))
            }
        }
        let stts = Self.fullBox("stts", Self.u32(runs.count) + runs.flatMap { Self.u32($0.count) + Self.u32($0.delta) })
        let keys = samples.indices.filter { samples[$0].key }
        let stss = Self.fullBox("stss", Self.u32(keys.count) + keys.flatMap { Self.u32($0 + 1) })
        let stsc = Self.fullBox("stsc", Self.u32(1) + Self.u32(1) + Self.u32(samples.count) + Self.u32(1))
        let stsz = Self.fullBox(
            "stsz", Self.u32(0) + Self.u32(samples.count) + samples.flatMap { Self.u32($0.data.count) })
        let chunk =
            dataOffset > Int(UInt32.max)
            ? Self.fullBox("co64", Self.u32(1) + EBMLWriter.bigEndian(UInt64(dataOffset), width: 8))
            : Self.fullBox("stco", Self.u32(1) + Self.u32(dataOffset))
        let stbl = Self.box("stbl", stsd + stts + stss + stsc + stsz + chunk)
        let minf = Self.box("minf", vmhd + dinf + stbl)
        let mdia = Self.box("mdia", mdhd + hdlr + minf)
        let trak = Self.box("trak", tkhd + mdia)
        return Self.box("moov", mvhd + trak)
    }

    /// The NAL units of Annex B bytes (each after a `00 00 01` or `00 00 00 01` start code).
    static func nalUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(code: Int, data: Int)] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                let code = index > 0 && bytes[index - 1] == 0 ? index - 1 : index
                starts.append((code, index + 3))
                index += 3
            } else {
                index += 1
            }
        }
        return starts.indices.map { position in
            let end = position + 1 < starts.count ? starts[position + 1].code : bytes.count
            return bytes[starts[position].data..<max(end, starts[position].data)]
        }
    }

    /// Annex B bytes as MP4 stores a sample: each NAL unit after its length in 4 bytes.
    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        for unit in nalUnits(bytes) where !unit.isEmpty {
            out += u32(unit.count)
            out += unit
        }
        return out
    }

    /// The `avcC` record for the SPS and PPS in `extradata` (Annex B), or `nil` without them.
    static func configuration(fromAnnexB extradata: [UInt8]) -> [UInt8]? {
        let units = nalUnits(extradata).filter { !$0.isEmpty }
        let sps = units.filter { ($0.first ?? 0) & 0x1F == 7 }
        let pps = units.filter { ($0.first ?? 0) & 0x1F == 8 }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty else { return nil }
        let profile = first[first.startIndex + 1]
        var out: [UInt8] = [
            1, profile, first[first.startIndex + 2], first[first.startIndex + 3], 0xFF, 0xE0 | UInt8(sps.count),
        ]
        for unit in sps { out += u16(unit.count) + unit }
        out.append(UInt8(pps.count))
        for unit in pps { out += u16(unit.count) + unit }
        if [100, 110, 122, 144].contains(profile) {
            // 4:2:0, 8 bits, no SPS extensions.
            out += [0xFC | 1, 0xF8, 0xF8, 0]
        }
        return out
    }
}
