import Foundation
import ImgToolKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real HTTP over 127.0.0.1: a server the test starts and stops itself.
@Suite("Merge over loopback HTTP", .timeLimit(.minutes(5)))
struct MergeLoopbackTests {
    static let background = TestImages.noise8(width: 64, height: 48, seed: 21)
    static let overlay = TestImages.noise8(width: 30, height: 20, seed: 22)

    @Test("A merge from two loopback URLs equals the same merge from files")
    func urlsEqualFiles() async throws {
        // Given the same two PNG files on disk and behind a local HTTP server
        let backgroundPNG = try MergeFixtures.png(Self.background)
        let overlayPNG = try MergeFixtures.png(Self.overlay)
        let folder = try makeTemporaryFolder("loopback")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MergeFixtures.write(backgroundPNG, to: folder + "/bg.png")
        try MergeFixtures.write(overlayPNG, to: folder + "/ov.png")
        let server = try LoopbackHTTPServer(routes: [
            "/bg.png": .init(body: backgroundPNG), "/ov.png": .init(body: overlayPNG),
        ])
        let placement = try OverlayPlacement(gravity: .southEast, offsetX: -3, offsetY: 2, opacity: 0.8)
        // When both are merged, and the URL overlay is named twice
        let fromURLs: ImageMerger.Result
        do {
            let merger = ImageMerger(
                loader: ImageLoader(fetcher: HTTPFetcher(timeout: .seconds(20))), placement: placement)
            fromURLs = try await merger.merge(
                background: try ImageInput(server.url("/bg.png")),
                overlays: [try ImageInput(server.url("/ov.png")), try ImageInput(server.url("/ov.png"))])
            #expect(await merger.loader.fetchCount == 2)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let fromFiles = try await ImageMerger(placement: placement).merge(
            background: try ImageInput(folder + "/bg.png"),
            overlays: [try ImageInput(folder + "/ov.png"), try ImageInput("file://" + folder + "/ov.png")])
        // Then the pixels are the same, and the server saw each path once
        #expect(firstDifference(fromFiles.image, fromURLs.image) == nil)
        #expect(server.requestedPaths.sorted() == ["/bg.png", "/ov.png"])
        let expected = OverlayCompositor.composite(
            [Self.overlay, Self.overlay], onto: Self.background, placement: placement)
        #expect(firstDifference(expected, fromFiles.image) == nil)
    }

    @Test("Real-server failures: 404, truncated body, non-http redirect, not an image")
    func serverFailures() async throws {
        let png = try MergeFixtures.png(Self.overlay)
        let server = try LoopbackHTTPServer(routes: [
            "/short.png": .init(body: Array(png.prefix(100)), declaredLength: png.count),
            "/redirect.png": .init(status: 302, headers: [("Location", "ftp://127.0.0.1/secret.png")]),
            "/file-redirect.png": .init(status: 301, headers: [("Location", "file:///etc/passwd")]),
            "/page.html": .init(body: Array("<html>hello</html>".utf8)),
        ])
        let loader = ImageLoader(fetcher: HTTPFetcher(timeout: .seconds(20)), options: .init(keepGoing: true))
        let names = ["/missing.png", "/short.png", "/redirect.png", "/file-redirect.png", "/page.html"].map(server.url)
        let results = await loader.loadResults(try names.map { try ImageInput($0) })
        await server.stop()
        let expected: [(ImgToolError.Code, String)] = [
            (.notFound, "HTTP status 404"), (.truncated, "100 of \(png.count) bytes"),
            (.network, "ftp://127.0.0.1/secret.png refused"), (.network, "file:///etc/passwd refused"),
            (.unsupportedFormat, "not a PNG, GIF, JPEG, WebP, AVIF, JPEG XL, HEIF, MP4 or WebM file"),
        ]
        for ((code, words), (name, result)) in zip(expected, zip(names, results)) {
            guard case .failure(let error) = result else { Issue.record("\(name) loaded"); continue }
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.input == name)
            #expect(error.description.contains(words), "\(error)")
        }
        #expect(!server.requestedPaths.contains("/secret.png"))
        #expect(
            !server.requestedPaths.contains("/etc/passwd"), "the file: redirect was not turned into an http request")
    }

    @Test("A closed port is a refused connection")
    func refused() async throws {
        // Given a port that was free a moment ago (the server is stopped, its socket closed)
        let server = try LoopbackHTTPServer(routes: [:])
        await server.stop()
        let name = server.url("/a.png")
        let error = await #expect(throws: ImgToolError.self) {
            try await ImageLoader(fetcher: HTTPFetcher(timeout: .seconds(20))).load(try ImageInput(name))
        }
        #expect(error?.code == .network)
        #expect(error?.input == name)
        #expect(error?.message.contains("connection refused") == true, "\(String(describing: error))")
    }
}
