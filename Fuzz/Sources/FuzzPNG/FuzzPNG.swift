import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded.
@main
enum FuzzPNG {
    static func main() {
        FuzzDriver.run { FuzzDecode.run($0, name: "fuzz.png") }
    }
}
