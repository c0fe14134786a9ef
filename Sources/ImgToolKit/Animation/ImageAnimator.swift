import Foundation
import Observation

/// An observable animated image: the current frame and index change as it plays, for views
/// and other observers (Observation framework).
///
/// Isolation: lives on the main actor, where its properties change; decoding runs off it.
/// Built on ``ImageFrameScheduler``, so the image is prepared once however often it is started.
@MainActor
@Observable
public final class ImageAnimator {
    /// The canvas of the frame on show, or `nil` before the first frame.
    public private(set) var currentFrame: PixelBuffer?
    /// The index of the frame on show, or `nil` before the first frame.
    public private(set) var currentIndex: Int?
    /// How many frames have been shown since the animator was made.
    public private(set) var framesShown = 0
    /// Whether it is playing.
    public private(set) var isAnimating = false
    /// The status of the last playback that ended, or `nil` while none has.
    public private(set) var status: AnimationStatus?

    @ObservationIgnored private let scheduler: ImageFrameScheduler

    /// Creates an animator for the image at `url` (a `file:` or `http(s):` URL).
    public init(
        url: URL, options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock(),
        fetcher: any DataFetching = HTTPFetcher()
    ) {
        scheduler = ImageFrameScheduler(url: url, options: options, clock: clock, fetcher: fetcher)
    }

    /// Creates an animator for the image in `data`.
    public init(
        data: [UInt8], options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock()
    ) {
        scheduler = ImageFrameScheduler(data: data, options: options, clock: clock)
    }

    /// Creates an animator for an image already prepared (any ``FrameSource``).
    public init(
        source: some FrameSource, name: String, options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        scheduler = ImageFrameScheduler(source: source, name: name, options: options, clock: clock)
    }

    /// The error behind a failed ``status``, naming the input.
    public var error: ImgToolError? { scheduler.error }

    /// Starts playing (harmless when already playing).
    /// - Returns: `false` when it cannot start (see ``ImageFrameScheduler/start(frameHandler:completionHandler:)``).
    @discardableResult
    public func startAnimating() -> Bool {
        let started = scheduler.start(
            frameHandler: { [weak self] index, image, _ in
                guard let self else { return }
                self.currentIndex = index
                self.currentFrame = image
                self.framesShown += 1
            },
            completionHandler: { [weak self] status in
                self?.isAnimating = false
                self?.status = status
            })
        isAnimating = started
        if !started { status = scheduler.status }
        return started
    }

    /// Stops playing; the current frame stays.
    public func stopAnimating() {
        scheduler.stop()
        isAnimating = false
        status = scheduler.status
    }

    /// Waits until the current playback ends.
    public func waitUntilFinished() async -> AnimationStatus {
        let result = await scheduler.waitUntilFinished()
        isAnimating = scheduler.isRunning
        status = result
        return result
    }
}
