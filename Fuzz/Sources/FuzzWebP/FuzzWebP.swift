import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded; an input that decodes
/// whole is written as a lossless WebP, which must play exactly the same canvases, delays and
/// plays. Every outcome but a crash, a hang or a leak is fine: errors are expected.
@main
enum FuzzWebP {
    static func main() {
        FuzzDriver.run { bytes in
            FuzzDecode.run(bytes, name: "fuzz.webp")
            FuzzDecode.roundTripWebP(bytes, name: "fuzz.webp")
        }
    }
}
