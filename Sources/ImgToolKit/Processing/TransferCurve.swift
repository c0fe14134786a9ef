/// A transfer curve as lookup tables: how encoded samples become linear light and back, for
/// resizing in linear light (``Resampler/linear``). sRGB's by default; an image whose ICC profile
/// has its own curve (Adobe RGB's gamma 2.2, ProPhoto's 1.8, a grey profile's) is linearised with
/// that one.
public struct TransferCurve: Sendable {
    /// Encoded 8-bit sample to linear light, in 8-bit sample units.
    var decode8: [Float] { isSRGB ? SRGBTransfer.decode8 : tables.decode8 }
    /// Encoded 16-bit sample to linear light, in 16-bit sample units.
    var decode16: [Float] { isSRGB ? SRGBTransfer.decode16 : tables.decode16 }
    /// Linear light `i / 65535` to encoded `0...1`.
    var encode16: [Float] { isSRGB ? SRGBTransfer.encode16 : tables.encode16 }
    /// Whether this is ``sRGB``.
    let isSRGB: Bool
    /// A profile's own tables; empty for sRGB, whose tables are made the first time a linear
    /// resize asks for them (131,072 `pow` calls, 2 ms: a resize that is not linear, by far the
    /// most common, never pays them).
    private let tables: (decode8: [Float], decode16: [Float], encode16: [Float])

    /// The sRGB curve (IEC 61966-2-1).
    public static let sRGB = TransferCurve()

    private init() {
        tables = ([], [], [])
        isSRGB = true
    }

    /// The linear value of an 8-bit encoded sample, in `maximum` units.
    func decoded(_ value: UInt8, maximum: Float) -> Float {
        isSRGB ? Float(SRGBTransfer.decode(Double(value) / 255) * Double(maximum)) : decode8[Int(value)] / 255 * maximum
    }

    /// The curve of the profile `color` describes (``ColorMetadata/effectiveProfile``): its
    /// green channel's (channels rarely differ), or sRGB's for no profile, an sRGB-tagged
    /// image, or a profile without such curves (a LUT profile).
    public init(describing color: ColorMetadata) {
        guard let profile = color.effectiveProfile, let curves = profile.transferCurves(samples: 65536) else {
            self = .sRGB
            return
        }
        let decode = curves[1]  // 0...1 to 0...1, non-decreasing once clamped
        // The inverse, walking both monotone tables once: the encoded value whose decoded value
        // first reaches each linear level.
        var encode = [Float](repeating: 1, count: 65536)
        var index = 0
        var running: Float = 0
        for level in 0..<65536 {
            let target = Float(level) / 65535
            while index < 65535 && max(running, decode[index]) < target {
                running = max(running, decode[index])
                index += 1
            }
            encode[level] = Float(index) / 65535
        }
        tables = ((0...255).map { decode[$0 * 257] * 255 }, decode.map { $0 * 65535 }, encode)
        isSRGB = false
    }
}
