import Foundation
import ImgToolKit

/// A batch's fetcher: a URL that several jobs name is fetched once for the whole batch, its bytes
/// kept until its last announced use; a URL named once is fetched and forgotten.
actor BatchFetcher: DataFetching {
    private typealias Waiter = CheckedContinuation<Result<[UInt8], ImgToolError>, Never>

    private enum Entry {
        case fetching([Waiter])
        case done(Result<[UInt8], ImgToolError>)
    }

    private let base: any DataFetching
    private var remaining: [String: Int] = [:]
    private var entries: [String: Entry] = [:]
    /// How many fetches actually ran.
    private(set) var fetchCount = 0

    init(base: any DataFetching) {
        self.base = base
    }

    /// Announces one use of each URL (a URL may repeat).
    func expect(_ urls: [String]) {
        for url in urls { remaining[url, default: 0] += 1 }
    }

    nonisolated func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        let result = await bytes(for: url, name: name, progress: progress)
        switch result {
        case .success(let bytes): return bytes
        case .failure(let error):
            var named = error
            named.input = name
            throw named
        }
    }

    private func bytes(
        for url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async -> Result<[UInt8], ImgToolError> {
        let key = url.absoluteString
        let uses = remaining[key] ?? 0
        remaining[key] = max(uses - 1, 0)
        switch entries[key] {
        case .done(let result):
            if uses <= 1 { entries[key] = nil }
            return result
        case .fetching(let waiters):
            return await withCheckedContinuation { entries[key] = .fetching(waiters + [$0]) }
        case nil:
            entries[key] = .fetching([])
            fetchCount += 1
            let base = self.base
            let result: Result<[UInt8], ImgToolError>
            do throws(ImgToolError) {
                result = .success(try await base.fetch(url, name: name, progress: progress))
            } catch {
                result = .failure(error)
            }
            if case .fetching(let waiters) = entries[key] {
                entries[key] = (remaining[key] ?? 0) > 0 && !Self.isCancellation(result) ? .done(result) : nil
                for waiter in waiters { waiter.resume(returning: result) }
            }
            return result
        }
    }

    private static func isCancellation(_ result: Result<[UInt8], ImgToolError>) -> Bool {
        if case .failure(let error) = result { return error.code == .cancelled }
        return false
    }
}
