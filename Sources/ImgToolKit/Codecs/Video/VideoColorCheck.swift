internal import CVideo

/// The YUV to RGB step of ``VideoSource`` on one sample triple, for tests.
enum VideoColorCheck {
    /// 8-bit `y`, `cb`, `cr` to RGB with BT.709 (else BT.601) coefficients, full (else limited) range.
    static func rgb(_ y: Int, _ cb: Int, _ cr: Int, bt709: Bool, full: Bool) -> [UInt8] {
        var rgb: [UInt8] = [0, 0, 0]
        rgb.withUnsafeMutableBufferPointer {
            imgtool_video_yuv_to_rgb(Int32(y), Int32(cb), Int32(cr), bt709 ? 1 : 0, full ? 1 : 0, $0.baseAddress)
        }
        return rgb
    }
}
