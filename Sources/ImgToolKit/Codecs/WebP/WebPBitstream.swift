internal import CWebP

/// libwebp's decoding entry points, one thin wrapper each (the only decoding code that calls
/// libwebp). libwebp reports errors by return code (`VP8StatusCode`), so Swift calls it
/// directly; each call is a few milliseconds of uninterruptible C at most, and runs wherever
/// its caller runs (a ``DecodeAhead`` helper thread for animation frames).
enum WebPBitstream {
    /// What a bitstream's header says, without decoding it.
    struct Features: Sendable, Hashable {
        /// Width in pixels.
        var width: Int
        /// Height in pixels.
        var height: Int
        /// Whether the image has alpha: an `ALPH` chunk, or a `VP8L` header's `alpha_is_used`.
        var hasAlpha: Bool
        /// Whether the image is `VP8L` (lossless); `false` for `VP8 ` (lossy).
        var isLossless: Bool
    }

    /// The header of the bitstream in `range` of `data`: a `VP8 ` or `VP8L` chunk, optionally
    /// preceded by an `ALPH` chunk (or a whole WebP file).
    /// The corresponding C function is `WebPGetFeatures`.
    /// - Returns: the features, or libwebp's status name (`BITSTREAM_ERROR`, ...) as failure.
    static func features(of data: [UInt8], in range: Range<Int>) -> Result<Features, StatusError> {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBufferPointer { bytes in
            WebPGetFeatures(bytes.baseAddress.unsafelyUnwrapped + range.lowerBound, range.count, &features)
        }
        guard status == VP8_STATUS_OK else { return .failure(StatusError(status)) }
        return .success(
            Features(
                width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0,
                isLossless: features.format == 2))
    }

    /// Decodes the bitstream in `range` of `data` into `pixels`, straight RGBA, 8 bits per
    /// sample, `width * 4` bytes a row; `pixels` must hold exactly `width * height * 4` bytes.
    /// Lossy images go through libwebp's fancy upsampler, as `dwebp` decodes them.
    /// The corresponding C function is `WebPDecode` (output mode `MODE_RGBA`, external memory).
    /// - Throws: ``StatusError`` with libwebp's status.
    static func decode(
        _ data: [UInt8], in range: Range<Int>, width: Int, height: Int, into pixels: UnsafeMutableRawBufferPointer
    ) throws(StatusError) {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw StatusError(VP8_STATUS_INVALID_PARAM) }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.width = Int32(width)
        config.output.height = Int32(height)
        config.output.u.RGBA.rgba = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(width * 4)
        config.output.u.RGBA.size = pixels.count
        let status = data.withUnsafeBufferPointer { bytes in
            WebPDecode(bytes.baseAddress.unsafelyUnwrapped + range.lowerBound, range.count, &config)
        }
        WebPFreeDecBuffer(&config.output)  // frees nothing for external memory; kept for symmetry
        guard status == VP8_STATUS_OK else { throw StatusError(status) }
    }

    /// A libwebp `VP8StatusCode` other than `VP8_STATUS_OK`.
    struct StatusError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The code's number.
        var code: Int
        /// Whether libwebp ran out of input (`VP8_STATUS_NOT_ENOUGH_DATA`).
        var isNotEnoughData: Bool { code == Int(VP8_STATUS_NOT_ENOUGH_DATA.rawValue) }

        init(_ status: VP8StatusCode) {
            code = Int(status.rawValue)
        }

        /// libwebp's name for the code, as `dwebp` prints it ("BITSTREAM_ERROR").
        var description: String {
            switch code {
            case 1: "OUT_OF_MEMORY"
            case 2: "INVALID_PARAM"
            case 3: "BITSTREAM_ERROR"
            case 4: "UNSUPPORTED_FEATURE"
            case 5: "SUSPENDED"
            case 6: "USER_ABORT"
            case 7: "NOT_ENOUGH_DATA"
            default: "status \(code)"
            }
        }
    }
}
