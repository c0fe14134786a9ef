/// The body of the fuzz targets in `Fuzz/`: opens `bytes` and decodes every frame under small
/// limits, discarding errors (they are the expected outcome for most inputs). Public so that the
/// fuzz package can call it; not meant for other use.
public enum FuzzDecode {
    /// Limits small enough that a fuzzer never waits on a legitimately huge image.
    public static let limits = DecodingLimits(maxPixels: 1 << 22, maxFrames: 512, maxTotalPixels: 1 << 26)

    /// Opens and fully decodes `bytes`; returns how many frames decoded.
    @discardableResult
    public static func run(_ bytes: [UInt8], name: String) -> Int {
        do {
            let source = try ImageSource(data: bytes, name: name, limits: limits)
            let reader = try source.makeFrameReader(depth: nil)
            var count = 0
            while let frame = try reader.nextFrame() {
                precondition(frame.image.width == source.info.width && frame.image.height == source.info.height)
                count += 1
            }
            return count
        } catch {
            precondition(error.input == name, "an error must name its input: \(error)")
            return -1
        }
    }
}
