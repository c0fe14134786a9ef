// swift-tools-version: 6.2
// A small driver that converts an image to WebP through ImgToolKit's codec registry, as the
// command line will once it writes through the registry; `scripts/bench webp` times it. Kept out
// of the main package so that `swift test` never builds it.
import PackageDescription

let package = Package(
    name: "webp-convert",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "imgtool", path: "../..")],
    targets: [
        .executableTarget(
            name: "webp-convert",
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")]
        )
    ],
    swiftLanguageModes: [.v6]
)
