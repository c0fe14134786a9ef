extension ImageInfo {
    /// Why the XMP packet cannot be parsed as XML (``XMPPacket/parseProblem``); `nil` when it can
    /// or when there is none.
    public var xmpParseProblem: String? {
        xmp.flatMap { XMPPacket(bytes: $0).parseProblem }
    }

    /// Whether a GPS position may be there unseen: ``hasGPS`` found none, and the XMP packet
    /// cannot be parsed, so its location properties cannot be told from the rest, or a JPEG's
    /// extended XMP cannot be read (``xmpExtensionProblem``).
    public var gpsIsUnknown: Bool {
        !hasGPS && (xmpParseProblem != nil || xmpExtensionProblem != nil)
    }

    /// Why the EXIF block holds no TIFF structure that can be read (so that writers leave it
    /// out); `nil` when it does, or when there is none.
    var exifReadProblem: String? {
        guard let exif else { return nil }
        guard let block = EXIFBlock(app1OrTIFF: exif) else { return "it does not start with a TIFF header" }
        return block.readProblem
    }

    /// What writing this image with `choice` leaves out of its metadata that the user should
    /// hear of, one sentence each: an EXIF block with no readable TIFF structure (it says
    /// nothing, and some writers refuse it), and an XMP packet that cannot be parsed when its
    /// location properties are to be removed (``ImageWriteOptions/MetadataChoice/keep``), as they
    /// cannot be found in it, and with that choice a JPEG's extended XMP that cannot be used
    /// (``xmpExtensionProblem``). Empty when there is nothing to say (always with
    /// ``ImageWriteOptions/MetadataChoice/none``).
    public func metadataWarnings(keeping choice: ImageWriteOptions.MetadataChoice) -> [String] {
        guard choice != .none else { return [] }
        var warnings: [String] = []
        if let problem = exifReadProblem {
            warnings.append("the EXIF block cannot be read (\(problem)): it is dropped")
        }
        if choice == .keep, let problem = xmpParseProblem {
            warnings.append(
                "the XMP packet cannot be parsed as XML (\(problem)): it is dropped, as a position in it could not be removed"
            )
        }
        if choice == .keep, let problem = xmpExtensionProblem {
            warnings.append("the extended XMP \(problem): it is dropped")
        } else if choice == .keep, xmpParseProblem != nil, xmpExtension != nil {
            warnings.append("the extended XMP the XMP packet names is dropped with it")
        }
        return warnings
    }
}
