import Foundation

/// `--rotate DEG`: clockwise. Right angles (90, 180, 270 and their multiples) move pixels
/// exactly; any other angle expands the canvas to the turned image's bounding box, samples
/// bilinearly on premultiplied alpha, and fills the corners with the background (transparent
/// when none).
public struct RotateOperation: FrameOperation, Hashable, Codable {
    /// Degrees, clockwise.
    public var degrees: Double
    /// The colour of the corners an angle that is not a right angle uncovers; `nil` transparent.
    public var background: RGBAColor?

    /// A turn by `degrees` clockwise.
    public init(degrees: Double, background: RGBAColor? = nil) {
        self.degrees = degrees
        self.background = background
    }

    /// Parses a number of degrees (`90`, `-45`, `12.5`).
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `--rotate` and the value.
    public init(parsing text: String, background: RGBAColor? = nil) throws(ImgToolError) {
        guard let degrees = Double(text), degrees.isFinite, abs(degrees) <= 1e6 else {
            throw ImgToolError(.invalidArgument, "--rotate \(text): expected a number of degrees, clockwise")
        }
        self.init(degrees: degrees, background: background)
    }

    /// The number of quarter turns when the angle is a right angle, else `nil`.
    var quarterTurns: Int? {
        let turns = degrees / 90
        return turns == turns.rounded() ? Int(turns) : nil
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        if quarterTurns.map({ $0 % 4 == 0 }) == true { return source }
        let mapping = Mapping(degrees: degrees, quarterTurns: quarterTurns, background: background)
        let size = mapping.outputSize(for: PixelSize(width: source.info.width, height: source.info.height))
        try context.limits.checkPixels(width: size.width, height: size.height, what: "the rotated image")
        try context.limits.checkAnimation(frames: source.info.frameCount, width: size.width, height: size.height)
        return MappedFrameSource(source, mapping: mapping)
    }

    struct Mapping: FrameMapping {
        let degrees: Double
        let quarterTurns: Int?
        let background: RGBAColor?

        var keepsOpacity: Bool { quarterTurns != nil || background?.alpha == 255 }

        var exactTurn: ImageOrientation? {
            guard let quarterTurns else { return nil }
            return [ImageOrientation.up, .right, .down, .left][(quarterTurns % 4 + 4) % 4]
        }

        func outputSize(for input: PixelSize) -> PixelSize {
            if let quarterTurns {
                return quarterTurns % 2 == 0 ? input : PixelSize(width: input.height, height: input.width)
            }
            return PixelBuffer.rotatedSize(of: input, degrees: degrees)
        }

        func map(_ image: PixelBuffer) -> PixelBuffer {
            if let quarterTurns { return image.rotated(quarterTurns: quarterTurns) }
            return image.rotated(degrees: degrees, background: background)
        }
    }
}

/// `--flip` (top-bottom mirror, as ImageMagick's `-flip`) or `--flop` (left-right, as `-flop`).
/// Exact.
public struct MirrorOperation: FrameOperation, Hashable, Codable {
    /// Which mirror.
    public enum Axis: String, Sendable, Hashable, Codable {
        /// Top to bottom: `--flip`.
        case flip
        /// Left to right: `--flop`.
        case flop
    }

    /// The mirror.
    public var axis: Axis

    /// A mirror along `axis`.
    public init(_ axis: Axis) {
        self.axis = axis
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        MappedFrameSource(source, mapping: Mapping(axis: axis))
    }

    struct Mapping: FrameMapping {
        let axis: Axis
        var keepsOpacity: Bool { true }
        var exactTurn: ImageOrientation? { axis == .flip ? .downMirrored : .upMirrored }
        func outputSize(for input: PixelSize) -> PixelSize { input }
        func map(_ image: PixelBuffer) -> PixelBuffer { axis == .flip ? image.flipped() : image.flopped() }
    }
}

extension PixelBuffer {
    /// The size ``rotated(degrees:background:)`` gives an image of `size`: the turned image's
    /// bounding box, each side rounded up (a thousandth of a millionth of a pixel forgiven).
    static func rotatedSize(of size: PixelSize, degrees: Double) -> PixelSize {
        var turn = degrees.truncatingRemainder(dividingBy: 360)
        if turn < 0 { turn += 360 }
        let angle = turn * .pi / 180
        let (c, s) = (cos(angle), sin(angle))
        let (w, h) = (Double(size.width), Double(size.height))
        return PixelSize(
            width: max(0, Int((abs(w * c) + abs(h * s) - 1e-9).rounded(.up))),
            height: max(0, Int((abs(w * s) + abs(h * c) - 1e-9).rounded(.up))))
    }
}
