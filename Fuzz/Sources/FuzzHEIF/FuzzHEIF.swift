import FuzzSupport

/// Any bytes, opened through the public API and decoded: the run-time loading of libheif, its
/// parser and libde265 behind our C shim (limits, sizes, the conversion to RGBA). Every outcome
/// but a crash, a hang or a leak is fine: errors are expected.
@main
enum FuzzHEIF {
    static func main() {
        FuzzDriver.run { bytes in
            FuzzDecode.run(bytes, name: "fuzz.heic")
        }
    }
}
