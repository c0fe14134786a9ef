/// A codec that says, before writing, what it will change or leave out of what the source
/// describes (JPEG's segments hold 64 KB; libjxl takes a JPEG's ICC segments only in order),
/// so that the user hears of it.
protocol MetadataNoting {
    /// What writing `source` with `options` changes or leaves out, one sentence each; empty when
    /// nothing.
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String]
    /// Whether `source` is written with its metadata segments byte for byte, so that none of
    /// ``ImageInfo/metadataWarnings(keeping:)``'s drops happens (a JPEG recompressed into JPEG XL
    /// with ``ImageWriteOptions/MetadataChoice/keepWithGPS``). Default `false`.
    func keepsMetadataAsIs(_ source: any FrameSource, options: ImageWriteOptions) -> Bool
}

extension MetadataNoting {
    func keepsMetadataAsIs(_ source: any FrameSource, options: ImageWriteOptions) -> Bool { false }
}

extension JPEGCodec: MetadataNoting {
    /// An ICC profile too large for a JPEG, the parts of an EXIF block larger than an APP1
    /// segment that its rebuild leaves out, and an XMP packet larger than one
    /// (``JPEGEncoder/metadataNotes(for:options:)``).
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        JPEGEncoder.metadataNotes(for: source, options: options)
    }
}

extension JXLCodec: MetadataNoting {
    /// A recompressed JPEG whose ICC segments are put in order, or written as pixels
    /// (``JXLWriter/recompressionNotes(_:)``).
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        JXLWriter(options: options, source: source.info).recompressionNotes(source)
    }

    /// A JPEG recompressed with every marker kept: the rebuilt JPEG is the original.
    func keepsMetadataAsIs(_ source: any FrameSource, options: ImageWriteOptions) -> Bool {
        options.metadata == .keepWithGPS
            && (try? JXLWriter(options: options, source: source.info).recompressedJPEG(source)) != nil
    }
}
