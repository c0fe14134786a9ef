/// What an operation that changes each frame on its own does: the output size for an input
/// size, and the frame itself.
protocol FrameMapping: Sendable {
    /// The size of the frames made from frames of `input` size.
    func outputSize(for input: PixelSize) -> PixelSize
    /// The frame made from `image`.
    /// - Throws: ``ImgToolError`` `cancelled` from a mapping that stops when its task is.
    func map(_ image: PixelBuffer) throws(ImgToolError) -> PixelBuffer
    /// The frame made from `image`, frame `index` of the source (a timed caption draws on some
    /// frames only). Default ``map(_:)``.
    /// - Throws: ``ImgToolError`` `cancelled` from a mapping that stops when its task is.
    func map(_ image: PixelBuffer, index: Int) throws(ImgToolError) -> PixelBuffer
    /// Whether an opaque input stays opaque (no transparent border or corner is added).
    var keepsOpacity: Bool { get }
    /// Whether every frame made is opaque whatever the input (a flattening). Default `false`.
    var makesOpaque: Bool { get }
    /// The orientation the mapping shows a frame in, when it only moves pixels (a right-angle
    /// turn or a mirror: `map` is `turned(_:)`); `nil` otherwise (the default).
    var exactTurn: ImageOrientation? { get }
}

extension FrameMapping {
    /// Not unless the mapping says so.
    var makesOpaque: Bool { false }
    /// Every frame alike: ``map(_:)``.
    func map(_ image: PixelBuffer, index: Int) throws(ImgToolError) -> PixelBuffer { try map(image) }
    /// Not unless the mapping says so.
    var exactTurn: ImageOrientation? { nil }
}

/// A ``FrameSource`` whose every composited frame goes through a ``FrameMapping`` as it is read:
/// one frame in memory at a time, the timing and the colour description kept.
struct MappedFrameSource: FrameSource, FrameSkippingSource, FrameSelectingSource {
    let base: any FrameSource
    let mapping: any FrameMapping
    let info: ImageInfo

    var isOpaque: Bool { mapping.makesOpaque || (mapping.keepsOpacity && base.isOpaque) }

    init(_ base: any FrameSource, mapping: any FrameMapping) {
        self.base = base
        self.mapping = mapping
        let size = mapping.outputSize(for: PixelSize(width: base.info.width, height: base.info.height))
        info = base.info.withCanvas(size)
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        MappedFrameReader(base: try base.makeFrameReader(depth: depth), mapping: mapping, frames: info.frames)
    }

    /// Each frame is mapped on its own: the base starts at frame `start` (a video seeks to it).
    func makeFrameReader(startingAt start: Int, depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        MappedFrameReader(base: try base.frameReader(from: start, depth: depth), mapping: mapping, frames: info.frames)
    }

    /// Only the frames asked for are read from the base and mapped.
    func makeFrameReader(selecting frames: [Int], depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        MappedFrameReader(
            base: try base.frameReader(selecting: frames, depth: depth), mapping: mapping, frames: info.frames)
    }
}

final class MappedFrameReader: FrameReader {
    private let base: any FrameReader
    private let mapping: any FrameMapping
    private let frames: [FrameInfo]

    init(base: any FrameReader, mapping: any FrameMapping, frames: [FrameInfo]) {
        self.base = base
        self.mapping = mapping
        self.frames = frames
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard let frame = try base.nextFrame() else { return nil }
        if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled at frame \(frame.index)") }
        var image = try mapping.map(frame.image, index: frame.index)
        image.metadata = frame.image.metadata
        return Frame(info: frames[frame.index], image: image)
    }
}

extension ImageInfo {
    /// This information for composited frames of `size`: every frame the whole canvas, drawn
    /// with source blending, delays kept; the stored size and orientation become the canvas's.
    func withCanvas(_ size: PixelSize) -> ImageInfo {
        var info = self
        info.framesAreDerived = true
        info.width = size.width
        info.height = size.height
        info.storedSize = size
        info.frames = frames.map { frame in
            FrameInfo(
                index: frame.index, delay: frame.delay,
                region: FrameRegion(x: 0, y: 0, width: size.width, height: size.height), disposal: .none,
                blend: .source)
        }
        return info
    }
}
