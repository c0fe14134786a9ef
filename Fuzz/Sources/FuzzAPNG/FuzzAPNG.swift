import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded; an input that decodes
/// whole is written as an APNG, which must decode to the same frames, and as a GIF, which
/// must decode to the same frames when they fit a GIF (the same count and timing otherwise).
@main
enum FuzzAPNG {
    static func main() {
        FuzzDriver.run {
            FuzzDecode.runAndRoundTrip($0, name: "fuzz.png")
            FuzzDecode.gifRoundTrip($0, name: "fuzz.png")
        }
    }
}
