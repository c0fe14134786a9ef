import ImgToolKit

/// libFuzzer entry point: any bytes, given to the EXIF orientation reader on their own (as an
/// APP1 payload and as a bare TIFF structure), then opened through the public API and decoded,
/// upright or as stored and at full or reduced size (chosen from the input's length); an input
/// that decodes is written as a JPEG, which must decode to the same size.
/// Every outcome but a crash, a hang or a leak is fine: errors are expected.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = EXIFReader.orientation(inAPP1: bytes)
    _ = EXIFReader.orientation(inTIFF: bytes[...])
    // EXIF-shaped inputs reach the directory walk: a fuzzed body behind a valid prefix.
    _ = EXIFReader.orientation(inAPP1: Array("Exif".utf8) + [0, 0] + bytes)
    let minimum = [nil, PixelSize(width: 1, height: 1), PixelSize(width: 17, height: 9)][size % 3]
    let options = DecodingOptions(autoOrient: size % 2 == 0, minimumSize: minimum)
    FuzzDecode.run(bytes, name: "fuzz.jpg", options: options)
    FuzzDecode.jpegRoundTrip(bytes, name: "fuzz.jpg", quality: 1 + size % 100, progressive: size % 5 == 0)
    return 0
}

/// libFuzzer's driver: SwiftPM names an executable's entry point `FuzzJPEG_main`, so the entry
/// point hands control to libFuzzer with the callback above.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzJPEG_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
