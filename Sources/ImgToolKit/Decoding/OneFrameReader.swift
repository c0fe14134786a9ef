/// The reader of a one-frame image: makes its frame when it is first asked for (decoding a
/// still PNG or JPEG then, not when the reader is made), returns it once, then `nil`.
final class OneFrameReader: FrameReader {
    private var make: (() throws(ImgToolError) -> Frame)?

    /// A reader whose frame `make` produces on the first call.
    init(_ make: @escaping () throws(ImgToolError) -> Frame) {
        self.make = make
    }

    /// A reader of a frame already made.
    convenience init(frame: Frame) {
        self.init { () throws(ImgToolError) in frame }
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard let make else { return nil }
        self.make = nil
        return try make()
    }
}
