extension WebMCodec: MetadataNoting {
    /// What a WebM leaves out or changes (``VideoWriting/notes(for:options:formatName:)``).
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        VideoWriting.notes(for: source, options: options, formatName: "WebM")
    }
}

extension MP4Codec: MetadataNoting {
    /// What an MP4 leaves out or changes (``VideoWriting/notes(for:options:formatName:)``), and
    /// that it is written as AV1 rather than H.264 (``MP4Writer/fallbackNote``).
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        VideoWriting.notes(for: source, options: options, formatName: "MP4")
            + (MP4Writer.fallbackNote.map { [$0] } ?? [])
    }
}

/// What the video writers share.
enum VideoWriting {
    /// What a video leaves out or changes: the play count (a video has none: browsers play it
    /// once, or forever with `<video loop>`), and an odd side (padded to even for 4:2:0).
    static func notes(for source: any FrameSource, options: ImageWriteOptions, formatName: String) -> [String] {
        let info = source.info
        var notes: [String] = []
        let plays = options.plays ?? info.plays
        if info.isAnimated, plays != 1 {
            let asked = plays == 0 ? "forever" : "\(plays) times"
            notes.append(
                "\(formatName) has no play count: browsers play it once (forever with <video loop>), not \(asked)")
        }
        if info.width % 2 == 1 || info.height % 2 == 1 {
            let width = info.width + info.width % 2
            let height = info.height + info.height % 2
            notes.append(
                "\(formatName) video is written with even sides (4:2:0 needs them): \(info.width)x\(info.height) is written \(width)x\(height), the last column or row repeated"
            )
        }
        return notes
    }
}
