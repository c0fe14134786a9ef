import FuzzSupport

/// Any bytes, opened through the public API and every frame decoded (libavif's parser and dav1d,
/// then our clean aperture, turn and mirror, and the edit-list reader). Every outcome but a
/// crash, a hang or a leak is fine: errors are expected.
@main
enum FuzzAVIF {
    static func main() {
        FuzzDriver.run { bytes in
            FuzzDecode.run(bytes, name: "fuzz.avif")
        }
    }
}
