import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded; an input that decodes
/// whole is written as an APNG, which must decode to the same frames.
@main
enum FuzzAPNG {
    static func main() {
        FuzzDriver.run { FuzzDecode.runAndRoundTrip($0, name: "fuzz.png") }
    }
}
