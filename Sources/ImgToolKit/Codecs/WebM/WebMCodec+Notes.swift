extension WebMCodec: MetadataNoting {
    /// What a WebM leaves out or changes: the play count (a video has none: browsers play it once,
    /// or forever with `<video loop>`), and an odd side (padded to even for 4:2:0).
    func metadataNotes(for source: any FrameSource, options: ImageWriteOptions) -> [String] {
        let info = source.info
        var notes: [String] = []
        let plays = options.plays ?? info.plays
        if info.isAnimated, plays != 1 {
            let asked = plays == 0 ? "forever" : "\(plays) times"
            notes.append(
                "WebM has no play count: browsers play it once (forever with <video loop>), not \(asked)")
        }
        if info.width % 2 == 1 || info.height % 2 == 1 {
            let width = info.width + info.width % 2
            let height = info.height + info.height % 2
            notes.append(
                "WebM's 4:2:0 needs even sides: \(info.width)x\(info.height) is written \(width)x\(height), the last column or row repeated"
            )
        }
        return notes
    }
}
