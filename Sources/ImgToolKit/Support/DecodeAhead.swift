import Foundation

/// Decodes the frames of an animation ahead of composition, on helper threads, in a small
/// bounded window, and hands them over strictly in order.
///
/// The expensive part of a GIF or APNG frame (LZW or zlib data through giflib or libpng) does
/// not depend on the frames before it; composition does (transparency, blending, disposal). So a
/// reader asks for frame `i` with ``decoded(_:isCancelled:)`` and composes it while helpers
/// decode frames `i + 1` and on. If a helper has finished frame `i`, it is returned at once; if
/// nobody has started it, the reader decodes it itself; if a helper is busy with it, the reader
/// decodes a later frame of the window instead of waiting, so every core stays busy. Helpers only
/// take frames after the one the reader wants, so frame 0 costs one decode whatever they do.
///
/// Memory is bounded by the window, not by the frame count: at most `window + 2` decoded frames
/// exist at once (the window, the one being composed, one spare). Decoded values handed back
/// with ``recycle(_:)`` are offered to later decodes, so buffers are reused.
///
/// Helpers are plain threads, not tasks: each decode is milliseconds of synchronous C that would
/// block a thread of Swift's cooperative pool, and the readers that own them are synchronous.
/// ``stop()`` ends them: a decode checks its `shouldStop` between bands of rows, so a helper
/// returns within a fraction of one frame's decode, and ``stop()`` waits until it has. An owner
/// must call ``stop()`` (readers do in `deinit`): helpers keep the pipeline alive until then.
///
/// After a frame fails, nothing more is decoded; the frames before it are still delivered, and
/// asking for the failed frame or any later one throws its error.
///
/// `@unchecked Sendable`: the state below the lock is only read or written while holding it
/// (a ``ConditionLock``, which ThreadSanitizer understands),
/// and a decoded value has one owner at a time: the thread decoding it, then the table, then
/// the reader.
final class DecodeAhead<Decoded: Sendable>: @unchecked Sendable {
    /// Decodes frame `index`, reusing `spare` (an earlier, recycled result) if it can; throws
    /// `cancelled` soon after `shouldStop` returns `true`.
    typealias Decode =
        @Sendable (_ index: Int, _ spare: Decoded?, _ shouldStop: () -> Bool) throws(ImgToolError) ->
        Decoded

    private let frameCount: Int
    private let decode: Decode
    /// How many frames after the wanted one may be claimed.
    private let window: Int
    /// Helpers wait until the reader asks for this frame.
    private let helpersStartAt: Int
    /// Broadcast on every change of the state below.
    private let changed = ConditionLock()

    // Guarded by `changed`.
    /// The frame the reader composes next.
    private var wanted = 0
    /// The frame the reader may ask for next.
    private var nextToDeliver = 0
    /// The first frame nobody has started to decode.
    private var nextUnclaimed = 0
    private var ready: [Int: Decoded] = [:]
    private var failure: (index: Int, error: ImgToolError)?
    private var spare: [Decoded] = []
    private var stopping = false
    private var runningHelpers = 0

    /// Starts `helpers` threads (0: the reader decodes every frame itself).
    /// - Parameters:
    ///   - helpersStartAt: the frame whose request starts the helpers: 1 for a first frame that
    ///     uses every core itself, to be decoded, drawn and shown, before anything else runs (the
    ///     reader asks for frame 1 only once frame 0 is on its way to the screen).
    ///   - window: how many frames after the wanted one may be decoded ahead, at least 1; `nil`
    ///     (the default) and anything larger mean `helpers + 2`. Large frames want a smaller
    ///     window: memory is about `window + 2` decoded frames.
    init(frameCount: Int, helpers: Int, helpersStartAt: Int = 0, window: Int? = nil, decode: @escaping Decode) {
        self.frameCount = frameCount
        self.decode = decode
        self.helpersStartAt = helpersStartAt
        self.window = min(max(window ?? helpers + 2, 1), helpers + 2)
        runningHelpers = helpers
        for number in 0..<helpers {
            let thread = Thread { [self] in runHelper() }
            thread.name = "imgtool.decode-\(number)"
            thread.start()
        }
    }

    /// How many helper threads pay off for an animation on this machine: one fewer than the
    /// cores (the reader decodes too), at most 3, and none for a still image or an animation
    /// with fewer than 256 Ki pixels to decode in all, where starting a thread costs more than
    /// it saves.
    static func helpers(frameCount: Int, pixels: Int) -> Int {
        guard frameCount > 1, pixels >= 1 << 18 else { return 0 }
        return max(min(availableProcessors - 1, 3), 0)
    }

    /// Decoded frame `index`. Ask for frames in order, each once, from 0; give each value back
    /// with ``recycle(_:)`` once it is composed.
    /// - Parameter isCancelled: checked while the reader decodes a frame itself.
    /// - Throws: ``ImgToolError`` from decoding frame `index` or an earlier one; `cancelled`
    ///   after ``stop()``.
    func decoded(_ index: Int, isCancelled: () -> Bool) throws(ImgToolError) -> Decoded {
        lock()
        defer { unlock() }
        guard index == nextToDeliver, index < frameCount else {
            throw ImgToolError(
                .invalidArgument, "frame \(index) asked for out of order (expected \(nextToDeliver) of \(frameCount))")
        }
        wanted = index
        changed.broadcast()
        while true {
            if let value = ready.removeValue(forKey: index) {
                nextToDeliver += 1
                changed.broadcast()  // the window moved: helpers may claim more
                return value
            }
            if let failure, index >= failure.index { throw failure.error }
            // After ``stop()`` nothing is decoded, and what helpers had decoded is gone.
            if stopping { throw ImgToolError(.cancelled, "decoding stopped before frame \(index)") }
            if let claimed = claim(after: index - 1) {
                decodeUnlocked(claimed, shouldStop: isCancelled)
            } else {
                changed.wait()  // a helper has the frame
            }
        }
    }

    /// Takes back a decoded value for a later frame to reuse.
    func recycle(_ value: Decoded) {
        lock()
        if !stopping { spare.append(value) }
        unlock()
    }

    /// Ends the helpers and waits until they have returned; safe to call more than once.
    func stop() {
        lock()
        stopping = true
        changed.broadcast()
        while runningHelpers > 0 { changed.wait() }
        ready.removeAll()
        spare.removeAll()
        unlock()
    }

    // MARK: - Internals

    private func runHelper() {
        lock()
        while !stopping {
            if wanted >= helpersStartAt, let claimed = claim(after: wanted) {
                decodeUnlocked(claimed, shouldStop: { [self] in isStopping })
            } else {
                changed.wait()
            }
        }
        runningHelpers -= 1
        changed.broadcast()
        unlock()
    }

    /// Claims the first unclaimed frame if it is after `floor` and inside the window. Call with
    /// the lock held.
    private func claim(after floor: Int) -> Int? {
        let index = nextUnclaimed
        guard !stopping, failure == nil, index > floor, index < frameCount, index <= wanted + window else {
            return nil
        }
        nextUnclaimed += 1
        return index
    }

    /// Decodes frame `index` with the lock released, then files the result. Call with the lock
    /// held; it is held again on return.
    private func decodeUnlocked(_ index: Int, shouldStop: () -> Bool) {
        let reuse = spare.popLast()
        unlock()
        let result: Result<Decoded, ImgToolError>
        do {
            result = .success(try decode(index, reuse, shouldStop))
        } catch {
            result = .failure(error)
        }
        lock()
        switch result {
        case .success(let value):
            ready[index] = value
        case .failure(let error):
            if failure.map({ index < $0.index }) ?? true { failure = (index, error) }
        }
        changed.broadcast()
    }

    private var isStopping: Bool {
        lock()
        defer { unlock() }
        return stopping
    }

    private func lock() { changed.lock() }
    private func unlock() { changed.unlock() }
}
