/// Keeps the transformed frames of a looping animation, so that later plays are shown without
/// decoding, compositing or transforming anything again.
///
/// A terminal player turns every 1920x1080 canvas into a picture a hundred cells wide: the
/// picture is a few kilobytes, the work to make it tens of milliseconds. Once every frame's
/// picture is stored, ``AnimationScheduler/play(_:transform:cache:handler:)`` serves the next
/// plays from the cache and frees the frame reader (and its canvases).
///
/// Memory stays bounded: the cache holds at most `byteBudget` bytes of content, as `cost`
/// measures it. When the frames of one play do not fit, the cache empties itself and stops
/// storing for good: playback then decodes every play, as without a cache.
///
/// Content can go stale (a terminal resized after a frame was scaled): `isCurrent` tells which
/// stored content may still be shown; a play is served from the cache only when every frame's
/// content is current, and stale entries are replaced as frames are decoded again.
///
/// Shared between the producer that fills it and whoever reads ``storedBytes``; every access
/// takes a lock.
public final class PlaybackCache<Content: Sendable>: Sendable {
    private struct State {
        var entries: [Int: (content: Content, cost: Int)] = [:]
        var bytes = 0
        var overBudget = false
    }

    /// The most content, in bytes as `cost` measures it, the cache holds.
    public let byteBudget: Int
    private let cost: @Sendable (Content) -> Int
    private let isCurrent: @Sendable (Content) -> Bool
    private let state = Locked(State())

    /// Creates an empty cache.
    /// - Parameters:
    ///   - byteBudget: the most content the cache holds, in bytes.
    ///   - cost: the bytes one frame's content takes.
    ///   - isCurrent: whether stored content may still be shown; default: always.
    public init(
        byteBudget: Int, cost: @escaping @Sendable (Content) -> Int,
        isCurrent: @escaping @Sendable (Content) -> Bool = { _ in true }
    ) {
        self.byteBudget = byteBudget
        self.cost = cost
        self.isCurrent = isCurrent
    }

    /// The bytes of content held now.
    public var storedBytes: Int { state.withLock { $0.bytes } }

    /// Whether the frames did not fit in the budget (the cache then stays empty).
    public var isOverBudget: Bool { state.withLock { $0.overBudget } }

    /// Stores the content of frame `index`, replacing what was there.
    func store(_ content: Content, index: Int) {
        let size = max(cost(content), 0)
        state.withLock { state in
            guard !state.overBudget else { return }
            if let old = state.entries[index] { state.bytes -= old.cost }
            state.entries[index] = (content, size)
            state.bytes += size
            if state.bytes > byteBudget {
                state = State(entries: [:], bytes: 0, overBudget: true)
            }
        }
    }

    /// The content of every frame `0..<frameCount`, in order, when all of it is stored and
    /// current; `nil` otherwise.
    func completePlay(frameCount: Int) -> [Content]? {
        let stored: [Content]? = state.withLock { state in
            guard !state.overBudget, frameCount > 0, state.entries.count >= frameCount else { return nil }
            var contents: [Content] = []
            contents.reserveCapacity(frameCount)
            for index in 0..<frameCount {
                guard let entry = state.entries[index] else { return nil }
                contents.append(entry.content)
            }
            return contents
        }
        // `isCurrent` is the owner's code: call it outside the lock.
        guard let stored, stored.allSatisfy(isCurrent) else { return nil }
        return stored
    }
}
