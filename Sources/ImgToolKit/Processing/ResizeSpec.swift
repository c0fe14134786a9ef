import Foundation

/// What a user asked a resize to produce, as typed (`--width 50%`, `--size 640x480 --fit cover`,
/// `--size 256`), resolved against a source size by ``resolve(against:limits:)``.
///
/// Resolution rules (every length rounded half away from zero, every side at least 1 pixel):
/// - A percentage is of the matching source side: `--width 50%` of a 101-pixel-wide image is
///   50.5, so 51 pixels.
/// - Only a width (or only a height): the other side keeps the aspect ratio,
///   `height = round(sourceHeight × width / sourceWidth)`. ``Fit/inside`` never enlarges; any
///   other fit lets the image grow.
/// - A width and a height (`--size WxH`, or both options): a box, and ``fit`` decides:
///   ``Fit/contain`` the largest size with the source's aspect ratio inside the box (the side
///   that limits is exactly the box's), ``Fit/inside`` the same but never larger than the
///   source, ``Fit/cover`` the smallest such size that covers the box, then cropped to the box
///   about the centre (the crop's left edge is `(scaledWidth - boxWidth) / 2`, rounded down),
///   ``Fit/fill`` the box itself, aspect ratio ignored.
/// - A single number (`--size 256`) is a thumbnail: a square box, so the longest side becomes
///   256, and the default fit is ``Fit/inside`` (a thumbnail never enlarges, as with
///   `vipsthumbnail --size 256>`); every other form defaults to ``Fit/contain``.
public struct ResizeSpec: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One side's length: pixels or a percentage of the source's side.
    public enum Length: Sendable, Hashable, Codable, CustomStringConvertible {
        /// An exact number of pixels, at least 1.
        case pixels(Int)
        /// A percentage of the source side, more than 0 (`50` is half).
        case percent(Double)

        /// Parses `256` or `50%` (`12.5%` too).
        /// - Parameters:
        ///   - text: what the user typed.
        ///   - option: names the option in the message, e.g. `--width`.
        /// - Throws: ``ImgToolError`` `invalidArgument` for anything else, zero or negative.
        public init(parsing text: String, option: String = "size") throws(ImgToolError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasSuffix("%") {
                if let value = Double(trimmed.dropLast()), value.isFinite, value > 0 {
                    self = .percent(value)
                    return
                }
            } else if let value = Int(trimmed), value > 0 {
                self = .pixels(value)
                return
            }
            throw ImgToolError(
                .invalidArgument,
                "\(option) must be a whole number of pixels above 0 or a percentage such as 50%, not \"\(text)\"")
        }

        /// `256` or `50%`.
        public var description: String {
            switch self {
            case .pixels(let value): "\(value)"
            case .percent(let value): value == value.rounded() ? "\(Int(value))%" : "\(value)%"
            }
        }

        /// The length this asks for on a side of `source` pixels, before rounding.
        func length(of source: Int) -> Double {
            switch self {
            case .pixels(let value): Double(value)
            case .percent(let value): Double(source) * value / 100
            }
        }
    }

    /// How an image is fitted to a width and height that do not have its aspect ratio.
    public enum Fit: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
        /// The largest size with the source's aspect ratio inside the box (may enlarge).
        case contain
        /// Scaled to cover the box with the source's aspect ratio, then cropped about the centre.
        case cover
        /// Exactly the box, aspect ratio ignored.
        case fill
        /// As ``contain``, but never larger than the source.
        case inside

        /// The name `--fit` takes.
        public var description: String { rawValue }

        /// The fit named `name` (case-insensitive).
        /// - Parameter name: `contain`, `cover`, `fill` or `inside`.
        /// - Throws: ``ImgToolError`` `invalidArgument` listing the names.
        public init(named name: String) throws(ImgToolError) {
            guard let fit = Fit(rawValue: name.lowercased()) else {
                let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
                throw ImgToolError(.invalidArgument, "unknown fit \"\(name)\"; use one of \(names)")
            }
            self = fit
        }
    }

    /// The width asked for, or `nil` to follow the height.
    public var width: Length?
    /// The height asked for, or `nil` to follow the width.
    public var height: Length?
    /// How a width and height are fitted; see the type's rules.
    public var fit: Fit
    /// Whether this is a thumbnail (`--size N`, ``thumbnail(_:)``): resizers take the fast path
    /// for large reductions (``Resampler``'s `shrinkingFirst`). Default `false`.
    public var isThumbnail = false

    /// Creates a spec.
    /// - Parameters:
    ///   - width: the width, or `nil` to keep the aspect ratio from the height.
    ///   - height: the height, or `nil` to keep the aspect ratio from the width.
    ///   - fit: default ``Fit/contain``.
    /// - Throws: ``ImgToolError`` `invalidArgument` when neither side is given.
    public init(width: Length? = nil, height: Length? = nil, fit: Fit = .contain) throws(ImgToolError) {
        guard width != nil || height != nil else {
            throw ImgToolError(.invalidArgument, "a resize needs a width, a height or a size")
        }
        self.width = width
        self.height = height
        self.fit = fit
    }

    /// A thumbnail whose longest side is `longestSide` pixels, never enlarged (``Fit/inside``).
    /// - Parameter longestSide: pixels, at least 1.
    /// - Throws: ``ImgToolError`` `invalidArgument` below 1.
    public static func thumbnail(_ longestSide: Int) throws(ImgToolError) -> ResizeSpec {
        guard longestSide > 0 else {
            throw ImgToolError(.invalidArgument, "a thumbnail size must be above 0, not \(longestSide)")
        }
        var spec = try ResizeSpec(width: .pixels(longestSide), height: .pixels(longestSide), fit: .inside)
        spec.isThumbnail = true
        return spec
    }

    /// Parses what the user typed: `--width`, `--height`, `--size` and `--fit`, each optional.
    ///
    /// `size` is `WxH` (`640x480`, `50%x25%`, `x480` or `640x` for one side) or a single length
    /// (`256`: a thumbnail of longest side 256, default fit ``Fit/inside``; `50%`: both sides).
    /// - Parameters:
    ///   - width: `--width`: pixels or a percentage.
    ///   - height: `--height`: pixels or a percentage.
    ///   - size: `--size`: `WxH` or a single length.
    ///   - fit: `--fit`: `contain`, `cover`, `fill` or `inside`; default as the type describes.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option for anything malformed, when
    ///   `size` comes with `width` or `height`, or when nothing is given.
    public init(width: String? = nil, height: String? = nil, size: String? = nil, fit: String? = nil)
        throws(ImgToolError)
    {
        let fitChoice = try fit.map { (name) throws(ImgToolError) in try Fit(named: name) }
        if let size {
            guard width == nil, height == nil else {
                throw ImgToolError(.invalidArgument, "give --size or --width/--height, not both")
            }
            let lowered = size.lowercased()
            if let cross = lowered.firstIndex(of: "x") {
                let left = String(lowered[..<cross])
                let right = String(lowered[lowered.index(after: cross)...])
                let w = left.isEmpty ? nil : try Length(parsing: left, option: "--size width")
                let h = right.isEmpty ? nil : try Length(parsing: right, option: "--size height")
                guard w != nil || h != nil else {
                    throw ImgToolError(.invalidArgument, "--size must be WxH, W, or a percentage, not \"\(size)\"")
                }
                try self.init(width: w, height: h, fit: fitChoice ?? .contain)
                return
            }
            let length = try Length(parsing: lowered, option: "--size")
            if case .pixels = length {
                try self.init(width: length, height: length, fit: fitChoice ?? .inside)
                isThumbnail = true
            } else {
                try self.init(width: length, height: length, fit: fitChoice ?? .contain)
            }
            return
        }
        let w = try width.map { (text) throws(ImgToolError) in try Length(parsing: text, option: "--width") }
        let h = try height.map { (text) throws(ImgToolError) in try Length(parsing: text, option: "--height") }
        try self.init(width: w, height: h, fit: fitChoice ?? .contain)
    }

    /// `WxH fit`, with `?` for a side that follows the other.
    public var description: String {
        "\(width?.description ?? "?")x\(height?.description ?? "?") \(fit)"
    }

    /// The sizes this spec gives an image of `source`'s size, following the type's rules.
    /// - Parameters:
    ///   - source: the source image's size.
    ///   - limits: the output is checked against `maxPixels`. Default ``DecodingLimits/default``.
    /// - Throws: ``ImgToolError`` `invalidArgument` for an empty source; `tooLarge` when the
    ///   output passes the limit or a side passes 2^31 pixels.
    public func resolve(against source: PixelSize, limits: DecodingLimits = .default) throws(ImgToolError)
        -> ResizeGeometry
    {
        guard source.width > 0, source.height > 0 else {
            throw ImgToolError(.invalidArgument, "cannot resize an empty \(source) image")
        }
        let sw = Double(source.width)
        let sh = Double(source.height)
        let geometry: ResizeGeometry
        switch (width, height) {
        case (let w?, nil):
            let scale = limited(w.length(of: source.width) / sw)
            let out = PixelSize(
                width: try Self.side(fit == .inside && scale == 1 ? sw : w.length(of: source.width)),
                height: try Self.side(sh * scale))
            geometry = ResizeGeometry(whole: out)
        case (nil, let h?):
            let scale = limited(h.length(of: source.height) / sh)
            let out = PixelSize(
                width: try Self.side(sw * scale),
                height: try Self.side(fit == .inside && scale == 1 ? sh : h.length(of: source.height)))
            geometry = ResizeGeometry(whole: out)
        case (let w?, let h?):
            geometry = try box(width: w.length(of: source.width), height: h.length(of: source.height), source: source)
        case (nil, nil):
            throw ImgToolError(.invalidArgument, "a resize needs a width, a height or a size")
        }
        try limits.checkPixels(width: geometry.crop.width, height: geometry.crop.height, what: "the resized image")
        return geometry
    }

    /// `scale`, but at most 1 for ``Fit/inside``.
    private func limited(_ scale: Double) -> Double {
        fit == .inside ? min(scale, 1) : scale
    }

    /// The geometry for a `width` x `height` box.
    private func box(width: Double, height: Double, source: PixelSize) throws(ImgToolError) -> ResizeGeometry {
        let sw = Double(source.width)
        let sh = Double(source.height)
        let boxWidth = try Self.side(width)
        let boxHeight = try Self.side(height)
        let widthScale = width / sw
        let heightScale = height / sh
        switch fit {
        case .fill:
            return ResizeGeometry(whole: PixelSize(width: boxWidth, height: boxHeight))
        case .contain, .inside:
            if fit == .inside, widthScale >= 1, heightScale >= 1 { return ResizeGeometry(whole: source) }
            // The side with the smaller scale limits, and is exactly the box's.
            if widthScale <= heightScale {
                return ResizeGeometry(
                    whole: PixelSize(width: boxWidth, height: min(try Self.side(sh * widthScale), boxHeight)))
            }
            return ResizeGeometry(
                whole: PixelSize(width: min(try Self.side(sw * heightScale), boxWidth), height: boxHeight))
        case .cover:
            let scaled =
                widthScale >= heightScale
                ? PixelSize(width: boxWidth, height: max(try Self.side(sh * widthScale), boxHeight))
                : PixelSize(width: max(try Self.side(sw * heightScale), boxWidth), height: boxHeight)
            let crop = FrameRegion(
                x: (scaled.width - boxWidth) / 2, y: (scaled.height - boxHeight) / 2, width: boxWidth,
                height: boxHeight)
            return ResizeGeometry(scaledSize: scaled, crop: crop)
        }
    }

    /// `length` rounded half away from zero, at least 1.
    /// - Throws: ``ImgToolError`` `tooLarge` past 2^31 pixels.
    static func side(_ length: Double) throws(ImgToolError) -> Int {
        let rounded = length.rounded(.toNearestOrAwayFromZero)
        guard rounded < Double(1 << 31) else {
            throw ImgToolError(.tooLarge, "a resized side of \(rounded) pixels is over 2^31")
        }
        return max(Int(rounded), 1)
    }
}

/// Where a resize puts the pixels: the size the whole image is scaled to, and the part of it
/// kept (all of it, except for ``ResizeSpec/Fit/cover``).
public struct ResizeGeometry: Sendable, Hashable, CustomStringConvertible {
    /// The size of the whole scaled image.
    public var scaledSize: PixelSize
    /// The part of the scaled image that is the output.
    public var crop: FrameRegion

    /// Creates a geometry.
    /// - Parameters:
    ///   - scaledSize: the size of the whole scaled image.
    ///   - crop: the part kept, inside `scaledSize`.
    public init(scaledSize: PixelSize, crop: FrameRegion) {
        self.scaledSize = scaledSize
        self.crop = crop
    }

    /// The whole image scaled to `size`, nothing cropped.
    /// - Parameter size: the output size.
    public init(whole size: PixelSize) {
        self.init(scaledSize: size, crop: FrameRegion(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// The output's size: the crop's.
    public var outputSize: PixelSize { PixelSize(width: crop.width, height: crop.height) }

    /// `WxH`, or `WxH of SxT at X,Y` when cropped.
    public var description: String {
        if crop.width == scaledSize.width && crop.height == scaledSize.height { return outputSize.description }
        return "\(outputSize) of \(scaledSize) at \(crop.x),\(crop.y)"
    }
}
