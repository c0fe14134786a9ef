// swift-tools-version: 6.2
// libFuzzer targets for imgtool's decoders and parsers. Kept out of the main package so that `swift test`
// never builds them. Build and run one with `scripts/fuzz NAME SECONDS`.
import PackageDescription

let fuzzTargets = [
    "FuzzPNG", "FuzzAPNG", "FuzzGIF", "FuzzJPEG", "FuzzWebP", "FuzzAVIF", "FuzzJXL", "FuzzHEIF", "FuzzMerge",
    "FuzzOperationWords", "FuzzBatchJobs", "FuzzText", "FuzzVideo",
]

let package = Package(
    name: "imgtool-fuzz",
    dependencies: [.package(name: "imgtool", path: "..")],
    targets: [
        // The driver every target runs under, and the decoding body most of them share.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")]
        )
    ]
        + fuzzTargets.map { name in
            .executableTarget(
                name: name,
                dependencies: ["FuzzSupport", .product(name: "ImgToolKit", package: "imgtool")],
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]
            )
        },
    swiftLanguageModes: [.v6]
)
