internal import CHeif

extension ImageFormat {
    /// HEIF: an HEVC-coded still in an ISO BMFF container (HEIC, as phones write it).
    public static let heif = ImageFormat(rawValue: "heif")
}

/// HEIC/HEIF stills, read with libheif (libde265 decodes the HEVC data), which is loaded at run
/// time and never linked: Debian's libheif1 pulls in the GPL x265 encoder. Without libheif
/// installed, reading a HEIC fails with one line naming the package (`libheif1`); `formats` says
/// which state the machine is in.
///
/// What a viewer shows: the primary image (not thumbnails, depth maps or the collection's other
/// images), grids assembled, alpha attached, and the clean aperture, rotation and mirror applied
/// by libheif; an EXIF orientation inside a HEIF is informational and not applied again. Samples
/// above 8 bits are rounded from their native depth, `(v x 255 + max / 2) / max`, or kept at 16
/// bits. The ICC profile, the EXIF block and the XMP packet go to ``ImageInfo/color``,
/// ``ImageInfo/exif`` and ``ImageInfo/xmp``; the rotation and mirror applied to
/// ``ImageInfo/appliedOrientation``, and metadata written from the image says orientation 1.
///
/// With a ``DecoderIsolation`` installed (the `imgtool` command installs one), libheif runs in a
/// child process: a crash inside it fails that input with `corrupt` and a message naming the
/// signal (`libheif crashed decoding it (SIGSEGV)`), and the program goes on. Without one it runs
/// in this process.
public struct HEIFCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/heif``.
    public var format: ImageFormat { .heif }
    /// "High Efficiency Image File Format".
    public var displayName: String { "High Efficiency Image File Format" }
    /// `heic`, `heif`, `hif`.
    public var extensions: [String] { ["heic", "heif", "hif"] }
    /// Reads stills (when libheif is installed).
    public var capabilities: CodecCapabilities { [.read] }

    /// Whether libheif could be loaded.
    public var isAvailable: Bool { RuntimeLibrary.heif.load() == nil }

    /// libheif's version and how it is loaded, or what to install.
    public var runtimeNote: String? {
        if let problem = RuntimeLibrary.heif.load() { return problem }
        return "libheif \(HEIFLibrary.version ?? "?"), loaded at run time"
            + (HEIFLibrary.hasHEVCDecoder ? "" : " (no HEVC decoder: install libde265-0)")
    }

    /// An `ftyp` box whose major brand is one of HEIF's (`heic`, `heix`, `hevc`, `hevx`, `heim`,
    /// `heis`, `mif1`, `msf1`). AVIF files, which may say `mif1` too, are claimed by
    /// ``AVIFCodec``, asked first.
    public func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        return ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand)
    }

    /// Parses the file with libheif (no pixels).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try HEIFSource(data: data, limits: limits)
    }
}

extension RuntimeLibrary {
    /// libheif, loaded once per process when a HEIC is first read (see `CHeif/include/CHeif.h`).
    static let heif = RuntimeLibrary(name: "libheif", format: "HEIF", loader: imgtool_heif_load)
}

/// What libheif says of itself once loaded.
enum HEIFLibrary {
    static var version: String? {
        imgtool_heif_version().map { String(cString: $0) }
    }

    static var hasHEVCDecoder: Bool { imgtool_heif_has_hevc_decoder() == 1 }
}
