internal import CColor

/// A Little CMS transform between two colour descriptions, for one pixel layout: made once per
/// profile pair and layout (``ColorTransform/make(from:to:layout:)`` caches them), then run on
/// any number of frames and threads.
final class ColorTransform: @unchecked Sendable {
    /// The pixel layouts a transform takes; every one is four samples a pixel.
    enum Layout: Hashable, Sendable {
        /// RGBA, 8 or 16 bits, the alpha sample kept.
        case rgba(SampleDepth)
        /// Grey in R of RGBA (R = G = B) in, RGBA out, the alpha sample kept.
        case grayInRGBA(SampleDepth)
        /// Adobe's inverted 8-bit CMYK in, 8-bit RGBA out (alpha set to 255).
        case cmykInverted
        /// 8-bit CMYK in, 8-bit RGBA out (alpha set to 255).
        case cmyk

        var cValue: imgtool_pixels {
            switch self {
            case .rgba(.eight): IMGTOOL_PIXELS_RGBA8
            case .rgba(.sixteen): IMGTOOL_PIXELS_RGBA16
            case .grayInRGBA(.eight): IMGTOOL_PIXELS_GRAY_IN_RGBA8
            case .grayInRGBA(.sixteen): IMGTOOL_PIXELS_GRAY_IN_RGBA16
            case .cmykInverted: IMGTOOL_PIXELS_CMYK8_INVERTED
            case .cmyk: IMGTOOL_PIXELS_CMYK8
            }
        }
    }

    /// The handle; thread-safe (made without Little CMS's one-pixel cache).
    let handle: OpaquePointer

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        imgtool_color_transform_free(handle)
    }

    private struct Key: Hashable {
        var source: [UInt8]?
        var destination: [UInt8]?
        var layout: Layout
    }

    /// Made transforms, by profile pair and layout, the most recently made last. A process that
    /// meets many profiles (a batch, a server, a fuzzer) keeps the last ``cacheLimit`` of them,
    /// so memory stays bounded (a transform holds about 0.5 MiB of tables).
    private static let cache = Locked<(transforms: [Key: ColorTransform], order: [Key])>(([:], []))

    /// Most transforms kept.
    static let cacheLimit = 16

    /// The transform from `source` to `destination` (`nil`: sRGB) for `layout`, made once and
    /// cached.
    /// - Throws: ``ImgToolError`` `corrupt` when Little CMS refuses a profile or the pair.
    static func make(from source: ColorProfile?, to destination: ColorProfile?, layout: Layout)
        throws(ImgToolError) -> ColorTransform
    {
        let key = Key(source: source?.data, destination: destination?.data, layout: layout)
        if let made = cache.withLock({ $0.transforms[key] }) { return made }
        var error = [CChar](repeating: 0, count: 128)
        let handle = (source?.data ?? []).withUnsafeBufferPointer { input in
            (destination?.data ?? []).withUnsafeBufferPointer { output in
                imgtool_color_transform_new(
                    input.baseAddress, input.count, output.baseAddress, output.count, layout.cValue, &error,
                    error.count)
            }
        }
        guard let handle else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
            throw ImgToolError(.corrupt, "cannot convert colours: \(reason)")
        }
        let made = ColorTransform(handle: handle)
        return cache.withLock { cached in
            if let earlier = cached.transforms[key] { return earlier }
            if cached.order.count >= cacheLimit {
                cached.transforms[cached.order.removeFirst()] = nil
            }
            cached.transforms[key] = made
            cached.order.append(key)
            return made
        }
    }

    /// The transform for RGBA pixels of `depth` described by `source` (grey in R, G and B for a
    /// grey profile) to `destination`; see ``make(from:to:layout:)``.
    static func make(from source: ColorProfile?, to destination: ColorProfile?, depth: SampleDepth)
        throws(ImgToolError) -> ColorTransform
    {
        try make(
            from: source, to: destination, layout: source?.colorSpace == .gray ? .grayInRGBA(depth) : .rgba(depth))
    }

    /// Converts every pixel of `image` in place, in two halves on two threads when the image is
    /// large and a second processor is there.
    func apply(to image: inout PixelBuffer) {
        let pixels = image.pixelCount
        guard pixels > 0 else { return }
        image.withUnsafeMutableSampleBytes { bytes in
            let stride = bytes.count / pixels
            guard let base = bytes.baseAddress else { return }
            let split = pixels >= Self.splitThreshold && availableProcessors > 1 ? pixels / 2 : pixels
            let tail = UnsafeSendablePointer(base + split * stride)
            let tailCount = pixels - split
            guard tailCount > 0 else {
                imgtool_color_transform_apply(handle, base, base, split)
                return
            }
            _ = forkJoin(
                { [self] in imgtool_color_transform_apply(handle, tail.pointer, tail.pointer, tailCount) },
                alongside: { imgtool_color_transform_apply(handle, base, base, split) })
        }
    }

    /// Images smaller than this are converted on one thread: a thread costs more than it saves.
    static let splitThreshold = 1 << 16
}

/// A pointer handed to the other thread of a fork and join, which writes memory the calling thread
/// does not touch until the join.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }
}

extension PixelBuffer {
    /// Calls `body` with the samples' bytes to change them in place (the storage stays unique:
    /// the buffer lets go of it for the call).
    mutating func withUnsafeMutableSampleBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        switch samples {
        case .rgba8(var values):
            samples = .rgba8([])
            defer { samples = .rgba8(values) }
            return values.withUnsafeMutableBytes(body)
        case .rgba16(var values):
            samples = .rgba16([])
            defer { samples = .rgba16(values) }
            return values.withUnsafeMutableBytes(body)
        }
    }
}
