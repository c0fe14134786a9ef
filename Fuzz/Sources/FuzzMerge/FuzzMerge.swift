import FuzzSupport
import ImgToolKit

/// The compositing path: the input is split in two halves, each decoded as an image; when both
/// decode, the second is drawn over the first at an offset taken from the input, in 8 and 16
/// bits.
@main
enum FuzzMerge {
    static func main() { FuzzDriver.run(merge) }

    static func merge(_ bytes: [UInt8]) {
        guard bytes.count > 4 else { return }
        let split = Int(bytes[0]) * bytes.count / 256
        let offset = (x: Int(Int8(bitPattern: bytes[1])), y: Int(Int8(bitPattern: bytes[2])))
        let first = Array(bytes[3..<max(3, split)])
        let second = Array(bytes[max(3, split)...])
        guard let background = try? ImageSource(data: first, name: "a", limits: FuzzDecode.limits).frame(at: 0).image,
            let overlay = try? ImageSource(data: second, name: "b", limits: FuzzDecode.limits).frame(at: 0).image
        else { return }
        var canvas8 = background.converted(to: .eight)
        canvas8.draw(overlay.converted(to: .eight), at: offset, blend: .over)
        var canvas16 = background.converted(to: .sixteen)
        canvas16.draw(overlay.converted(to: .sixteen), at: offset, blend: .over)
        precondition(canvas8.width == background.width && canvas16.height == background.height)
    }
}
