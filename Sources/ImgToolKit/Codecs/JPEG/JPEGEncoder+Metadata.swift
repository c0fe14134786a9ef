extension JPEGEncoder {
    /// This encoder, writing what `color` says: the EXIF block as an APP1 `Exif` segment, the XMP
    /// packet as an APP1 XMP segment, the ICC profile as APP2 `ICC_PROFILE` segments (split in
    /// parts of at most 65,519 bytes, numbered from 1, as the ICC specification's annex B says).
    func describing(_ color: OutputColor) -> JPEGEncoder {
        var encoder = self
        var segments: [UInt8] = []
        if let exif = color.exif, exif.count + 6 <= Self.maxSegmentData {
            Self.appendSegment(0xE1, Array("Exif".utf8) + [0, 0] + exif, to: &segments)
        }
        if let xmp = color.xmp, xmp.count + Self.xmpPrefix.count <= Self.maxSegmentData {
            Self.appendSegment(0xE1, Self.xmpPrefix + xmp, to: &segments)
        }
        if case .icc(let profile) = color.description {
            let part = Self.maxSegmentData - 14
            let count = (profile.data.count + part - 1) / part
            if count <= 255 {
                for number in 0..<count {
                    let share = profile.data[(number * part)..<min(profile.data.count, (number + 1) * part)]
                    let head = Array("ICC_PROFILE".utf8) + [0, UInt8(number + 1), UInt8(count)]
                    Self.appendSegment(0xE2, head + share, to: &segments)
                }
            }
        }
        encoder.segments = segments
        return encoder
    }

    /// Most data bytes in one marker segment (its length field counts itself too).
    static let maxSegmentData = 65_533
    /// What starts an XMP APP1 segment: the namespace and a NUL.
    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

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
