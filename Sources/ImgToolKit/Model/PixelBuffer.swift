/// A picture in memory: straight (non-premultiplied) RGBA, row-major, 8 or 16 bits per sample.
///
/// A `Sendable` value type: its storage is a Swift array, copy-on-write, so passing a buffer
/// between tasks copies nothing until one side writes. Rows are `width * 4` samples long with
/// no padding; sample `c` of pixel `(x, y)` is at `(y * width + x) * 4 + c`, in the order
/// R, G, B, A. 16-bit samples are `UInt16` in host byte order.
public struct PixelBuffer: Sendable, Hashable {
    /// The samples, as 8-bit or 16-bit RGBA.
    public enum Samples: Sendable, Hashable {
        /// 8 bits per sample.
        case rgba8([UInt8])
        /// 16 bits per sample, host byte order.
        case rgba16([UInt16])
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The samples.
    public internal(set) var samples: Samples
    /// Where the pixels came from (format, stored depth and colour type), when they were decoded.
    public var metadata: ImageMetadata?

    /// Creates a fully transparent buffer (every sample 0).
    ///
    /// Callers that take sizes from untrusted input check them against ``DecodingLimits`` first.
    public init(width: Int, height: Int, depth: SampleDepth = .eight) {
        precondition(width >= 0 && height >= 0, "negative size")
        self.width = width
        self.height = height
        let count = width * height * 4
        switch depth {
        case .eight: samples = .rgba8([UInt8](repeating: 0, count: count))
        case .sixteen: samples = .rgba16([UInt16](repeating: 0, count: count))
        }
    }

    /// Creates a buffer whose samples `fill` writes; it must initialize all of them. This skips
    /// the zero-fill of ``init(width:height:depth:)`` for decoders that overwrite every sample.
    init<Failure: Error>(
        width: Int, height: Int, depth: SampleDepth,
        uninitialized fill: (UnsafeMutableRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        self.width = width
        self.height = height
        let count = width * height * 4
        switch depth {
        case .eight: samples = try Self.uninitializedSamples(of: UInt8.self, count: count, fill)
        case .sixteen: samples = try Self.uninitializedSamples(of: UInt16.self, count: count, fill)
        }
    }

    /// `count` samples of type `S` that `fill` writes (as bytes); zeroed when it throws.
    private static func uninitializedSamples<S: Sample, Failure: Error>(
        of _: S.Type, count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) -> Samples {
        var failure: Failure?
        let values = [S](unsharedUninitializedCapacity: count) { buffer, initialized in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            adviseHugePages(bytes)
            do throws(Failure) {
                try fill(bytes)
            } catch {
                failure = error
                bytes.initializeMemory(as: UInt8.self, repeating: 0)
            }
            initialized = count
        }
        if let failure { throw failure }
        return S.samples(values)
    }

    /// Wraps existing 8-bit RGBA samples; `rgba8.count` must be `width * height * 4`.
    public init(width: Int, height: Int, rgba8: [UInt8]) {
        precondition(width >= 0 && height >= 0 && rgba8.count == width * height * 4, "sample count does not match size")
        self.width = width
        self.height = height
        self.samples = .rgba8(rgba8)
    }

    /// Wraps existing 16-bit RGBA samples; `rgba16.count` must be `width * height * 4`.
    public init(width: Int, height: Int, rgba16: [UInt16]) {
        precondition(
            width >= 0 && height >= 0 && rgba16.count == width * height * 4, "sample count does not match size")
        self.width = width
        self.height = height
        self.samples = .rgba16(rgba16)
    }

    /// A copy whose samples are in storage of its own, shared with nothing.
    ///
    /// A frame reader that composes an animation on one canvas hands out a copy like this,
    /// never the canvas itself, and so draws the next frame in place without asking whether a
    /// consumer (an encoder on another thread) still holds the last one. Copy-on-write would ask
    /// the array's reference count, and the order a reference count gives (another thread's
    /// last read before its release) is one ThreadSanitizer cannot see.
    func unsharedCopy() -> PixelBuffer {
        var copy = PixelBuffer(width: width, height: height, depth: depth) { (target) throws(Never) in
            switch samples {
            case .rgba8(let values): values.withUnsafeBytes { target.copyMemory(from: $0) }
            case .rgba16(let values): values.withUnsafeBytes { target.copyMemory(from: $0) }
            }
        }
        copy.metadata = metadata
        return copy
    }

    /// Bits per sample.
    public var depth: SampleDepth {
        switch samples {
        case .rgba8: .eight
        case .rgba16: .sixteen
        }
    }

    /// The number of pixels, `width * height`.
    public var pixelCount: Int { width * height }

    /// Pixels are equal when sizes and samples are; ``metadata`` is not compared.
    public static func == (lhs: PixelBuffer, rhs: PixelBuffer) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.samples == rhs.samples
    }

    /// Hashes size and samples, like ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(samples)
    }
}

/// Where a decoded ``PixelBuffer`` came from.
public struct ImageMetadata: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// Bits per sample as stored in the file.
    public var bitDepth: Int
    /// Colour type as stored in the file.
    public var colorType: ColorType
    /// Colour-management chunks present in the file (none is applied).
    public var color: ColorMetadata
    /// Damage the decoder worked around while decoding these pixels (libjpeg's "Corrupt JPEG
    /// data: ..." warnings), one sentence each; the library never prints them.
    public var warnings: [String]

    /// Creates metadata; `warnings` defaults to none.
    public init(
        format: ImageFormat, bitDepth: Int, colorType: ColorType, color: ColorMetadata = ColorMetadata(),
        warnings: [String] = []
    ) {
        self.format = format
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.color = color
        self.warnings = warnings
    }
}
