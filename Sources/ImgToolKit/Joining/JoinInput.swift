/// One input of a join or a montage (``JoinedFrameSource``, ``MontageFrameSource``): what it
/// declares, and how to open it when its frames are needed.
///
/// An input made from a file (``file(_:name:maxBytes:limits:decoding:)``) is opened once to read
/// its frame table and then let go of; it is opened again when a reader reaches it, so a join of
/// 300 files holds one of them at a time, not 300. An input made from a source already open
/// (``init(source:name:)``: standard input, a download, a source of your own) keeps that source.
public struct JoinInput: Sendable {
    /// The input as the user gave it; errors name it.
    public let name: String
    /// What the input declares: canvas, frame table, plays, colour.
    public let info: ImageInfo
    /// Whether every frame is known to be opaque (``FrameSource/isOpaque``).
    public let isOpaque: Bool
    private let opener: @Sendable () throws(ImgToolError) -> any FrameSource

    /// An input whose source is already open.
    /// - Parameters:
    ///   - source: the frames.
    ///   - name: used in errors. Default: the ``ImageSource/name`` of an ``ImageSource``, else "input".
    public init(source: any FrameSource, name: String? = nil) {
        self.name = name ?? (source as? ImageSource)?.name ?? "input"
        info = source.info
        isOpaque = source.isOpaque
        opener = { () throws(ImgToolError) in source }
    }

    /// An input opened from the file at `path` now, to read its frame table, and again each time
    /// a reader reaches it.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: the input as typed (a `file:` URL, say); errors name it. Default `path`.
    ///   - maxBytes: the largest file accepted. Default ``ImageInput/defaultMaxBytes``.
    ///   - limits: sizes refused before allocating.
    ///   - decoding: orientation and `--fail-on`.
    /// - Throws: ``ImgToolError`` naming the input: `notFound`, `unreadable`, `tooLarge`, or a decoding error.
    public static func file(
        _ path: String, name: String? = nil, maxBytes: Int = ImageInput.defaultMaxBytes,
        limits: DecodingLimits = .default, decoding: DecodingOptions = .default
    ) throws(ImgToolError) -> JoinInput {
        let name = name ?? path
        let open = { @Sendable () throws(ImgToolError) -> ImageSource in
            try ImageSource(contentsOf: path, name: name, maxBytes: maxBytes, limits: limits, options: decoding)
        }
        let first = try open()
        return JoinInput(name: name, info: first.info, isOpaque: first.isOpaque) { () throws(ImgToolError) in
            let again = try open()
            // The file changed between the two openings: its frames would not fit the table read.
            guard again.info.frameCount == first.info.frameCount, again.info.width == first.info.width,
                again.info.height == first.info.height
            else {
                throw ImgToolError(
                    .corrupt,
                    "the file changed while it was read (\(first.info.width)x\(first.info.height), \(first.info.frameCount) frames, then \(again.info.width)x\(again.info.height), \(again.info.frameCount))",
                    input: name)
            }
            return again
        }
    }

    private init(
        name: String, info: ImageInfo, isOpaque: Bool,
        opener: @escaping @Sendable () throws(ImgToolError) -> any FrameSource
    ) {
        self.name = name
        self.info = info
        self.isOpaque = isOpaque
        self.opener = opener
    }

    /// The input's frames: the source it was made with, or the file opened again.
    /// - Throws: ``ImgToolError`` naming the input.
    public func open() throws(ImgToolError) -> any FrameSource {
        try opener()
    }

    /// This input with its colours converted to `profile` as its frames are read (`nil`: sRGB),
    /// or itself when it is already described by that profile.
    func convertingColors(to profile: ColorProfile?) -> JoinInput {
        guard info.color.effectiveProfile.conversionKey != profile.conversionKey else { return self }
        var converted = info
        converted.color = ColorMetadata(profile: profile)
        let opener = self.opener
        return JoinInput(name: name, info: converted, isOpaque: isOpaque) { () throws(ImgToolError) in
            try opener().convertingColors(to: profile)
        }
    }
}
