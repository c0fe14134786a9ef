import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded (libjxl's headers, frames,
/// coalescing and orientation, and our limits). Every outcome but a crash, a hang or a leak is
/// fine: errors are expected.
@main
enum FuzzJXL {
    static func main() {
        FuzzDriver.run { bytes in
            FuzzDecode.run(bytes, name: "fuzz.jxl")
        }
    }
}
