// swift-tools-version: 6.2
import PackageDescription

let strictSwift: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "imgtool",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ImgToolKit", targets: ["ImgToolKit"]),
        .executable(name: "imgtool", targets: ["imgtool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // libpng reports errors by longjmp, which Swift cannot survive, so every libpng call
        // goes through a small C shim that owns its own setjmp (see CLibPNG/png_shim.c).
        .target(
            name: "CLibPNG",
            path: "CLibPNG",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        // Little CMS reports errors by return value, never by longjmp; the shim keeps its types
        // out of Swift (profiles as bytes, transforms as handles). See CColor/include/CColor.h.
        .target(
            name: "CColor",
            path: "CColor",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ],
            linkerSettings: [.linkedLibrary("lcms2")]
        ),
        // libjpeg reports errors by longjmp too, so every libjpeg call goes through a C shim that
        // owns its setjmp (see CLibJPEG/jpeg_shim.c).
        .target(
            name: "CLibJPEG",
            dependencies: ["CColor"],
            path: "CLibJPEG",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ],
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        // giflib reports errors by return code, so a module map is all Swift needs.
        .systemLibrary(
            name: "CGif",
            path: "CGif",
            pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"])]
        ),
        // libwebp reports errors by return code too; the module map links libwebp and libwebpmux
        // (WebPAnimEncoder). libwebpdemux (WebPAnimDecoder) is linked by the tests only, which
        // use it as the reference compositor.
        .systemLibrary(
            name: "CWebP",
            path: "CWebP",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),
        // libavif reports errors by return value as well; the module map links libavif (0.11.1
        // on Debian 12: dav1d decodes, aom encodes). No pkgConfig: libavif's .pc file adds
        // -DAVIF_DLL, which SwiftPM refuses with a warning, and the header is in /usr/include.
        .systemLibrary(
            name: "CAVIF",
            path: "CAVIF",
            providers: [.apt(["libavif-dev"])]
        ),
        // libjxl reports errors by status code; the module map links libjxl and its thread pool
        // (libjxl_threads), 0.7 on Debian 12.
        .systemLibrary(
            name: "CJXL",
            path: "CJXL",
            providers: [.apt(["libjxl-dev"])]
        ),
        // libheif, loaded at run time by the first HEIC input and never linked: Debian's libheif1
        // pulls in the GPL x265 encoder (see CHeif/include/CHeif.h).
        .target(
            name: "CHeif",
            path: "CHeif",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // libcurl, loaded on the first URL fetch instead of at start-up (see include/CCurlLoader.h).
        .target(
            name: "CCurlLoader",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // The resampler's passes on 256-bit vectors, chosen at run time (see
        // include/CResample.h): the same results to the bit as the Swift loops.
        .target(
            name: "CResample",
            cSettings: [
                .enableWarning("all"),
                .enableWarning("extra"),
                .treatAllWarnings(as: .error),
            ]
        ),
        .target(
            name: "ImgToolKit",
            dependencies: ["CLibPNG", "CLibJPEG", "CGif", "CWebP", "CAVIF", "CJXL", "CHeif", "CResample", "CColor"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "imgtool",
            dependencies: [
                "ImgToolKit",
                "CCurlLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "conformance",
            // CCurlLoader: linked as imgtool is, so scripts/build-release builds both alike.
            dependencies: ["ImgToolKit", "CCurlLoader"],
            swiftSettings: strictSwift
        ),
        // What both test targets share: temporary folders, waiting on a condition, test pictures
        // and comparing them.
        .target(
            name: "TestSupport",
            dependencies: ["ImgToolKit"],
            path: "Tests/TestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "ImgToolKitTests",
            dependencies: ["ImgToolKit", "TestSupport", "CWebP"],
            swiftSettings: strictSwift,
            linkerSettings: [.linkedLibrary("webpdemux")]
        ),
        .testTarget(
            name: "imgtoolTests",
            dependencies: ["imgtool", "TestSupport"],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)
