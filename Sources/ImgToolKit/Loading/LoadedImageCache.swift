/// Keeps decoded inputs that several loads will ask for, so each is fetched and decoded once:
/// the watermark of a thousand-job batch, say.
///
/// Announce every use first (``expect(_:)``, with ``key(for:)`` of each input); an input
/// announced once is never kept, so a batch of a thousand different photos holds none of them,
/// and a shared one is dropped after its last announced use. Concurrent loads of the same input
/// wait for the first one (its failure too). The actor keeps only the table; loading runs in the
/// first caller's task, off the actor.
public actor LoadedImageCache {
    private typealias Waiter = CheckedContinuation<Result<LoadedImage, ImgToolError>, Never>

    private enum Entry {
        case loading(waiters: [Waiter])
        case done(Result<LoadedImage, ImgToolError>)
    }

    private var remaining: [String: Int] = [:]
    private var entries: [String: Entry] = [:]
    /// How many loads actually ran for inputs that were kept (for tests and diagnostics).
    public private(set) var loadsRun = 0

    /// Creates an empty cache.
    public init() {}

    /// The key under which `input` is kept: its location (a path, a URL).
    public nonisolated static func key(for input: ImageInput) -> String? {
        switch input.location {
        case .file(let path): "file:" + path
        case .remote(let url): url.absoluteString
        case .standardInput, .memory: nil
        }
    }

    /// Announces one more use of each key (a key may repeat).
    public func expect(_ keys: [String]) {
        for key in keys { remaining[key, default: 0] += 1 }
    }

    /// The loaded input for `key`, loading it with `load` when no earlier use did.
    func image(
        for key: String, load: @escaping @Sendable () async -> Result<LoadedImage, ImgToolError>
    ) async -> Result<LoadedImage, ImgToolError> {
        let uses = remaining[key] ?? 0
        guard uses > 1 || entries[key] != nil else {
            remaining[key] = nil
            return await load()
        }
        remaining[key] = uses - 1
        switch entries[key] {
        case .done(let result):
            if uses <= 1 { entries[key] = nil }
            return result
        case .loading(let waiters):
            return await withCheckedContinuation { continuation in
                entries[key] = .loading(waiters: waiters + [continuation])
            }
        case nil:
            entries[key] = .loading(waiters: [])
            loadsRun += 1
            let result = await load()
            if case .loading(let waiters) = entries[key] {
                entries[key] = (remaining[key] ?? 0) > 0 ? .done(result) : nil
                for waiter in waiters { waiter.resume(returning: result) }
            }
            return result
        }
    }
}
