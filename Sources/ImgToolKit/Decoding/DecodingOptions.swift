/// How an input is decoded, beyond the limits: options a codec honours where they apply.
public struct DecodingOptions: Sendable, Hashable {
    /// Turn images upright as their EXIF orientation (tag 0x0112) says, where the format
    /// carries one that viewers apply (JPEG). Default `true`; `--no-auto-orient` turns it off.
    public var autoOrient: Bool
    /// A size the caller will scale the image down to; a decoder that can produce a smaller image
    /// cheaply (JPEG's DCT scaling to 1/2, 1/4, 1/8) may return one no smaller than this in either
    /// dimension. `nil` (the default): full size.
    public var minimumSize: PixelSize?
    /// Which damage that a decoder works around makes the input fail instead. Default
    /// ``FailOn/none``: damaged but decodable input decodes, with warnings.
    public var failOn: FailOn

    /// Creates decoding options; every parameter has the documented default.
    public init(autoOrient: Bool = true, minimumSize: PixelSize? = nil, failOn: FailOn = .none) {
        self.autoOrient = autoOrient
        self.minimumSize = minimumSize
        self.failOn = failOn
    }

    /// The defaults: upright, full size, damage decoded with warnings.
    public static let `default` = DecodingOptions()
}
