/// `--trim`: removes the uniform border whose colour is the top-left pixel's. An animation gets
/// one box for all its frames, the union of each frame's content box, so it does not jump. An
/// image that is all border is left as it is. Reads every frame once to find the box.
public struct TrimOperation: FrameOperation, Hashable, Codable {
    /// A trim.
    public init() {}

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        let reader = try source.makeFrameReader(depth: nil)
        var union: FrameRegion?
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while finding the trim box") }
            guard let box = frame.image.contentBox(differingFrom: pixelAt(frame.image, 0, 0)) else { continue }
            union = union.map { $0.union(box) } ?? box
        }
        guard let union, union != FrameRegion(x: 0, y: 0, width: source.info.width, height: source.info.height) else {
            return source
        }
        return MappedFrameSource(source, mapping: CropOperation.Mapping(region: union))
    }

    private func pixelAt(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let at = (y * image.width + x) * 4
        switch image.samples {
        case .rgba8(let values): return values[at..<at + 4].map(Int.init)
        case .rgba16(let values): return values[at..<at + 4].map(Int.init)
        }
    }
}

extension FrameRegion {
    /// The smallest region holding both.
    func union(_ other: FrameRegion) -> FrameRegion {
        let left = min(x, other.x)
        let top = min(y, other.y)
        let right = max(x + width, other.x + other.width)
        let bottom = max(y + height, other.y + other.height)
        return FrameRegion(x: left, y: top, width: right - left, height: bottom - top)
    }
}
