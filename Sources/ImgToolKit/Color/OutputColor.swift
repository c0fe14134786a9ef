/// What a writer puts in its output about colour and metadata, decided once from the source's
/// information and the ``ImageWriteOptions``: the source to encode (converted when the choice or
/// the format asks), the colour description to embed, and the EXIF and XMP blocks, edited.
///
/// Every writer makes one, so every format follows the same rules (the Colour article).
struct OutputColor {
    /// What a format can hold.
    enum Container {
        /// PNG and APNG: an ICC profile, or `sRGB`, `gAMA`, `cHRM` chunks.
        case png
        /// An ICC profile (JPEG, WebP), pixels always RGB.
        case icc
        /// Nothing: GIF. Pixels are converted to sRGB.
        case none
    }

    /// What to say about colour in the output.
    enum Description: Equatable {
        /// Nothing (sRGB by default in every viewer).
        case none
        /// An ICC profile.
        case icc(ColorProfile)
        /// PNG: an `sRGB` chunk with this rendering intent.
        case srgb(intent: Int)
        /// PNG: `gAMA` and `cHRM` as the source had them.
        case gammaAndChromaticities(gamma: Double?, chromaticities: ColorMetadata.Chromaticities?)
    }

    /// The source to encode: the input, or the input converted.
    let source: any FrameSource
    /// What the output says about colour.
    let description: Description
    /// The EXIF block to write (TIFF bytes), edited as ``ImageWriteOptions/metadata`` says.
    let exif: [UInt8]?
    /// The XMP packet to write.
    let xmp: [UInt8]?

    /// Decides for `source` written to a `container` with `options`.
    /// - Parameter profileLimit: the most bytes of ICC profile the format holds (JPEG's 255 APP2
    ///   segments); a source's profile larger than that is not kept, its pixels are converted to
    ///   sRGB (``exceedsProfileLimit(_:options:limit:)``).
    /// - Throws: ``ImgToolError`` `invalidArgument` when asked to convert to a profile the format
    ///   cannot carry (GIF, or one larger than `profileLimit`) or one that is not RGB.
    init(
        _ source: any FrameSource, options: ImageWriteOptions, container: Container, profileLimit: Int = .max
    ) throws(ImgToolError) {
        let color = source.info.color
        switch options.profile {
        case .keep:
            let profile = color.effectiveProfile
            if container == .none || profile?.colorSpace == .gray && container == .icc
                || Self.exceedsProfileLimit(source.info, options: options, limit: profileLimit)
            {
                // GIF holds no profile; a grey profile cannot describe RGB JPEG or WebP pixels.
                self.source = source.convertedToSRGB()
                description = .none
            } else if profile?.colorSpace == .gray {
                // PNG might be written in colour: the pixels are taken to sRGB, said with `sRGB`.
                self.source = source.convertedToSRGB()
                description = .srgb(intent: 0)
            } else if container == .png {
                self.source = source
                description = Self.pngDescription(of: color, profile: profile)
            } else {
                self.source = source
                description = profile.map { .icc($0) } ?? .none
            }
        case .sRGB:
            self.source = source.convertedToSRGB()
            description = container == .png ? .srgb(intent: 0) : .none
        case .strip:
            self.source = source.convertedToSRGB()
            description = .none
        case .convert(let profile):
            guard container != .none else {
                throw ImgToolError(
                    .invalidArgument, "GIF cannot carry a colour profile; use --profile srgb (or keep)")
            }
            guard profile.isUsable, profile.colorSpace == .rgb else {
                throw ImgToolError(
                    .invalidArgument,
                    "the output profile must be an RGB profile Little CMS reads (it is \(profile.summary))")
            }
            guard profile.data.count <= profileLimit else {
                throw ImgToolError(
                    .invalidArgument,
                    "the output profile is \(EXIFBlock.Fitting.grouped(profile.data.count)) bytes; this format holds at most \(EXIFBlock.Fitting.grouped(profileLimit)): use a smaller profile, or --profile srgb"
                )
            }
            self.source = source.convertingColors(to: profile)
            description = .icc(profile)
        }
        (exif, xmp) = Self.metadata(of: source.info, choice: container == .none ? .none : options.metadata)
    }

    /// Whether the profile that ``ProfileChoice/keep`` would embed for `info` is larger than
    /// `limit` bytes, so that the pixels are converted to sRGB instead.
    static func exceedsProfileLimit(_ info: ImageInfo, options: ImageWriteOptions, limit: Int) -> Bool {
        guard case .keep = options.profile, let profile = info.color.effectiveProfile else { return false }
        return profile.colorSpace != .gray && profile.data.count > limit
    }

    /// A PNG keeps the source's own chunks where it can: the ICC profile, else `sRGB`, else
    /// `gAMA`/`cHRM`; a `cICP` description becomes the profile it stands for.
    private static func pngDescription(of color: ColorMetadata, profile: ColorProfile?) -> Description {
        if color.cicp != nil { return profile.map { .icc($0) } ?? .srgb(intent: 0) }
        if let icc = color.profile, icc.isUsable, profile == icc { return .icc(icc) }
        if color.hasSRGB { return .srgb(intent: color.srgbIntent ?? 0) }
        if color.gamma != nil || color.chromaticities != nil {
            return .gammaAndChromaticities(gamma: color.gamma, chromaticities: color.chromaticities)
        }
        return .none
    }

    /// The EXIF and XMP to write: none, or the source's edited (no thumbnail, no GPS unless
    /// asked, orientation 1 once the frames are upright). An EXIF block with no readable TIFF
    /// structure is left out, and, without GPS, an XMP packet that cannot be parsed
    /// (``XMPPacket/parseProblem``): ``ImageInfo/metadataWarnings(keeping:)`` says so.
    ///
    /// This is the one place where every writer's metadata gets its orientation: the frames are
    /// upright when the decoder applied an orientation (JPEG's EXIF tag; HEIF's and AVIF's
    /// `irot`/`imir`; JPEG XL's), or when the format's EXIF orientation is informational (HEIF,
    /// AVIF, JPEG XL show their image as decoded whatever the tag says). Then every orientation
    /// tag of the EXIF block's IFD0 and XMP's `tiff:Orientation` say 1, or a viewer would turn the
    /// image again. A tag that was not applied (PNG's and WebP's, a JPEG read with
    /// ``DecodingOptions/autoOrient`` off) still describes the frames and is kept.
    static func metadata(of info: ImageInfo, choice: ImageWriteOptions.MetadataChoice) -> (
        exif: [UInt8]?, xmp: [UInt8]?
    ) {
        guard choice != .none else { return (nil, nil) }
        let applied = info.appliedOrientation != .up || info.exifOrientationIsInformational
        let dropGPS = choice != .keepWithGPS
        // A block with no readable TIFF structure says nothing, and libavif refuses some: left out.
        let exif = info.exif.flatMap { EXIFBlock(app1OrTIFF: $0) }.flatMap { block in
            block.readProblem != nil
                ? nil
                : block.edited(orientation: applied ? 1 : nil, removingGPS: dropGPS, removingThumbnail: true).bytes
        }
        let xmp = info.xmp.map { XMPPacket(bytes: $0) }.flatMap { packet in
            // A packet that cannot be parsed could hold a position this editor does not see.
            dropGPS && packet.parseProblem != nil
                ? nil : packet.edited(orientation: applied ? 1 : nil, removingGPS: dropGPS).bytes
        }
        return (exif, xmp)
    }
}
