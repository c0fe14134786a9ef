import Foundation

/// Loads many images at once (files, URLs, standard input) and decodes them, off the main actor.
///
/// Inputs run in a task group with at most ``Options/maxConcurrent`` children in flight: the
/// first N start at once and one more starts as each finishes. Each child returns its input's
/// index with its result, so results come back in input order, not completion order. Without
/// ``Options/keepGoing`` the first failure cancels every other input (a transfer in progress is
/// cancelled, an input not yet started never starts); with it, every input runs to its end.
///
/// Every input reports its ``LoadState`` changes to the observer given at creation, from the
/// task doing the work (the observer must not block: yield into an `AsyncStream`, or hop to the
/// main actor itself). Remote inputs go through the ``DataFetching`` fetcher, and the same URL
/// named twice is fetched once. Decoding runs in a `@concurrent` function, never on the caller's
/// actor; nothing here is isolated to the main actor.
public struct ImageLoader: Sendable {
    /// How inputs are read and decoded.
    public struct Options: Sendable {
        /// Most inputs loading at once. Default: the number of active processor cores.
        public var maxConcurrent: Int
        /// Whether every input runs to its end after a failure (`--keep-going`). Default `false`:
        /// the first failure cancels the rest.
        public var keepGoing: Bool
        /// Decoding limits, checked before pixel memory is allocated.
        public var limits: DecodingLimits
        /// Largest input accepted, in bytes: files, standard input, memory and downloads (a
        /// fetcher may have a cap of its own too). Default ``ImageInput/defaultMaxBytes``.
        public var maxBytes: Int
        /// Orientation and shrink-on-load, for the codecs that have them. Default: upright, full size.
        public var decoding: DecodingOptions
        /// The codecs asked. Default ``CodecRegistry/standard``.
        public var registry: CodecRegistry
        /// Decoded inputs shared with other loaders (a batch's watermark): inputs announced there
        /// more than once are fetched and decoded once. Default `nil`: none.
        public var cache: LoadedImageCache?
        /// Depth of the decoded pixels; `nil` (the default) keeps each file's (16-bit PNG files
        /// give 16-bit buffers, others 8-bit).
        public var depth: SampleDepth?

        /// Creates options; every parameter has the documented default.
        public init(
            maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount, keepGoing: Bool = false,
            limits: DecodingLimits = .default, maxBytes: Int = ImageInput.defaultMaxBytes,
            depth: SampleDepth? = nil, decoding: DecodingOptions = .default, registry: CodecRegistry = .standard,
            cache: LoadedImageCache? = nil
        ) {
            self.cache = cache
            self.maxConcurrent = max(1, maxConcurrent)
            self.keepGoing = keepGoing
            self.limits = limits
            self.maxBytes = maxBytes
            self.depth = depth
            self.decoding = decoding
            self.registry = registry
        }

        /// The key under which ``cache`` keeps `input` loaded with these options (its location,
        /// and the limits, depth and decoding options, so a load with other options never gets
        /// another's image); `nil` for standard input and bytes in memory, which are never kept.
        public func cacheKey(for input: ImageInput) -> String? {
            LoadedImageCache.key(for: input).map { "\(limits)|\(String(describing: depth))|\(decoding)|\($0)" }
        }
    }

    /// The options this loader was made with.
    public let options: Options
    let fetcher: any DataFetching
    let observer: (@Sendable (LoadEvent) -> Void)?
    let coalescer = FetchCoalescer()

    /// Creates a loader.
    /// - Parameters:
    ///   - fetcher: fetches `http(s)` inputs; default a ``HTTPFetcher`` with its defaults.
    ///   - options: concurrency, failure policy, limits.
    ///   - observer: receives every state change of every input, from the working task.
    public init(
        fetcher: any DataFetching = HTTPFetcher(), options: Options = Options(),
        observer: (@Sendable (LoadEvent) -> Void)? = nil
    ) {
        self.fetcher = fetcher
        self.options = options
        self.observer = observer
    }

    /// Loads every input, in input order.
    ///
    /// - Parameter inputs: the inputs; the index of each in this array is its ``LoadEvent/index``
    ///   plus `firstIndex`.
    /// - Parameter firstIndex: added to each position for the events (the merger numbers its
    ///   background 0). Default 0.
    /// - Returns: one image per input, in the same order.
    /// - Throws: ``ImgToolError`` naming the failing input: the first failure in time without
    ///   ``Options/keepGoing``, the first in input order with it; `cancelled` when the calling
    ///   task is cancelled.
    public func load(_ inputs: [ImageInput], firstIndex: Int = 0) async throws(ImgToolError) -> [LoadedImage] {
        let (results, firstFailure) = await run(inputs, firstIndex: firstIndex)
        if let firstFailure { throw firstFailure }
        var images: [LoadedImage] = []
        images.reserveCapacity(results.count)
        for result in results { images.append(try result.get()) }
        return images
    }

    /// Loads every input and returns each one's result, in input order, failures included.
    ///
    /// Without ``Options/keepGoing``, inputs cancelled or never started after the first failure
    /// come back as `cancelled` errors naming them.
    public func loadResults(_ inputs: [ImageInput], firstIndex: Int = 0) async -> [Result<LoadedImage, ImgToolError>] {
        await run(inputs, firstIndex: firstIndex).results
    }

    /// ``loadResults(_:firstIndex:)`` for inputs whose uses the caller has already announced with
    /// ``expect(_:)``, together with the loads it runs beside this one, before starting any of
    /// them: a URL that another load finishes first is then still shared, not fetched again.
    func loadAnnouncedResults(_ inputs: [ImageInput], firstIndex: Int) async -> [Result<LoadedImage, ImgToolError>] {
        await run(inputs, firstIndex: firstIndex, announced: true).results
    }

    /// Loads one input (reporting its states under `index`).
    /// - Throws: ``ImgToolError`` naming the input.
    public func load(_ input: ImageInput, index: Int = 0) async throws(ImgToolError) -> LoadedImage {
        try await loadOne(input, index: index).get()
    }

    /// Announces inputs that will be loaded with later calls, so that a URL named more than once
    /// across calls is fetched once and its bytes released after its last use.
    public func expect(_ inputs: [ImageInput]) async {
        await coalescer.expect(inputs.compactMap(Self.remoteKey))
    }

    /// How many remote fetches actually ran so far (coalesced requests count once).
    public var fetchCount: Int {
        get async { await coalescer.fetchCount }
    }

    private func run(
        _ inputs: [ImageInput], firstIndex: Int, announced: Bool = false
    ) async -> (results: [Result<LoadedImage, ImgToolError>], firstFailure: ImgToolError?) {
        if !announced { await coalescer.expect(inputs.compactMap(Self.remoteKey)) }
        var results = [Result<LoadedImage, ImgToolError>?](repeating: nil, count: inputs.count)
        var firstFailure: ImgToolError?
        let keepGoing = options.keepGoing
        let width = min(options.maxConcurrent, inputs.count)
        do {
            try await withThrowingTaskGroup(of: (Int, Result<LoadedImage, ImgToolError>).self) { group in
                var next = 0
                while next < width {
                    let position = next
                    group.addTask { (position, await self.loadOne(inputs[position], index: firstIndex + position)) }
                    next += 1
                }
                while let (position, result) = try await group.next() {
                    results[position] = result
                    if case .failure(let error) = result, firstFailure == nil, !keepGoing {
                        firstFailure = error
                        group.cancelAll()
                    }
                    if next < inputs.count, firstFailure == nil || keepGoing {
                        let position = next
                        group.addTask { (position, await self.loadOne(inputs[position], index: firstIndex + position)) }
                        next += 1
                    }
                }
            }
        } catch {
            // Children return their errors as values; only cancellation can reach here.
        }
        let cause = firstFailure.map { " after \($0.input ?? "another input") failed" } ?? ""
        let filled = results.enumerated().map { position, result in
            result ?? .failure(ImgToolError(.cancelled, "cancelled\(cause)", input: inputs[position].name))
        }
        if keepGoing || firstFailure == nil {
            let firstInOrder = filled.lazy.compactMap { result -> ImgToolError? in
                if case .failure(let error) = result { return error }
                return nil
            }.first
            return (filled, firstInOrder)
        }
        return (filled, firstFailure)
    }

    /// Opens one input (``ImageInput/open(limits:decoding:maxBytes:fetcher:registry:progress:)``,
    /// fetching a URL once however many inputs name it) and decodes its first frame, reporting
    /// each state.
    func loadOne(_ input: ImageInput, index: Int) async -> Result<LoadedImage, ImgToolError> {
        guard let cache = options.cache, let key = options.cacheKey(for: input) else {
            return await loadUncached(input, index: index)
        }
        let result = await cache.image(for: key) { await self.loadUncached(input, index: index) }
        if case .success(let image) = result, image.name != input.name {
            var renamed = image
            renamed.name = input.name
            return .success(renamed)
        }
        return result
    }

    private func loadUncached(_ input: ImageInput, index: Int) async -> Result<LoadedImage, ImgToolError> {
        let report: @Sendable (LoadState) -> Void = { [observer] state in
            observer?(LoadEvent(index: index, name: input.name, state: state))
        }
        report(.loading(bytesSoFar: 0, total: nil))
        do throws(ImgToolError) {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled", input: input.name) }
            let source = try await input.open(
                limits: options.limits, decoding: options.decoding, maxBytes: options.maxBytes,
                fetcher: CoalescingFetcher(base: fetcher, coalescer: coalescer), registry: options.registry,
                progress: { report(.loading(bytesSoFar: $0.bytesSoFar, total: $0.total)) })
            let image = try await Self.firstFrame(of: source, depth: options.depth)
            report(.loaded(image.info))
            return .success(image)
        } catch {
            let named = error.naming(input.name)
            report(.failed(named))
            return .failure(named)
        }
    }

    static func remoteKey(_ input: ImageInput) -> String? {
        if case .remote(let url) = input.location { return url.absoluteString }
        return nil
    }

    /// Decodes the first frame on the global concurrent executor, whatever actor the caller is
    /// on; an animation keeps its source for later frames.
    @concurrent
    static func firstFrame(of source: ImageSource, depth: SampleDepth?) async throws(ImgToolError) -> LoadedImage {
        let reader = try source.makeFrameReader(depth: depth)
        guard let first = try reader.nextFrame() else {
            throw ImgToolError(.corrupt, "the image has no frames", input: source.name)
        }
        let info = source.info
        return LoadedImage(
            name: source.name, info: info, image: first.image, animation: info.isAnimated ? source : nil)
    }
}

/// Fetches through a loader's ``FetchCoalescer``: the same URL asked for by several inputs is
/// fetched once.
private struct CoalescingFetcher: DataFetching {
    let base: any DataFetching
    let coalescer: FetchCoalescer

    func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        let base = self.base
        return try await coalescer.bytes(for: url.absoluteString) { () async throws(ImgToolError) -> [UInt8] in
            try await base.fetch(url, name: name, progress: progress)
        }
    }
}
