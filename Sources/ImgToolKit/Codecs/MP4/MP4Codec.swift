extension ImageFormat {
    /// MP4 and QuickTime video (H.264, HEVC, AV1, VP9 ...), read with FFmpeg.
    public static let mp4 = ImageFormat(rawValue: "mp4")
}

/// MP4, MOV and M4V video, read with libavformat and libavcodec (FFmpeg), which are loaded at
/// run time and never linked: Debian builds them with --enable-gpl. Without them installed,
/// reading a video fails with one line naming the packages (`libavformat59 libavcodec59`);
/// `formats` says which state the machine is in.
///
/// The frames enter the pipeline as an animation's do: each delay from the presentation
/// timestamps (a variable frame rate kept; the last frame's from its duration, else the average),
/// played once, the display matrix's rotation applied (``ImageInfo/appliedOrientation``), the YUV
/// samples (8 or 10 bits, 4:2:0, 4:2:2 or 4:4:4) converted to RGB with the matrix and range the
/// stream declares: BT.601 or BT.709, limited or full (an untagged stream is BT.601, as ffmpeg
/// takes it), the transfer shown as sRGB without a curve, as browsers and ffmpeg show it. HDR (PQ,
/// HLG) and BT.2020 streams are refused with `unsupportedFormat`, never shown washed out. Audio is
/// ignored. The frame list comes from the demuxer before any frame is decoded, so the size and
/// frame count are checked against ``DecodingLimits`` first; frames are then decoded one at a
/// time. A file cut short gives the frames before the cut, with a warning and
/// ``ImageInfo/isComplete`` `false`.
///
/// With a ``DecoderIsolation`` installed (the `imgtool` command installs one), FFmpeg runs in a
/// child process that streams the frames: a crash inside it fails that input with `corrupt` and a
/// message naming the signal (`libavcodec crashed decoding it (SIGSEGV)`).
///
/// Written as H.264 (x264 through the same libavcodec, loaded at run time) in an MP4 of imgtool's
/// own muxer, `moov` first (fast start). Options read when writing:
/// - ``ImageWriteOptions/quality`` 0-100 (default 55) becomes x264's constant rate factor
///   `crf = round((100 - quality) x 51 / 100)`: 55 is crf 23, x264's default.
/// - ``ImageWriteOptions/compressionLevel`` 0-9 picks x264's preset, from ultrafast (0) through
///   fast (4), medium (5, the default), slow (6) to placebo (9).
/// - ``ImageWriteOptions/background``: H.264 has no alpha, so frames are flattened onto it (white
///   by default).
///
/// Frames are BT.709 limited-range 4:2:0 (yuv420p, as browsers play), odd sides padded to even by
/// repeating the last column or row, timestamps in milliseconds from the delays as for
/// ``WebMCodec``; no B-frames.
///
/// Without libavcodec or its libx264 encoder (or with `IMGTOOL_MP4_CODEC=av1` in the
/// environment), the video is AV1 instead, encoded by libaom (BSD-licensed, loaded at run time)
/// in an `av01` sample entry, with the same frames, timing and colour, and `convert` says so in a
/// note: AV1 in MP4 plays in current Chrome, Firefox and Safari 17 or later, less widely than
/// H.264. Without libaom either, writing fails with `unsupportedFormat` naming both packages. There,
/// ``ImageWriteOptions/quality`` (default 60) becomes libaom's constant-quality level
/// `round((100 - quality) x 63 / 100)` (WebM's mapping) and
/// ``ImageWriteOptions/compressionLevel`` (default 4) its cpu-used `10 - level`: real-time mode
/// for 0-3, good-quality mode for 4-9; tuned for screen content.
public struct MP4Codec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// ``ImageFormat/mp4``.
    public var format: ImageFormat { .mp4 }
    /// "MPEG-4 / QuickTime video" (shown as MP4 where a short name is wanted).
    public var displayName: String { "MPEG-4 / QuickTime video" }
    /// `mp4`, `m4v`, `mov`.
    public var extensions: [String] { ["mp4", "m4v", "mov"] }
    /// Reads (when FFmpeg's libraries are installed) and writes (H.264 through them, else AV1).
    public var capabilities: CodecCapabilities { [.read, .write, .writeAnimation] }

    /// Whether libavformat and libavcodec could be loaded.
    public var isAvailable: Bool { VideoLibrary.problem == nil }

    /// FFmpeg's versions and how they are loaded, or what to install; and which coding an MP4 is
    /// written in when it is not H.264 (AV1 by libaom).
    public var runtimeNote: String? {
        MP4Writer.fallbackNote == nil ? VideoLibrary.note : VideoLibrary.note + "; MP4 written as AV1 (libaom)"
    }

    /// The brands of MP4, QuickTime and their relatives, as an `ftyp` box's major brand.
    static let brands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "avc1", "M4V ", "M4VH",
        "M4VP", "qt  ",
        "3gp4", "3gp5", "3gp6", "3g2a", "mmp4", "MSNV", "dash", "XAVC", "f4v ", "av01",
    ]

    /// An `ftyp` box with one of MP4's or QuickTime's brands (`isom`, `mp42`, `qt  `, ...) as its
    /// major brand or a compatible one within the head, or a QuickTime file that starts with a
    /// `moov`, `mdat` or `wide` atom. AVIF and HEIF files are `ftyp` too (and may list `isom` as
    /// compatible): their codecs are asked first, and a major brand of theirs is never claimed here.
    public func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 12 else { return false }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        guard box == "ftyp" else { return ["moov", "mdat", "wide"].contains(box) }
        let major = String(decoding: head[8..<12], as: UTF8.self)
        if Self.imageBrands.contains(major) { return false }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let end = min(max(size, 12), head.count)
        let brands = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        return brands.contains { Self.brands.contains(String(decoding: head[$0..<$0 + 4], as: UTF8.self)) }
    }

    /// The major brands of still images and image sequences (AVIF, HEIF), never video here.
    static let imageBrands: Set<String> = [
        "avif", "avis", "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avci", "avcs",
    ]

    /// Lists the frames with libavformat (nothing decoded).
    public func makeSource(data: [UInt8], limits: DecodingLimits, options: DecodingOptions) throws(ImgToolError)
        -> any FrameSource
    {
        try VideoSource(data: data, limits: limits, format: .mp4, name: "MP4")
    }
}

extension MP4Codec {
    /// Writes an H.264 (else AV1) MP4 of every frame, with the options described above.
    public func write(
        _ source: any FrameSource, into sink: inout ByteSink, options: ImageWriteOptions,
        progress: (@Sendable (Int) -> Void)?
    ) async throws(ImgToolError) {
        let color = try OutputColor(source, options: options, container: .none)
        try MP4Writer(options: options).encode(color.source, into: &sink, progress: progress)
    }
}

extension VideoLibrary {
    /// For `formats`: the versions loaded, or what to install.
    static var note: String {
        if let problem { return problem }
        return "\(versions ?? "FFmpeg"), loaded at run time"
    }
}
