import Foundation

/// Plays the animated image at `url`, calling `handler` on the main actor with each frame, as
/// Apple ImageIO's `CGAnimateImageAtURLWithBlock` does on the main queue.
///
/// The file is read (or fetched, for http and https) and its structure parsed off the main
/// actor; frame 0 is delivered as soon as it is decoded, and each later frame is decoded while
/// the one before it is on show.
///
/// - Parameters:
///   - url: a `file:` URL or an `http:`/`https:` URL.
///   - options: start index, delay and loop overrides, timing policies. Default: as the file says.
///   - clock: where time comes from. Default `ContinuousClock()`.
///   - fetcher: fetches http(s) URLs. Default a ``HTTPFetcher``.
///   - handler: called on the main actor with the frame index, the composited canvas, and a
///     stop flag; set it to `true` and no further frame is delivered.
/// - Returns: ``AnimationStatus/ok`` when the animation ended or was stopped; otherwise the
///   status of the problem, returned before any frame for problems found up front (a missing
///   file is ``AnimationStatus/parameterError``, an unknown format
///   ``AnimationStatus/unsupportedFormat``, a damaged file ``AnimationStatus/corruptInputImage``,
///   a cut-short file ``AnimationStatus/incompleteInputImage``).
@discardableResult
public func animateImage(
    at url: URL, options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock(),
    fetcher: any DataFetching = HTTPFetcher(),
    handler: @escaping @MainActor @Sendable (Int, PixelBuffer, inout Bool) -> Void
) async -> AnimationStatus {
    await animate(.url(url, fetcher: fetcher), options: options, clock: clock, handler: handler)
}

/// Plays the animated image in `data`, calling `handler` on the main actor with each frame, as
/// Apple ImageIO's `CGAnimateImageDataWithBlock` does.
///
/// - Parameters:
///   - data: the whole file.
///   - options: start index, delay and loop overrides, timing policies. Default: as the file says.
///   - clock: where time comes from. Default `ContinuousClock()`.
///   - handler: called on the main actor with the frame index, the composited canvas, and a
///     stop flag.
/// - Returns: the status, as ``animateImage(at:options:clock:fetcher:handler:)`` returns it.
@discardableResult
public func animateImage(
    data: [UInt8], options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock(),
    handler: @escaping @MainActor @Sendable (Int, PixelBuffer, inout Bool) -> Void
) async -> AnimationStatus {
    await animate(.input(ImageInput(data: data), fetcher: nil), options: options, clock: clock, handler: handler)
}

/// Prepares `input` and plays it; every error becomes a status.
func animate(
    _ origin: PlaybackOrigin, options: AnimationOptions, clock: any Clock<Duration>,
    handler: @escaping @MainActor @Sendable (Int, PixelBuffer, inout Bool) -> Void
) async -> AnimationStatus {
    do {
        try options.validate()
        let source = try await origin.open(limits: options.limits)
        let report = try await play(source, options: options, clock: clock) { frame, stop in
            handler(frame.index, frame.content, &stop)
        }
        return report.status
    } catch {
        return AnimationStatus(error)
    }
}

/// Plays `source` on an existential clock (opened for ``AnimationScheduler``).
func play<C: Clock<Duration>>(
    _ source: any FrameSource, options: AnimationOptions, clock: C,
    handler: @escaping @MainActor @Sendable (AnimationFrame<PixelBuffer>, inout Bool) -> Void
) async throws(ImgToolError) -> AnimationReport {
    try await AnimationScheduler(options: options, clock: clock).play(source, handler: handler)
}
