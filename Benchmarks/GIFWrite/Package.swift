// swift-tools-version: 6.2
// A tiny command that writes any input imgtool reads as a GIF through `CodecRegistry.standard`,
// for `scripts/bench gif` until `imgtool convert` writes through the registry. Kept out of the
// main package so that `swift build` and `swift test` never build it.
import PackageDescription

let package = Package(
    name: "gifwrite",
    dependencies: [.package(name: "imgtool", path: "../..")],
    targets: [
        .executableTarget(
            name: "gifwrite",
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        )
    ],
    swiftLanguageModes: [.v6]
)
