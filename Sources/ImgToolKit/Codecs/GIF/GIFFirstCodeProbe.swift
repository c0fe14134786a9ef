/// Reads the first LZW codes of an image's data, far enough to tell whether it holds any pixel.
///
/// A frame of width or height 0 is valid only when its data holds no pixel: only clear codes,
/// then the end-of-information code (or nothing). Before the first pixel code the decoder's
/// table is empty, so every code has the minimum width (`minimumCodeSize + 1` bits), and no
/// LZW table is needed to decide.
struct GIFFirstCodeProbe: Sendable, Hashable {
    /// `true` once a pixel code was seen, `false` once the end-of-information code was,
    /// `nil` while only clear codes (or no complete code) were read.
    private(set) var foundPixel: Bool?
    private let codeBits: Int
    private let clearCode: UInt32
    private var bits: UInt32 = 0
    private var bitCount = 0

    /// Creates a probe for data whose LZW minimum code size is `minimumCodeSize` (giflib
    /// accepts 0 to 8).
    init(minimumCodeSize: Int) {
        let size = min(max(minimumCodeSize, 0), 11)
        codeBits = size + 1
        clearCode = 1 << UInt32(size)
    }

    /// Adds one byte of LZW data (codes are packed least significant bit first).
    mutating func feed(_ byte: UInt8) {
        guard foundPixel == nil else { return }
        bits |= UInt32(byte) << UInt32(bitCount)
        bitCount += 8
        while foundPixel == nil && bitCount >= codeBits {
            let code = bits & ((1 << UInt32(codeBits)) - 1)
            bits >>= UInt32(codeBits)
            bitCount -= codeBits
            if code != clearCode { foundPixel = code != clearCode + 1 }
        }
    }
}
