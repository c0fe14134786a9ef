/// Returns one frame, then `nil`.
final class OneFrameReader: FrameReader {
    private var frame: Frame?

    init(frame: Frame) {
        self.frame = frame
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        defer { frame = nil }
        return frame
    }
}
