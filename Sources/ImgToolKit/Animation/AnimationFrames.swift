import Foundation

/// The frames of an animation as an `AsyncSequence`, delivered in time.
///
/// Iterating starts playback; each element arrives at its deadline (a consumer slower than the
/// animation gets the newest frame, as a display would). Leaving the loop or cancelling the
/// consuming task stops the animation and frees its decoder. Errors found before frame 0 are
/// thrown from the first `next()`; a frame that fails later ends the sequence with its error.
public struct AnimationFrames: AsyncSequence, Sendable {
    /// A frame with its index, play, deadline and lateness.
    public typealias Element = AnimationFrame<PixelBuffer>

    /// How it is played.
    public let options: AnimationOptions
    private let origin: PlaybackOrigin
    private let clock: any Clock<Duration>

    /// The frames of the image at `url` (a `file:` or `http(s):` URL).
    public init(
        url: URL, options: AnimationOptions = AnimationOptions(), clock: any Clock<Duration> = ContinuousClock(),
        fetcher: any DataFetching = HTTPFetcher()
    ) {
        self.init(origin: .url(url, fetcher: fetcher), options: options, clock: clock)
    }

    /// The frames of the image in `data`.
    public init(
        data: [UInt8], name: String = "data", options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(origin: .input(ImageInput(data: data, name: name), fetcher: nil), options: options, clock: clock)
    }

    /// The frames of `input` (a path, URL, standard input or bytes).
    /// - Parameters:
    ///   - input: the image.
    ///   - options: how to play. Default: as the file says.
    ///   - clock: where time comes from. Default `ContinuousClock()`.
    ///   - fetcher: fetches http(s) inputs. Default a ``HTTPFetcher``.
    public init(
        input: ImageInput, options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock(), fetcher: (any DataFetching)? = nil
    ) {
        self.init(origin: .input(input, fetcher: fetcher), options: options, clock: clock)
    }

    /// The frames of an image already opened.
    public init(
        source: any FrameSource, options: AnimationOptions = AnimationOptions(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(origin: .source(source), options: options, clock: clock)
    }

    private init(origin: PlaybackOrigin, options: AnimationOptions, clock: any Clock<Duration>) {
        self.origin = origin
        self.options = options
        self.clock = clock
    }

    /// Starts playback and returns the iterator that receives its frames.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Element.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let origin = self.origin
        let options = self.options
        let clock = self.clock
        // The sequence hands frames to a consumer in another task, so playback needs a task of
        // its own; ending the iteration (or cancelling its task) cancels it.
        let playback = Task {
            do throws(ImgToolError) {
                try options.validate()
                let source = try await origin.open(limits: options.limits)
                let report = try await play(source, options: options, clock: clock) { frame, _ in
                    continuation.yield(frame)
                }
                if case .failed(let error) = report.outcome {
                    continuation.finish(throwing: error)
                } else {
                    continuation.finish()
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in playback.cancel() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Receives the frames of one playback.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator

        /// The next frame, at its deadline, or `nil` when playback ended or the task was cancelled.
        /// - Throws: ``ImgToolError`` when the image cannot be played.
        public mutating func next() async throws(ImgToolError) -> Element? {
            do {
                return try await base.next()
            } catch let error as ImgToolError {
                throw error
            } catch {
                throw ImgToolError(.cancelled, "playback was cancelled")
            }
        }
    }
}
