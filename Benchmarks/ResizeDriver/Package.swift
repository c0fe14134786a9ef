// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "scalebench",
    dependencies: [.package(name: "imgtool", path: "../..")],
    targets: [
        .executableTarget(
            name: "scalebench",
            dependencies: [.product(name: "ImgToolKit", package: "imgtool")],
            path: "Sources/scalebench")
    ],
    swiftLanguageModes: [.v6]
)
