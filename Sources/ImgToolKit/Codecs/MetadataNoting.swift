/// A codec whose files cannot hold every metadata block whole (JPEG's segments hold 64 KB): it
/// says, before writing, what it will leave out, so that the user hears of it.
protocol MetadataNoting {
    /// What writing `exif` (TIFF bytes) and `xmp` leaves out, one sentence each; empty when all fits.
    func metadataNotes(exif: [UInt8]?, xmp: [UInt8]?) -> [String]
}

extension JPEGCodec: MetadataNoting {
    /// The parts of an EXIF block larger than an APP1 segment that its rebuild leaves out, and an
    /// XMP packet larger than one (``JPEGEncoder/metadataNotes(exif:xmp:)``).
    func metadataNotes(exif: [UInt8]?, xmp: [UInt8]?) -> [String] {
        JPEGEncoder.metadataNotes(exif: exif, xmp: xmp)
    }
}
