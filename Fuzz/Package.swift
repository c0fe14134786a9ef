// swift-tools-version: 6.2
// libFuzzer targets for imgtool's decoders. Kept out of the main package so that `swift test`
// never builds them. Build and run one with `scripts/fuzz NAME SECONDS`.
import PackageDescription

let fuzzTargets = ["FuzzPNG", "FuzzAPNG", "FuzzGIF", "FuzzWebP", "FuzzMerge"]

let package = Package(
    name: "imgtool-fuzz",
    dependencies: [.package(name: "imgtool", path: "..")],
    targets: fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
