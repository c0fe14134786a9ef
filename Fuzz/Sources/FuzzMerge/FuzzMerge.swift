import ImgToolKit

/// libFuzzer entry point for the compositing path: the input is split in two halves, each
/// decoded as an image; when both decode, the second is drawn over the first at an offset taken
/// from the input, in 8 and 16 bits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count > 4 else { return 0 }
    let split = Int(bytes[0]) * bytes.count / 256
    let offset = (x: Int(Int8(bitPattern: bytes[1])), y: Int(Int8(bitPattern: bytes[2])))
    let first = Array(bytes[3..<max(3, split)])
    let second = Array(bytes[max(3, split)...])
    guard let background = try? ImageSource(data: first, name: "a", limits: FuzzDecode.limits).frame(at: 0).image,
        let overlay = try? ImageSource(data: second, name: "b", limits: FuzzDecode.limits).frame(at: 0).image
    else { return 0 }
    var canvas8 = background.converted(to: .eight)
    canvas8.draw(overlay.converted(to: .eight), at: offset, blend: .over)
    var canvas16 = background.converted(to: .sixteen)
    canvas16.draw(overlay.converted(to: .sixteen), at: offset, blend: .over)
    precondition(canvas8.width == background.width && canvas16.height == background.height)
    return 0
}

/// libFuzzer's driver: SwiftPM names an executable's entry point `FuzzMerge_main`, so the entry
/// point hands control to libFuzzer with the callback above.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzMerge_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
