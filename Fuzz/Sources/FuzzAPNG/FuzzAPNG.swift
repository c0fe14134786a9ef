import ImgToolKit

/// libFuzzer entry point: any bytes, opened through the public API and every frame decoded; an
/// input that decodes whole is written as an APNG, which must decode to the same frames, and as
/// a GIF, which must decode to the same frames when they fit a GIF (the same count and timing
/// otherwise).
/// Every outcome but a crash, a hang or a leak is fine: errors are expected.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzDecode.run(bytes, name: "fuzz.png")
    FuzzDecode.roundTrip(bytes, name: "fuzz.png")
    FuzzDecode.gifRoundTrip(bytes, name: "fuzz.png")
    return 0
}

/// libFuzzer's driver: SwiftPM names an executable's entry point `FuzzAPNG_main`, so the entry
/// point hands control to libFuzzer with the callback above.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzAPNG_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
