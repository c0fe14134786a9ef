import Foundation

@testable import ImgToolKit

/// What a fake source saw: decodes, readers, and on which thread it decoded.
final class SourceRecorder: Sendable {
    struct State {
        var decoded: [Int] = []
        var readersMade = 0
        var readersAlive = 0
        var decodedOnMainThread = 0
    }

    private let state = Locked(State())

    var snapshot: State { state.withLock { $0 } }

    func update(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
    }
}

/// A ``FrameSource`` of solid-colour frames with given delays, for scheduler tests: it can be
/// slow (a frame is ready only at a given virtual time) or fail at a given frame.
struct FakeFrameSource: FrameSource {
    var info: ImageInfo
    var colors: [[UInt8]]
    var failAt: Int?
    var failure = ImgToolError(.corrupt, "fake corrupt frame")
    var readyAt: [Int: Duration] = [:]
    var clock: ManualClock?
    let recorder = SourceRecorder()

    /// `delaysMs.count` frames of 4x2 pixels; frame i is filled with grey level i.
    init(
        delaysMs: [Int], format: ImageFormat = .gif, plays: Int = 1, failAt: Int? = nil,
        readyAt: [Int: Duration] = [:], clock: ManualClock? = nil, isComplete: Bool = true
    ) {
        let frames = delaysMs.enumerated().map { index, delay in
            FrameInfo(
                index: index, delay: .milliseconds(delay), region: FrameRegion(x: 0, y: 0, width: 4, height: 2),
                disposal: .none, blend: .source)
        }
        info = ImageInfo(
            format: format, width: 4, height: 2, bitDepth: 8, colorType: .palette, frames: frames, loopValue: nil,
            plays: plays, isComplete: isComplete)
        colors = delaysMs.indices.map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0), 0, 255] }
        self.failAt = failAt
        self.readyAt = readyAt
        self.clock = clock
    }

    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        recorder.update {
            $0.readersMade += 1
            $0.readersAlive += 1
        }
        return Reader(source: self)
    }

    final class Reader: FrameReader {
        let source: FakeFrameSource
        var next = 0

        init(source: FakeFrameSource) { self.source = source }

        deinit {
            source.recorder.update { $0.readersAlive -= 1 }
        }

        func nextFrame() throws(ImgToolError) -> Frame? {
            guard next < source.info.frameCount else { return nil }
            let index = next
            next += 1
            let onMain = Thread.isMainThread
            source.recorder.update {
                $0.decoded.append(index)
                if onMain { $0.decodedOnMainThread += 1 }
            }
            if index == source.failAt { throw source.failure }
            if let ready = source.readyAt[index] { source.clock?.advance(to: ready) }
            let pixels = (0..<8).flatMap { _ in source.colors[index] }
            return Frame(info: source.info.frames[index], image: PixelBuffer(width: 4, height: 2, rgba8: pixels))
        }
    }
}

/// Delivered frames, collected on the main actor.
@MainActor
final class Deliveries {
    var frames: [AnimationFrame<PixelBuffer>] = []
    var indices: [Int] { frames.map(\.index) }
    var plays: [Int] { frames.map(\.play) }
    var deadlinesMs: [Double] { frames.map(\.deadline.milliseconds) }
}

/// Small still PNGs, made with the library's own encoder.
enum StillPNG {
    static func make(width: Int = 3, height: Int = 2, rgba: [UInt8] = [200, 100, 50, 255]) throws -> [UInt8] {
        let pixels = (0..<width * height).flatMap { _ in rgba }
        return try PNGEncoder().encode(PixelBuffer(width: width, height: height, rgba8: pixels))
    }
}

/// A fetcher that answers from a table and counts requests.
final class FakeFetcher: DataFetching {
    let bodies: [String: [UInt8]]
    private let count = Locked(0)

    init(_ bodies: [String: [UInt8]]) { self.bodies = bodies }

    var requests: Int { count.withLock { $0 } }

    func fetch(
        _ url: URL, name: String, progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws(ImgToolError) -> [UInt8] {
        count.withLock { $0 += 1 }
        guard let body = bodies[url.absoluteString] else {
            throw ImgToolError(.notFound, "the server answered HTTP 404", input: name)
        }
        progress(FetchProgress(bytesSoFar: body.count, total: body.count))
        return body
    }
}
