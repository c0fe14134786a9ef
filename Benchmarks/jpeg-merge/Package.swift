// swift-tools-version: 6.2
// A small driver for scripts/bench jpeg: `jpeg-merge BACKGROUND OVERLAY OUT.jpg` merges through
// ImgToolKit (ImageMerger, centred) and writes the result with JPEGCodec at its default quality,
// as `imgtool merge ... -o out.jpg` will once the command line writes through the codec registry.
// Kept out of the main package so that `swift build` and `swift test` never build it.
import PackageDescription

let package = Package(
    name: "jpeg-merge",
    dependencies: [.package(name: "imgtool", path: "../..")],
    targets: [
        .executableTarget(
            name: "jpeg-merge",
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")]
        )
    ],
    swiftLanguageModes: [.v6]
)
