/// What an image file declares: its format, canvas, colour, frames and loop count.
///
/// Produced once when an ``ImageSource`` is prepared; reading it decodes no pixels.
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// Canvas width in pixels as decoded frames have it (PNG: IHDR; GIF: the logical screen;
    /// JPEG: the displayed width, after the EXIF orientation and any decode-time scaling).
    public var width: Int
    /// Canvas height in pixels, as ``width``.
    public var height: Int
    /// The size stored in the file, before the orientation is applied or the image scaled on
    /// load. Equal to ``width`` x ``height`` for formats without either.
    public var storedSize: PixelSize
    /// The EXIF orientation tag (0x0112) exactly as stored, whatever its value (0 and values past
    /// 8 mean nothing and are not applied); `nil` when the file has no EXIF, no such tag, or EXIF
    /// that cannot be read.
    public var exifOrientation: Int?
    /// The orientation applied to the decoded frames: ``ImageOrientation/up`` when none was (no
    /// tag, an invalid one, or ``DecodingOptions/autoOrient`` off).
    public var appliedOrientation: ImageOrientation = .up
    /// Whether the format turns its image itself, so that an EXIF orientation inside it only
    /// describes the coded image and is never applied: HEIF and AVIF (`irot`, `imir`), JPEG XL (its
    /// codestream's orientation). The decoded frames are then as the format shows them, and the
    /// EXIF and XMP written from them say orientation 1. `false` for JPEG, PNG, WebP and GIF.
    public var exifOrientationIsInformational = false
    /// Whether the file carries EXIF metadata (JPEG: an APP1 `Exif` segment).
    public var hasEXIF = false
    /// The EXIF block (a TIFF structure, from its byte-order mark; no `Exif\0\0` prefix), when
    /// the file carries one and it fits ``DecodingLimits/maxChunkBytes``.
    public var exif: [UInt8]?
    /// Whether the frames were made by operations (cropped, turned, retimed ...) rather than read
    /// as the file stores them. A GIF writer then merges repeated frames and carries its
    /// centisecond rounding from frame to frame, as it does for any other source, instead of
    /// keeping a GIF's frames one for one.
    public var framesAreDerived = false
    /// Whether each frame's delay is the time it is meant to show (set by `--speed` and merges,
    /// which read stored delays as players show them first), rather than a value read from a
    /// file, which players show as 100 ms when it is 10 ms or less (``DelayPolicy/browser``).
    /// Every animated writer folds play times under 20 ms (``WrittenTiming``); a file's delays
    /// are written as stored (but rounded and folded into a GIF from another format). Set it on
    /// a source of your own whose delays are exact times. Default `false`.
    public var delaysArePlayTimes = false
    /// The XMP packet (UTF-8 XML), when the file carries one (JPEG APP1, PNG `iTXt`
    /// `XML:com.adobe.xmp`, WebP `XMP `, GIF `XMP DataXMP`).
    public var xmp: [UInt8]?
    /// A JPEG's extended XMP packet (UTF-8 XML), reassembled from its APP1
    /// `http://ns.adobe.com/xmp/extension/` segments, when the main packet names it
    /// (`xmpNote:HasExtendedXMP`) and it can be parsed. Only a JPEG written from a JPEG without
    /// decoding it (recompressed into JPEG XL) carries it; other writers leave it out.
    public var xmpExtension: [UInt8]?
    /// Why a JPEG's extended XMP segments cannot be used (not named by the main packet, parts
    /// missing or given twice, not parsable): they are left out. `nil` when there are none or
    /// they can be.
    public var xmpExtensionProblem: String?
    /// Bits per sample as stored (PNG: 1, 2, 4, 8 or 16; GIF: 8).
    public var bitDepth: Int
    /// Colour type as stored.
    public var colorType: ColorType
    /// Whether the pixels are stored interlaced (Adam7 or GIF interlacing; for an animation, any frame).
    public var isInterlaced: Bool
    /// Which colour-management chunks are present (none is applied).
    public var color: ColorMetadata
    /// The animation's frames; a still image has one.
    public var frames: [FrameInfo]
    /// The raw loop value stored in the file: GIF NETSCAPE2.0 loop count, APNG `num_plays`;
    /// 0 means forever; `nil` when the file has none.
    public var loopValue: Int?
    /// How many times the animation plays: 0 means forever. A GIF without a loop extension
    /// plays once; a GIF loop value N means N repeats, so N + 1 plays; an APNG `num_plays` N
    /// means N plays.
    public var plays: Int
    /// `false` when the input ended early and only the frames before the cut are listed
    /// (ImageIO's `kCGImageAnimationIncompleteInput`, -22143, for the rest); for a JPEG, its
    /// frame is listed and decodes with the rows not received grey.
    public var isComplete: Bool
    /// Problems that did not stop decoding (a broken APNG animation shown as its default image,
    /// a truncated GIF), one sentence each. The library never prints them.
    public var warnings: [String]
    /// APNG: `true` when the file's default image (IDAT) is not part of the animation (no fcTL
    /// precedes it). It is still what a viewer without APNG support shows: decode the file's
    /// bytes with ``PNGDecoder`` to get it. `false` for every other image.
    public var defaultImageOutsideAnimation = false
    /// How the pixels are compressed, for formats that have both kinds (WebP: `VP8 ` is lossy,
    /// `VP8L` lossless); `nil` when the codec does not say (PNG, APNG and GIF are always
    /// lossless). Writers read it to choose lossless output for a lossless input.
    public var compression: ImageCompression?

    /// Creates image information.
    public init(
        format: ImageFormat, width: Int, height: Int, bitDepth: Int, colorType: ColorType,
        isInterlaced: Bool = false, color: ColorMetadata = ColorMetadata(), frames: [FrameInfo],
        loopValue: Int? = nil, plays: Int = 1, isComplete: Bool = true, warnings: [String] = [],
        compression: ImageCompression? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.storedSize = PixelSize(width: width, height: height)
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.isInterlaced = isInterlaced
        self.color = color
        self.frames = frames
        self.loopValue = loopValue
        self.plays = plays
        self.isComplete = isComplete
        self.warnings = warnings
        self.compression = compression
    }

    /// The number of frames.
    public var frameCount: Int { frames.count }

    /// Whether the image has more than one frame.
    public var isAnimated: Bool { frames.count > 1 }

    /// Whether the pixels are stored exactly: a lossless WebP, and PNG, APNG and GIF. Writers
    /// that can do both write such a source losslessly by default.
    var isStoredExactly: Bool {
        switch compression {
        case .lossless: true
        case .lossy, .mixed, .jpegRecompression: false
        case nil: [.png, .apng, .gif].contains(format)
        }
    }
}

/// How an image's pixels are compressed: whether decoding gives back exactly what was encoded.
public enum ImageCompression: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every frame is stored exactly (WebP `VP8L`).
    case lossless
    /// Every frame is stored approximately (WebP `VP8 `, with its `ALPH` alpha plane lossless or not).
    case lossy
    /// An animation with frames of both kinds.
    case mixed
    /// A JPEG recompressed without loss (JPEG XL with JPEG reconstruction data): the pixels are
    /// the JPEG's, and the JPEG file itself can be rebuilt byte for byte.
    case jpegRecompression = "jpeg-recompression"
}
