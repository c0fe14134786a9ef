/// Edits the metadata segments of a JPEG file without touching its image data, for the paths
/// that move a JPEG as it is: a JPEG recompressed losslessly into JPEG XL, and the JPEG such a
/// file rebuilds. libjxl records the JPEG's markers so that it can rebuild the file byte for
/// byte, its EXIF and XMP in the JPEG XL's `Exif` and `xml ` boxes; editing the JPEG first keeps
/// the boxes and the reconstruction data in agreement (what is rebuilt is the edited file).
///
/// What is kept follows ``ImageWriteOptions/MetadataChoice``, as it does for every other output:
/// - ``ImageWriteOptions/MetadataChoice/keepWithGPS``: the file unchanged, byte for byte (an EXIF
///   segment with no readable TIFF structure included: the rebuilt JPEG is the original).
/// - ``ImageWriteOptions/MetadataChoice/keep``: the EXIF block without its GPS directory and
///   thumbnail, the XMP packet without `exif:GPS…` properties (or without the packet, when it
///   cannot be parsed: ``XMPPacket/parseProblem``), the extended XMP as it is when it holds no
///   location property, else without them under a new GUID (``JPEGExtendedXMP``), or without it
///   when it cannot be reassembled or parsed; every other segment kept. The
///   orientation stays as stored: the pixels are not turned.
/// - ``ImageWriteOptions/MetadataChoice/none``: only what decoding needs (JFIF's APP0, the ICC
///   profile's APP2 segments, Adobe's APP14, and every table and frame segment); every other
///   APPn segment (EXIF, XMP, Photoshop/IPTC, MPF, maker data) and every comment goes. An EXIF
///   orientation other than 1 survives in a minimal EXIF block holding nothing else, since the
///   pixels are stored unturned and a viewer must still turn them.
///
/// In both edited cases, anything after the end-of-image marker (the secondary images of an MPF
/// file, each with an EXIF block of its own) goes. Only the segments before the first scan are
/// edited.
struct JPEGMetadataEditor {
    let choice: ImageWriteOptions.MetadataChoice

    /// `jpeg` with its metadata kept as ``choice`` says, or `nil` when its markers cannot be
    /// followed to the first scan (and so cannot be edited: callers then decode the pixels).
    func edited(_ jpeg: [UInt8]) -> [UInt8]? {
        guard choice != .keepWithGPS else { return jpeg }
        guard let layout = JPEGSegmentLayout(jpeg) else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(layout.end)
        var wroteEXIF = false
        let extended = choice == .keep ? ExtendedPlan(jpeg, layout: layout) : ExtendedPlan()
        for segment in layout.segments {
            let payload = Array(jpeg[segment.payload])
            switch kind(of: segment.marker, payload) {
            case .exif:
                guard !wroteEXIF, let block = EXIFBlock(app1OrTIFF: Array(payload.dropFirst(6))),
                    block.readProblem == nil
                else { continue }
                wroteEXIF = true
                let edited: EXIFBlock
                if choice == .keep {
                    edited = block.edited(orientation: nil, removingGPS: true, removingThumbnail: true)
                } else if let orientation = block.orientation, (2...8).contains(orientation) {
                    edited = EXIFBlock.minimal(bigEndian: block.bytes.starts(with: [0x4D]), orientation: orientation)
                } else {
                    continue
                }
                Self.append(0xE1, Array(payload.prefix(6)) + edited.bytes, to: &output)
            case .xmp:
                guard choice == .keep else { continue }
                let prefix = Array(payload.prefix(Self.xmpNamespace.count))
                let packet = XMPPacket(bytes: Array(payload.dropFirst(prefix.count)))
                // One that cannot be parsed could hold a position the editor does not see.
                guard packet.parseProblem == nil else { continue }
                var edited = packet.edited(orientation: nil, removingGPS: true).bytes
                if let (old, new) = extended.renamed, let reference = JPEGExtendedXMP.referencedGUID(in: edited),
                    edited[reference].elementsEqual(old)
                {
                    edited.replaceSubrange(reference, with: new)
                }
                Self.append(0xE1, prefix + edited, to: &output)
            case .extendedXMP:
                if extended.kept.contains(segment.whole) {
                    output += jpeg[segment.whole]
                } else if segment.whole == extended.replaced {
                    for data in extended.replacement { Self.append(0xE1, data, to: &output) }
                }
            case .needed:
                output += jpeg[segment.whole]
            case .other:
                if choice == .keep { output += jpeg[segment.whole] }
            case .multiPicture:
                continue  // its offsets point past the end of the image, which goes
            }
        }
        output += jpeg[layout.firstScan..<layout.end]
        return output
    }

    private enum Kind {
        case exif, xmp, extendedXMP, needed, other, multiPicture
    }

    /// What becomes of the extended XMP segments (``JPEGExtendedXMP``) when location properties
    /// are removed: the segments of a packet without any are kept as they are; a packet with some
    /// is written without them in new segments, in place of its first, under a new GUID (the MD5
    /// of its new text) that the main packet's `xmpNote:HasExtendedXMP` then names; any other
    /// extended segment (another GUID, a packet that cannot be reassembled or parsed) goes.
    private struct ExtendedPlan {
        var kept: Set<Range<Int>> = []
        var replaced: Range<Int>?
        var replacement: [[UInt8]] = []
        /// The old GUID and the new one.
        var renamed: ([UInt8], [UInt8])?

        init() {}

        init(_ jpeg: [UInt8], layout: JPEGSegmentLayout) {
            let main = layout.segments.first { segment in
                segment.marker == 0xE1 && jpeg[segment.payload].starts(with: JPEGMetadataEditor.xmpNamespace)
            }
            let packet = main.map {
                XMPPacket(bytes: Array(jpeg[$0.payload].dropFirst(JPEGMetadataEditor.xmpNamespace.count)))
            }
            let reading = JPEGExtendedXMP.read(
                jpeg, segments: layout.segments, mainPacket: packet?.parseProblem == nil ? packet?.bytes : nil)
            guard let found = reading.packet else { return }
            let extended = XMPPacket(bytes: found.text)
            guard extended.hasGPS else {
                kept = Set(found.segments)
                return
            }
            let text = extended.edited(orientation: nil, removingGPS: true).bytes
            let guid = Array(MD5.uppercaseHex(text).utf8)
            replaced = found.segments.first
            replacement = JPEGExtendedXMP.segmentData(for: text, guid: guid)
            renamed = (found.guid, guid)
        }
    }

    private func kind(of marker: UInt8, _ payload: [UInt8]) -> Kind {
        switch marker {
        case 0xE1 where payload.starts(with: Array("Exif".utf8) + [0, 0]): .exif
        case 0xE1 where payload.starts(with: Self.xmpNamespace): .xmp
        case 0xE1 where payload.starts(with: JPEGExtendedXMP.signature): .extendedXMP
        case 0xE0 where payload.starts(with: Array("JFIF".utf8) + [0]): .needed
        case 0xE2 where payload.starts(with: Array("ICC_PROFILE".utf8) + [0]): .needed
        case 0xE2 where payload.starts(with: Array("MPF".utf8) + [0]): .multiPicture
        case 0xEE where payload.starts(with: Array("Adobe".utf8)): .needed
        case 0xE0...0xEF, 0xFE: .other
        default: .needed
        }
    }

    /// What starts a standard XMP APP1 segment: the namespace and a NUL.
    static let xmpNamespace = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    /// Appends a marker segment; one whose data would not fit a segment is left out.
    private static func append(_ marker: UInt8, _ data: [UInt8], to output: inout [UInt8]) {
        guard data.count <= 65_533 else { return }
        let length = data.count + 2
        output += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + data
    }
}

/// The marker segments of a JPEG file before its first scan, where its first scan starts and
/// where its end-of-image marker ends.
struct JPEGSegmentLayout {
    struct Segment {
        /// The marker's second byte (0xE1 for APP1).
        let marker: UInt8
        /// The whole segment, from its 0xFF.
        let whole: Range<Int>
        /// The data after the length field.
        let payload: Range<Int>
    }

    let segments: [Segment]
    /// Where the first SOS marker starts.
    let firstScan: Int
    /// Just past the EOI marker (or the end of the file, when there is none).
    let end: Int

    /// Follows the markers of `jpeg`, or `nil` when it does not start with SOI or a segment runs
    /// past the end before the first scan.
    init?(_ jpeg: [UInt8]) {
        guard let (segments, firstScan) = Self.headerSegments(jpeg) else { return nil }
        self.segments = segments
        self.firstScan = firstScan
        end = Self.endOfImage(in: jpeg, from: firstScan)
    }

    /// The segments of `jpeg` before its first scan and where that scan starts, or `nil` when it
    /// does not start with SOI or a segment runs past the end before the first scan.
    static func headerSegments(_ jpeg: [UInt8]) -> (segments: [Segment], firstScan: Int)? {
        guard jpeg.starts(with: [0xFF, 0xD8]) else { return nil }
        var segments: [Segment] = []
        var position = 2
        // Header segments, up to the first scan.
        while true {
            guard position + 4 <= jpeg.count, jpeg[position] == 0xFF else { return nil }
            let marker = jpeg[position + 1]
            if marker == 0xFF {
                position += 1  // a fill byte
                continue
            }
            if marker == 0xDA { break }
            let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
            guard length >= 2, position + 2 + length <= jpeg.count else { return nil }
            segments.append(
                Segment(
                    marker: marker, whole: position..<position + 2 + length,
                    payload: position + 4..<position + 2 + length))
            position += 2 + length
        }
        return (segments, position)
    }

    /// Just past the EOI marker that ends the image whose first scan is at `start`: entropy-coded
    /// data is skipped (stuffed 0xFF 0x00 and restart markers), the segments between scans by
    /// their lengths. The end of the file when there is no EOI.
    private static func endOfImage(in jpeg: [UInt8], from start: Int) -> Int {
        var position = start
        while position + 1 < jpeg.count {
            guard jpeg[position] == 0xFF else {
                position += 1
                continue
            }
            let marker = jpeg[position + 1]
            switch marker {
            case 0xD9:
                return position + 2
            case 0x00, 0xD0...0xD7, 0xFF:
                position += marker == 0xFF ? 1 : 2
            default:
                guard position + 4 <= jpeg.count else { return jpeg.count }
                position += 2 + (Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3]))
            }
        }
        return jpeg.count
    }
}
