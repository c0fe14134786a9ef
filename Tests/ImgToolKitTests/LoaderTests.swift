import Foundation
import TestSupport
import Testing

@testable import ImgToolKit

/// `ImageLoader` with a fake fetcher: order, bounded concurrency, cancellation, keep-going,
/// coalescing, states, and where decoding runs.
@Suite("Image loader", .timeLimit(.minutes(5)))
struct LoaderTests {
    /// A distinct 2x1 image per index, as PNG bytes.
    static func image(_ index: Int) -> PixelBuffer {
        MergeFixtures.solid([UInt8(index * 10), UInt8(255 - index), 7, 255], width: 2, height: 1)
    }

    static func url(_ index: Int) -> String { "http://fake.test/\(index).png" }

    static func fetcher(count: Int, frozen: Bool = true) throws -> GateFetcher {
        let fetcher = GateFetcher(frozen: frozen)
        for index in 0..<count { fetcher.respond(url(index), with: .success(try MergeFixtures.png(image(index)))) }
        return fetcher
    }

    static func inputs(_ count: Int) throws -> [ImageInput] {
        try (0..<count).map { try ImageInput(url($0)) }
    }

    @Test("Results come back in input order, with at most N fetches in flight")
    func orderAndBound() async throws {
        // Given five frozen fetches and a limit of two
        let fetcher = try Self.fetcher(count: 5)
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 2))
        async let loaded = loader.load(try Self.inputs(5))
        // Then two start (concurrently, so in either order), and no more while they are frozen:
        // maxInFlight, checked at the end, counts every fetch that ever ran beside them
        try await fetcher.waitUntilStarted(2)
        #expect(Set(fetcher.started) == [Self.url(0), Self.url(1)])
        #expect(fetcher.started.count == 2)
        // When they are released last first, each freeing a slot for the next input
        fetcher.release(Self.url(1))
        try await fetcher.waitUntilStarted(3)
        fetcher.release(Self.url(4))
        fetcher.release(Self.url(3))
        fetcher.release(Self.url(2))
        fetcher.release(Self.url(0))
        let images = try await loaded
        // Then the results are in input order, and never more than two ran at once
        #expect(images.map(\.image) == (0..<5).map(Self.image))
        #expect(images.map(\.name) == (0..<5).map(Self.url))
        #expect(fetcher.maxInFlight == 2)
        #expect(Set(fetcher.finished) == Set((0..<5).map(Self.url)))
    }

    @Test("The first failure cancels the inputs in flight, and the rest never start")
    func firstFailureCancels() async throws {
        // Given four inputs, three in flight, the second one failing with 404
        let fetcher = try Self.fetcher(count: 4)
        fetcher.respond(Self.url(1), with: .failure(ImgToolError(.notFound, "HTTP status 404 (not found)")))
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 3))
        async let results = loader.loadResults(try Self.inputs(4))
        try await fetcher.waitUntilStarted(3)
        // When it fails
        fetcher.release(Self.url(1))
        let outcome = try await results
        // Then the others in flight were cancelled and the fourth never started
        #expect(Set(fetcher.cancelled) == [Self.url(0), Self.url(2)])
        #expect(!fetcher.started.contains(Self.url(3)))
        let codes = outcome.map { result -> ImgToolError.Code? in
            if case .failure(let error) = result { return error.code }
            return nil
        }
        #expect(codes == [.cancelled, .notFound, .cancelled, .cancelled])
        // And each error names its input
        for (index, result) in outcome.enumerated() {
            if case .failure(let error) = result { #expect(error.input == Self.url(index)) }
        }
    }

    @Test("load throws the failure itself, not a cancellation it caused")
    func loadThrowsRootCause() async throws {
        let fetcher = try Self.fetcher(count: 3, frozen: false)
        fetcher.respond(Self.url(2), with: .failure(ImgToolError(.network, "HTTP status 500 (internal server error)")))
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 3))
        let error = await #expect(throws: ImgToolError.self) { try await loader.load(try Self.inputs(3)) }
        #expect(error?.code == .network)
        #expect(error?.input == Self.url(2))
        #expect(error?.description.contains("500") == true)
    }

    @Test("With keepGoing every input runs to its end")
    func keepGoing() async throws {
        let fetcher = try Self.fetcher(count: 4, frozen: false)
        fetcher.respond(Self.url(0), with: .failure(ImgToolError(.notFound, "HTTP status 404 (not found)")))
        fetcher.respond(Self.url(2), with: .success(Array("<html>".utf8)))
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 1, keepGoing: true))
        let outcome = await loader.loadResults(try Self.inputs(4))
        #expect(fetcher.cancelled.isEmpty)
        #expect(fetcher.finished.count == 4)
        #expect((try? outcome[1].get())?.image == Self.image(1))
        #expect((try? outcome[3].get())?.image == Self.image(3))
        guard case .failure(let notImage) = outcome[2] else { Issue.record("expected a failure"); return }
        #expect(notImage.code == .unsupportedFormat)
        #expect(notImage.description.hasPrefix(Self.url(2) + ": "))
        // And load reports the first failure in input order
        let error = await #expect(throws: ImgToolError.self) { try await loader.load(try Self.inputs(4)) }
        #expect(error?.input == Self.url(0))
    }

    @Test("The same URL named several times is fetched once")
    func coalescing() async throws {
        // Given the same URL three times among others, loading at once
        let fetcher = try Self.fetcher(count: 2)
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 4))
        let inputs = try [Self.url(0), Self.url(1), Self.url(0), Self.url(0)].map { try ImageInput($0) }
        async let loaded = loader.load(inputs)
        try await fetcher.waitUntilStarted(2)
        fetcher.release(Self.url(0))
        fetcher.release(Self.url(1))
        let images = try await loaded
        // Then it was fetched once and every copy has its pixels
        #expect(fetcher.started.filter { $0 == Self.url(0) }.count == 1)
        #expect(await loader.fetchCount == 2)
        #expect(images.map(\.image) == [0, 1, 0, 0].map(Self.image))
        // Also when the copies run one after the other
        let sequential = ImageLoader(
            fetcher: try Self.fetcher(count: 2, frozen: false), options: .init(maxConcurrent: 1))
        _ = try await sequential.load(inputs)
        #expect(await sequential.fetchCount == 2)
    }

    @Test("A merge naming one URL as the first overlay and as a later one fetches it once")
    func mergeCoalescesAcrossItsLoads() async throws {
        // Given a merge whose first overlay (its own `async let`) and third overlay (the loader's
        // task group) are the same URL, with a fetcher that answers at once, so the first load
        // can finish before the group starts: the uses must all be announced before any load
        for _ in 0..<50 {
            let loader = ImageLoader(fetcher: try Self.fetcher(count: 3, frozen: false))
            let overlays = try [Self.url(1), Self.url(2), Self.url(1)].map { try ImageInput($0) }
            let result = try await ImageMerger(loader: loader).merge(
                background: try ImageInput(Self.url(0)), overlays: overlays)
            // Then each URL was fetched once, and the merge has every overlay
            #expect(await loader.fetchCount == 3)
            #expect(result.image.width == 2)
        }
    }

    @Test("Cancelling the caller stops every fetch")
    func callerCancellation() async throws {
        let fetcher = try Self.fetcher(count: 3)
        let loader = ImageLoader(fetcher: fetcher, options: .init(maxConcurrent: 2))
        let inputs = try Self.inputs(3)
        let task = Task { try await loader.load(inputs) }
        try await fetcher.waitUntilStarted(2)
        task.cancel()
        let result = await task.result
        guard case .failure(let error as ImgToolError) = result else {
            Issue.record("expected an ImgToolError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
        #expect(Set(fetcher.cancelled) == [Self.url(0), Self.url(1)])
        #expect(!fetcher.started.contains(Self.url(2)))
    }

    @Test("Each input reports loading, then loaded or failed, and nothing after")
    func states() async throws {
        let fetcher = try Self.fetcher(count: 2, frozen: false)
        fetcher.respond(Self.url(1), with: .failure(ImgToolError(.network, "connection refused")))
        let events = Locked<[LoadEvent]>([])
        let loader = ImageLoader(
            fetcher: fetcher, options: .init(keepGoing: true),
            observer: { event in events.withLock { $0.append(event) } })
        _ = await loader.loadResults(try Self.inputs(2))
        let all = events.withLock { $0 }
        for index in 0..<2 {
            let mine = all.filter { $0.index == index }.map(\.state)
            #expect(mine.first == .loading(bytesSoFar: 0, total: nil))
            #expect(mine.dropLast().allSatisfy { !$0.isFinished })
            #expect(mine.last?.isFinished == true)
        }
        let last0 = all.last { $0.index == 0 }?.state
        guard case .loaded(let info)? = last0 else {
            Issue.record("expected loaded, got \(String(describing: last0))"); return
        }
        #expect(info.width == 2 && info.format == .png)
        guard case .failed(let error)? = all.last(where: { $0.index == 1 })?.state else {
            Issue.record("expected failed"); return
        }
        #expect(error.input == Self.url(1) && error.code == .network)
        // And the progress summary is drawn from those states
        var progress = LoadProgress(count: 2)
        for event in all { progress.record(event) }
        #expect(progress.finishedCount == 2 && progress.failedCount == 1)
        #expect(progress.summary.hasPrefix("2/2 images loaded (1 failed)"))
    }

    @Test("Files: missing, a folder, not an image, too large, each named")
    func fileErrors() async throws {
        let folder = try makeTemporaryFolder("loader")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MergeFixtures.write(Array("just text".utf8), to: folder + "/text.png")
        try MergeFixtures.write(try MergeFixtures.png(Self.image(1)), to: folder + "/good.png")
        let cases: [(String, ImgToolError.Code)] = [
            (folder + "/missing.png", .notFound), (folder, .unreadable), (folder + "/text.png", .unsupportedFormat),
        ]
        let loader = ImageLoader(fetcher: GateFetcher(frozen: false), options: .init(keepGoing: true))
        let outcome = await loader.loadResults(try cases.map { try ImageInput($0.0) })
        for ((name, code), result) in zip(cases, outcome) {
            guard case .failure(let error) = result else { Issue.record("\(name) loaded"); continue }
            #expect(error.code == code, "\(name)")
            #expect(error.input == name)
        }
        let small = ImageLoader(fetcher: GateFetcher(frozen: false), options: .init(maxBytes: 10))
        let tooLarge = await #expect(throws: ImgToolError.self) {
            try await small.load(try ImageInput(folder + "/good.png"))
        }
        #expect(tooLarge?.code == .tooLarge)
        // file:// URLs read the same file
        let viaURL = try await loader.load(try ImageInput("file://" + folder + "/good.png"))
        #expect(viaURL.image == Self.image(1))
    }

    @Test("Input names: schemes other than file and http(s) are refused")
    func inputParsing() throws {
        #expect(try ImageInput("-").location == .standardInput)
        #expect(try ImageInput("a/b.png").location == .file(path: "a/b.png"))
        #expect(try ImageInput("file:///tmp/x%20y.png").location == .file(path: "/tmp/x y.png"))
        #expect(
            try ImageInput("HTTPS://example.com/a.png").location == .remote(URL(string: "HTTPS://example.com/a.png")!))
        for bad in ["ftp://host/a.png", "data://x", "file://otherhost/a.png", "http://", ""] {
            let error = #expect(throws: ImgToolError.self) { try ImageInput(bad) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.input == bad)
        }
    }

    @Test("Decoding runs while the main actor is busy")
    @MainActor
    func offMainActor() async throws {
        // Given a merge started from the main actor, whose loader reports each input decoded
        let fetcher = try Self.fetcher(count: 2, frozen: false)
        let loaded = Locked(0)
        let loader = ImageLoader(
            fetcher: fetcher, options: .init(),
            observer: { event in
                if case .loaded = event.state { loaded.withLock { $0 += 1 } }
            })
        let merger = ImageMerger(loader: loader)
        async let merged = merger.merge(
            background: try ImageInput(Self.url(0)), overlays: [try ImageInput(Self.url(1))])
        // When the main actor is kept busy, never suspending, until both inputs are decoded (or
        // 240 s: in a full `swift test` on two cores the end-to-end suites' process waits hold
        // both threads of the cooperative pool for up to two minutes, and sanitizer runs are slow)
        let deadline = ContinuousClock.now.advanced(by: .seconds(240))
        while loaded.withLock({ $0 }) < 2 && ContinuousClock.now < deadline {}
        // Then both decodes finished meanwhile: none of them needed the main actor
        #expect(loaded.withLock { $0 } == 2)
        let result = try await merged
        #expect(result.image.width == 2)
    }
}
