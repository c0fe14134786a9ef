import Foundation

/// Decodes the LZW data of a GIF's frames ahead of composition, on helper threads, in a small
/// bounded window.
///
/// Each GIF frame's LZW data stands alone (``GIFSource`` records where each image starts), so
/// frame `i + 1` can be decoded while frame `i` is composited; only composition must go in
/// order. The reader asks for frame `i` with ``indices(of:isCancelled:)``: if a helper has
/// decoded it, it is returned at once; if it is still unclaimed, the reader decodes it itself;
/// if a helper is busy with it, the reader decodes a later frame of the window instead of
/// waiting, so both cores stay busy. Helpers only take frames after the one the reader wants,
/// so frame 0 costs one decode whatever the helpers do.
///
/// Memory is bounded by the screen, not by the frame count: at most `window + 2` buffers of
/// indices exist (one per frame in the window, one being drawn, one spare), each at most the
/// screen's area in bytes. Each decode opens its own giflib session over the shared bytes.
///
/// Helpers are plain threads, not tasks: they run giflib's synchronous C loop for milliseconds
/// at a time, which would block a thread of Swift's cooperative pool, and the reader that owns
/// them is itself synchronous. ``stop()`` ends them: a helper checks between bands of rows,
/// so it returns within a fraction of one frame's decode, and ``stop()`` waits until it has.
///
/// `@unchecked Sendable`: the state below the mutex is only read or written while holding it
/// (`pthread_mutex_t` and `pthread_cond_t`, which ThreadSanitizer understands; see ``Locked``),
/// and a ``GIFFrameIndices`` buffer has a single owner at a time.
final class GIFDecodeAhead: @unchecked Sendable {
    private let source: GIFSource
    /// How many frames after the wanted one may be claimed.
    private let window: Int
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>

    // Guarded by `mutex`.
    /// The frame the reader composites next.
    private var wanted = 0
    /// The first frame nobody has started to decode.
    private var nextUnclaimed = 0
    private var ready: [Int: Result<GIFFrameIndices, ImgToolError>] = [:]
    private var spare: [GIFFrameIndices] = []
    private var stopping = false
    private var runningHelpers = 0

    /// Starts `helpers` threads (0: the reader decodes every frame itself).
    init(source: GIFSource, helpers: Int) {
        self.source = source
        window = max(helpers, 1)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
        runningHelpers = helpers
        for number in 0..<helpers {
            let thread = Thread { [self] in runHelper() }
            thread.name = "imgtool.gif-decode-\(number)"
            thread.start()
        }
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// How many helper threads pay off for `source` on this machine: one fewer than the cores
    /// (the reader decodes too), at most 3, and none for a still image or an animation with
    /// fewer than 256 Ki pixels to decode in all, where starting a thread costs more than it
    /// saves.
    static func helpers(for source: GIFSource) -> Int {
        guard source.frames.count > 1 else { return 0 }
        let pixels = source.frames.reduce(0) { $0 + $1.info.region.width * $1.info.region.height }
        guard pixels >= 1 << 18 else { return 0 }
        return min(ProcessInfo.processInfo.activeProcessorCount - 1, 3)
    }

    /// The decoded frame `index`. Frames must be asked for in order, each once; give each buffer
    /// back with ``recycle(_:)`` once it is drawn.
    /// - Parameter isCancelled: checked while the reader decodes a frame itself.
    /// - Throws: ``ImgToolError`` from decoding frame `index` (`corrupt`, `cancelled`).
    func indices(of index: Int, isCancelled: () -> Bool) throws(ImgToolError) -> GIFFrameIndices {
        lock()
        defer { unlock() }
        wanted = index
        pthread_cond_broadcast(changed)
        while true {
            if let result = ready.removeValue(forKey: index) {
                pthread_cond_broadcast(changed)  // the window moved: helpers may claim more
                return try result.get()
            }
            if let claimed = claim(after: index - 1) {
                decodeUnlocked(claimed, shouldStop: isCancelled)
            } else if nextUnclaimed <= index {
                // Nobody has the frame and nobody may take it: ``stop()`` was called.
                throw ImgToolError(.cancelled, "GIF decoding stopped before frame \(index)")
            } else {
                pthread_cond_wait(changed, mutex)
            }
        }
    }

    /// Takes back a buffer for a later frame.
    func recycle(_ buffer: GIFFrameIndices) {
        lock()
        spare.append(buffer)
        unlock()
    }

    /// Ends the helpers and waits until they have returned; safe to call more than once.
    func stop() {
        lock()
        stopping = true
        pthread_cond_broadcast(changed)
        while runningHelpers > 0 { pthread_cond_wait(changed, mutex) }
        ready.removeAll()
        spare.removeAll()
        unlock()
    }

    // MARK: - Internals

    private func runHelper() {
        lock()
        while !stopping {
            if let claimed = claim(after: wanted) {
                decodeUnlocked(claimed, shouldStop: { [self] in isStopping })
            } else {
                pthread_cond_wait(changed, mutex)
            }
        }
        runningHelpers -= 1
        pthread_cond_broadcast(changed)
        unlock()
    }

    /// Claims the first unclaimed frame if it is after `floor` and inside the window. Call with
    /// the mutex held.
    private func claim(after floor: Int) -> Int? {
        let index = nextUnclaimed
        guard !stopping, index > floor, index < source.frames.count, index <= wanted + window else { return nil }
        nextUnclaimed += 1
        return index
    }

    /// Decodes frame `index` with the mutex released, then files the result. Call with the mutex
    /// held; it is held again on return. After a failure nothing more is claimed: frames after
    /// a broken one are never shown.
    private func decodeUnlocked(_ index: Int, shouldStop: () -> Bool) {
        let buffer = spare.popLast() ?? GIFFrameIndices()
        unlock()
        let result: Result<GIFFrameIndices, ImgToolError>
        do {
            try Self.decode(source.frames[index], of: source, into: buffer, shouldStop: shouldStop)
            result = .success(buffer)
        } catch {
            result = .failure(error)
        }
        lock()
        ready[index] = result
        if case .failure = result { nextUnclaimed = source.frames.count }
        pthread_cond_broadcast(changed)
    }

    private var isStopping: Bool {
        lock()
        defer { unlock() }
        return stopping
    }

    private func lock() { pthread_mutex_lock(mutex) }
    private func unlock() { pthread_mutex_unlock(mutex) }

    /// Decodes one frame in a giflib session of its own, positioned at the frame's image
    /// descriptor, and checks that the descriptor still reads as it did when the file was parsed.
    static func decode(
        _ frame: GIFSource.Frame, of source: GIFSource, into buffer: GIFFrameIndices, shouldStop: () -> Bool
    ) throws(ImgToolError) {
        let index = frame.info.index
        let decoder = try GIFDecoder(data: source.data)
        defer { decoder.close() }
        decoder.seek(toRecordAt: frame.offset)
        guard try decoder.nextRecord("frame \(index)'s image descriptor") == .image else {
            throw ImgToolError(.corrupt, "corrupt GIF: frame \(index) is no longer at byte \(frame.offset)")
        }
        let header = try decoder.readImageHeader("frame \(index)'s image descriptor")
        guard header.region == frame.info.region else {
            throw ImgToolError(
                .corrupt,
                "corrupt GIF: frame \(index) reads as \(header.region), not \(frame.info.region) as first parsed")
        }
        try decoder.decodeIndices(
            header, into: buffer, screenWidth: source.info.width, screenHeight: source.info.height,
            shouldStop: shouldStop, "frame \(index)'s image data")
    }
}
