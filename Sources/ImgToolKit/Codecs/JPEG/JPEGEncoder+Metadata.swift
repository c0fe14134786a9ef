extension JPEGEncoder {
    /// This encoder, writing what `color` says: the EXIF block as an APP1 `Exif` segment (rebuilt
    /// without its largest parts when it does not fit one, ``fitted(exif:)``), the XMP packet as an
    /// APP1 XMP segment (left out when it does not fit one), the ICC profile as APP2 `ICC_PROFILE` segments (split in
    /// parts of at most 65,519 bytes, numbered from 1, as the ICC specification's annex B says).
    func describing(_ color: OutputColor) -> JPEGEncoder {
        var encoder = self
        var segments: [UInt8] = []
        if let exif = color.exif, let block = Self.fitted(exif: exif).block {
            Self.appendSegment(0xE1, Array("Exif".utf8) + [0, 0] + block.bytes, to: &segments)
        }
        if let xmp = color.xmp, xmp.count + Self.xmpPrefix.count <= Self.maxSegmentData {
            Self.appendSegment(0xE1, Self.xmpPrefix + xmp, to: &segments)
        }
        if case .icc(let profile) = color.description {
            // OutputColor never gives a profile over maxProfileBytes: it converts or refuses.
            let part = Self.maxICCShare
            let count = (profile.data.count + part - 1) / part
            for number in 0..<min(count, 255) {
                let share = profile.data[(number * part)..<min(profile.data.count, (number + 1) * part)]
                let head = Array("ICC_PROFILE".utf8) + [0, UInt8(number + 1), UInt8(count)]
                Self.appendSegment(0xE2, head + share, to: &segments)
            }
        }
        encoder.segments = segments
        return encoder
    }

    /// Most data bytes in one marker segment (its length field counts itself too).
    static let maxSegmentData = 65_533
    /// Most bytes of ICC profile in one APP2 segment, after `ICC_PROFILE\0`, its number and the count.
    static let maxICCShare = maxSegmentData - 14
    /// Most bytes of ICC profile a JPEG holds: 255 APP2 segments (16,707,345 bytes). A larger
    /// profile is not kept: the pixels are converted to sRGB (``OutputColor``).
    static let maxProfileBytes = 255 * maxICCShare
    /// What starts an XMP APP1 segment: the namespace and a NUL.
    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// Most bytes of a TIFF structure in one APP1 segment, after `Exif\0\0`.
    static let maxEXIFBytes = maxSegmentData - 6

    /// The EXIF block (TIFF bytes) as it fits one APP1 segment (``EXIFBlock/fitted(within:)``).
    static func fitted(exif: [UInt8]) -> EXIFBlock.Fitting {
        EXIFBlock(tiff: exif).fitted(within: maxEXIFBytes)
    }

    /// What writing `source` into a JPEG changes or leaves out, one sentence each: an ICC profile
    /// too large for 255 APP2 segments (the pixels are converted to sRGB), the parts of an EXIF
    /// block that does not fit one APP1 segment, an XMP packet that does not fit one.
    static func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        var notes: [String] = []
        if OutputColor.exceedsProfileLimit(source.info, options: options, limit: maxProfileBytes),
            let profile = source.info.color.effectiveProfile
        {
            let size = EXIFBlock.Fitting.grouped(profile.data.count)
            notes.append(
                "the ICC profile (\(size) bytes) is larger than a JPEG's 255 APP2 segments hold (\(EXIFBlock.Fitting.grouped(maxProfileBytes))): the pixels are converted to sRGB"
            )
        }
        guard options.metadata != .none else { return notes }
        let (exif, xmp) = OutputColor.metadata(of: source.info, choice: options.metadata)
        return notes + metadataNotes(exif: exif, xmp: xmp)
    }

    /// What writing `exif` and `xmp` into a JPEG leaves out, one sentence each: the parts of an
    /// EXIF block that does not fit one APP1 segment, an XMP packet that does not fit one.
    static func metadataNotes(exif: [UInt8]?, xmp: [UInt8]?) -> [String] {
        var notes: [String] = []
        if let exif,
            let note = fitted(exif: exif).note(
                original: exif.count, limit: maxEXIFBytes, container: "a JPEG APP1 segment")
        {
            notes.append(note)
        }
        if let xmp, xmp.count + xmpPrefix.count > maxSegmentData {
            let limit = EXIFBlock.Fitting.grouped(maxSegmentData - xmpPrefix.count)
            notes.append(
                "the XMP packet (\(EXIFBlock.Fitting.grouped(xmp.count)) bytes) is larger than a JPEG APP1 segment holds (\(limit)): it is left out"
            )
        }
        return notes
    }

    private static func appendSegment(_ marker: UInt8, _ data: [UInt8], to out: inout [UInt8]) {
        let length = data.count + 2
        out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += data
    }

    /// `bytes` (the start of the file: SOI, libjpeg's JFIF APP0, ...) with ``segments`` put after
    /// SOI and the JFIF segment.
    func insertingSegments(into bytes: [UInt8]) -> [UInt8] {
        guard !segments.isEmpty, bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return bytes }
        var at = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            at = min(bytes.count, 4 + (Int(bytes[4]) << 8 | Int(bytes[5])))
        }
        return Array(bytes[..<at]) + segments + Array(bytes[at...])
    }
}
