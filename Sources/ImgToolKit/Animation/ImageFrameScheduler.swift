import Foundation

/// A start/stop player for one image: the object form of ``animateImage(at:options:clock:fetcher:handler:)``.
///
/// Isolation: the scheduler lives on the main actor, where its methods are called and its
/// handlers run; reading, parsing and decoding run off it.
///
/// The image is prepared (read or fetched, and parsed) once, the first time ``start(frameHandler:completionHandler:)``
/// is called, and every later start reuses it. Starting while playing is harmless (it returns
/// `true` and changes nothing); ``stop()`` takes effect before the next frame; starting after
/// a stop plays again from the start index.
@MainActor
public final class ImageFrameScheduler {
    /// How the image is played.
    public let options: AnimationOptions
    private let origin: PlaybackOrigin
    /// The status of the last playback that ended, or `nil` while none has.
    public private(set) var status: AnimationStatus?
    /// The error behind a status other than ``AnimationStatus/ok``, naming the input.
    public private(set) var error: ImgToolError?
    /// Whether frames are being delivered (or frame 0 is being prepared).
    public private(set) var isRunning = false

    private let clock: any Clock<Duration>
    private var preparation: Task<Result<any FrameSource, ImgToolError>, Never>?
    private var preparedFailure: ImgToolError?
    private var playback: Task<Void, Never>?
    private var generation = 0
    private var waiters: [CheckedContinuation<AnimationStatus, Never>] = []

    /// Creates a scheduler for the image at `url` (a `file:` or `http(s):` URL); nothing is read yet.
    /// - Parameters:
    ///   - url: the image.
    ///   - options: how to play. Default: as the file says.
    ///   - clock: where time comes from. Default `ContinuousClock()`.
    ///   - fetcher: fetches http(s) URLs. Default a ``HTTPFetcher``.
    public init(
        url: URL, options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock(),
        fetcher: any DataFetching = HTTPFetcher()
    ) {
        self.origin = .url(url, fetcher: fetcher)
        self.options = options
        self.clock = clock
    }

    /// Creates a scheduler for the image in `data`; nothing is parsed yet.
    /// - Parameters:
    ///   - data: the whole file.
    ///   - name: the name errors use. Default "data".
    ///   - options: how to play. Default: as the file says.
    ///   - clock: where time comes from. Default `ContinuousClock()`.
    public init(
        data: [UInt8], name: String = "data", options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.origin = .input(ImageInput(data: data, name: name), fetcher: nil)
        self.options = options
        self.clock = clock
    }

    /// Creates a scheduler for an image already prepared (any ``FrameSource``).
    /// - Parameters:
    ///   - source: the image.
    ///   - name: the name errors use.
    ///   - options: how to play. Default: as the file says.
    ///   - clock: where time comes from. Default `ContinuousClock()`.
    public init(
        source: some FrameSource, name: String, options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.origin = .source(source)
        self.options = options
        self.clock = clock
    }

    /// Starts playing, calling `frameHandler` on the main actor with each frame index, canvas and
    /// stop flag, and `completionHandler` with the status when playback ends (not after ``stop()``).
    ///
    /// - Returns: `false` when the options are out of range or an earlier preparation of the
    ///   image failed (``status`` and ``error`` say why); `true` otherwise, also when it was
    ///   already playing (then nothing changes).
    @discardableResult
    public func start(
        frameHandler: @escaping @MainActor @Sendable (Int, PixelBuffer, inout Bool) -> Void,
        completionHandler: (@MainActor @Sendable (AnimationStatus) -> Void)? = nil
    ) -> Bool {
        if isRunning { return true }
        do {
            try options.validate()
        } catch {
            finish(.parameterError, error: error, generation: generation)
            return false
        }
        if let preparedFailure {
            finish(AnimationStatus(preparedFailure), error: preparedFailure, generation: generation)
            return false
        }
        let preparation = self.preparation ?? makePreparation()
        self.preparation = preparation
        generation += 1
        let current = generation
        isRunning = true
        status = nil
        error = nil
        let options = self.options
        let clock = self.clock
        // A start/stop API outlives its caller's scope, so playback needs a task of its own; it
        // is cancelled by stop() and inherits the main actor, so only the handlers run there.
        playback = Task {
            let outcome: (AnimationStatus, ImgToolError?)
            switch await preparation.value {
            case .failure(let failure):
                self.preparedFailure = failure
                outcome = (AnimationStatus(failure), failure)
            case .success(let source):
                do throws(ImgToolError) {
                    let report = try await play(source, options: options, clock: clock) { [weak self] frame, stop in
                        guard let self, self.generation == current, self.isRunning else {
                            stop = true
                            return
                        }
                        frameHandler(frame.index, frame.content, &stop)
                    }
                    if case .failed(let failure) = report.outcome {
                        outcome = (report.status, failure)
                    } else {
                        outcome = (report.status, nil)
                    }
                } catch {
                    outcome = (AnimationStatus(error), error.code == .cancelled ? nil : error)
                }
            }
            guard self.generation == current else { return }
            let wasRunning = self.isRunning
            self.finish(outcome.0, error: outcome.1, generation: current)
            if wasRunning { completionHandler?(outcome.0) }
        }
        return true
    }

    /// Stops playing: no frame is delivered after this returns, and the decoding task is
    /// cancelled. ``status`` becomes ``AnimationStatus/ok``. Does nothing when not playing.
    public func stop() {
        guard isRunning else { return }
        playback?.cancel()
        playback = nil
        finish(.ok, error: nil, generation: generation)
    }

    /// Waits until the current playback ends (or returns the last status at once when none runs).
    public func waitUntilFinished() async -> AnimationStatus {
        if !isRunning, let status { return status }
        return await withCheckedContinuation { waiters.append($0) }
    }

    private func makePreparation() -> Task<Result<any FrameSource, ImgToolError>, Never> {
        let origin = self.origin
        let limits = options.limits
        return Task {
            do throws(ImgToolError) {
                return .success(try await origin.open(limits: limits))
            } catch {
                return .failure(error)
            }
        }
    }

    private func finish(_ status: AnimationStatus, error: ImgToolError?, generation: Int) {
        isRunning = false
        self.status = status
        self.error = error
        let resumed = waiters
        waiters = []
        for waiter in resumed { waiter.resume(returning: status) }
    }
}
