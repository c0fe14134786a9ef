/// A ``FrameSource`` whose frames are converted from the colour space their source describes
/// (``ColorMetadata/effectiveProfile``) to another, one frame at a time, as they are read.
///
/// Made by ``FrameSource/convertingColors(to:)``; its ``info`` describes the converted pixels
/// (the destination profile, or nothing for sRGB), so whatever reads it next, a writer or a
/// merge, sees pixels and description agree.
public struct ColorConvertedSource: FrameSource {
    /// The source whose frames are converted.
    public let base: any FrameSource
    /// The profile the frames are converted to; `nil` is sRGB.
    public let destination: ColorProfile?
    private let source: ColorProfile?

    /// The base's information, its colour description replaced by the destination's.
    public var info: ImageInfo {
        var info = base.info
        info.color = ColorMetadata.converted(to: destination)
        return info
    }

    /// As the base says: conversion keeps alpha.
    public var isOpaque: Bool { base.isOpaque }

    init(base: any FrameSource, from source: ColorProfile?, to destination: ColorProfile?) {
        self.base = base
        self.source = source
        self.destination = destination
    }

    /// A reader that converts each of the base's frames in place.
    /// - Throws: the base's errors; its frames throw `corrupt` when Little CMS refuses the pair.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        ConvertingFrameReader(base: try base.makeFrameReader(depth: depth), from: source, to: destination)
    }
}

/// Converts each frame its base reader gives, with the transform for the frame's depth (made on
/// first use, then cached).
final class ConvertingFrameReader: FrameReader {
    private let base: any FrameReader
    private let source: ColorProfile?
    private let destination: ColorProfile?
    private var transforms: [SampleDepth: ColorTransform] = [:]

    init(base: any FrameReader, from source: ColorProfile?, to destination: ColorProfile?) {
        self.base = base
        self.source = source
        self.destination = destination
    }

    func nextFrame() throws(ImgToolError) -> Frame? {
        guard var frame = try base.nextFrame() else { return nil }
        let depth = frame.image.depth
        if transforms[depth] == nil {
            transforms[depth] = try ColorTransform.make(from: source, to: destination, depth: depth)
        }
        transforms[depth]?.apply(to: &frame.image)
        return frame
    }
}

extension FrameSource {
    /// This source with its frames converted to `profile` (`nil`: sRGB) from the colour space
    /// its information describes. Returns `self` when there is nothing to do (both sRGB, or the
    /// same profile).
    ///
    /// A profile Little CMS refuses is treated as sRGB (the readers warn about it), so the
    /// conversion never fails on one.
    public func convertingColors(to profile: ColorProfile?) -> any FrameSource {
        let from = info.color.effectiveProfile
        guard from.conversionKey != profile.conversionKey else { return self }
        if let converted = self as? ColorConvertedSource {
            return converted.base.convertingColors(to: profile)
        }
        return ColorConvertedSource(base: self, from: from, to: profile)
    }

    /// This source converted to sRGB (``convertingColors(to:)`` with `nil`).
    public func convertedToSRGB() -> any FrameSource { convertingColors(to: nil) }
}

extension PixelBuffer {
    /// A copy of this image converted from `source` to `destination` (`nil`: sRGB).
    /// - Throws: ``ImgToolError`` `corrupt` when Little CMS refuses the pair.
    public func convertingColors(from source: ColorProfile?, to destination: ColorProfile?) throws(ImgToolError)
        -> PixelBuffer
    {
        guard source.conversionKey != destination.conversionKey else { return self }
        var copy = self
        try ColorTransform.make(from: source, to: destination, depth: depth).apply(to: &copy)
        return copy
    }
}

extension Optional where Wrapped == ColorProfile {
    /// What a conversion compares: the profile's bytes, or `nil` for sRGB and for a profile that
    /// is sRGB in all but its bytes (converting between those changes nothing).
    var conversionKey: [UInt8]? {
        flatMap { $0.isSRGB ? nil : $0.data }
    }
}
