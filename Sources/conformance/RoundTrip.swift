// `conformance --roundtrip gif`: every `ok` GIF and APNG entry of the corpus is written as a GIF
// through `CodecRegistry.standard` and decoded back.
//
// When the input fits a GIF (every frame at most 256 colours, the transparent index aside, and
// alpha only 0 or 255), the GIF must decode to exactly the input's frames, delays and plays: a
// GIF input frame for frame with its delays as stored; an APNG input as GIFTiming rounds its
// milliseconds (stored delays of 10 ms or less read as 100 ms, frames under 20 ms folded by
// WrittenTiming, identical consecutive frames merged, delays summed). Otherwise the GIF must decode, with the same frame count and timing.
import Foundation
import ImgToolKit

/// One frame as shown: normalized RGBA8 samples and how long, in centiseconds.
struct ShownFrame: Equatable {
    var samples: [UInt8]
    var centiseconds: Int
}

/// Runs the round trip over `entries`; returns (passed, failed) and prints one line per failure.
/// With `save`, each GIF written is kept there as `<entry file name>.gif`.
func runGIFRoundTrip(
    entries: [[String: Any]], corpus: String, only: [String], verbose: Bool, save: String?
) async -> (Int, Int) {
    var passed = 0
    var failed = 0
    if let save {
        do {
            try FileManager.default.createDirectory(atPath: save, withIntermediateDirectories: true)
        } catch {
            print("cannot create \(save): \(error.localizedDescription)")
            return (0, 1)
        }
    }
    for entry in entries {
        guard let file = entry["file"] as? String, entry["expect"] as? String ?? "ok" == "ok" else { continue }
        let group = String(file.prefix { $0 != "/" })
        guard group == "gif" || group == "apng" else { continue }
        if !only.isEmpty && !only.contains(group) { continue }
        let path = corpus + "/" + file
        var problems: [String]
        var exact = false
        do throws(ImgToolError) {
            let result = try await roundTripProblems(path: path)
            (problems, exact) = (result.problems, result.exact)
            if let save {
                let name = save + "/" + (file.split(separator: "/").last.map(String.init) ?? file) + ".gif"
                if !FileManager.default.createFile(atPath: name, contents: Data(result.written)) {
                    problems.append("cannot save \(name)")
                }
            }
        } catch {
            problems = ["\(error)"]
        }
        if problems.isEmpty {
            passed += 1
            if verbose { print("ok   \(file) (\(exact ? "exact" : "quantized"))") }
        } else {
            failed += 1
            print("FAIL \(file): " + problems.joined(separator: "; "))
        }
    }
    return (passed, failed)
}

/// Every frame of `source` at 8 bits, with alpha-0 pixels as (0, 0, 0, 0).
func normalizedFrames(_ source: any FrameSource) throws(ImgToolError) -> [[UInt8]] {
    var frames: [[UInt8]] = []
    let reader = try source.makeFrameReader(depth: .eight)
    while let frame = try reader.nextFrame() {
        guard case .rgba8(var samples) = frame.image.samples else { continue }
        for position in stride(from: 0, to: samples.count, by: 4) where samples[position + 3] == 0 {
            samples[position] = 0
            samples[position + 1] = 0
            samples[position + 2] = 0
        }
        frames.append(samples)
    }
    return frames
}

/// Whether frames fit a GIF exactly: alpha only 0 or 255, and each frame's colours fit a palette
/// (at most 256 opaque colours, 255 when some pixel is transparent), or the colours of the pixels
/// it changes from the frame before fit in 255 (the transparent index keeps the rest) and it
/// turns no opaque pixel transparent.
func fitsGIF(_ frames: [[UInt8]]) -> Bool {
    var previous: [UInt32]?
    for samples in frames {
        var pixels = [UInt32](repeating: 0, count: samples.count / 4)
        for position in pixels.indices {
            let alpha = samples[position * 4 + 3]
            guard alpha == 0 || alpha == 255 else { return false }
            if alpha == 255 {
                pixels[position] =
                    1 << 24 | UInt32(samples[position * 4]) | UInt32(samples[position * 4 + 1]) << 8
                    | UInt32(samples[position * 4 + 2]) << 16
            }
        }
        let opaque = Set(pixels.filter { $0 != 0 })
        let fitsWhole = opaque.count + (pixels.contains(0) ? 1 : 0) <= 256
        if !fitsWhole {
            guard let before = previous else { return false }
            let changed = zip(pixels, before).filter { $0.0 != $0.1 }
            if changed.contains(where: { $0.0 == 0 }) || Set(changed.map(\.0)).count > 255 { return false }
        }
        previous = pixels
    }
    return true
}

/// The frames a GIF writer must show for `frames` of `info`, by GIFTiming's rules; alpha
/// thresholded at 128 first when `threshold` is set.
func expectedShown(_ frames: [[UInt8]], info: ImageInfo, threshold: Bool) -> [ShownFrame] {
    let isGIF = info.format == .gif
    let delays = GIFTiming.centiseconds(for: info)
    var shown: [ShownFrame] = []
    for (index, samples) in frames.enumerated() {
        guard index < delays.count, let delay = delays[index] else { continue }
        var pixels = samples
        if threshold {
            for position in stride(from: 0, to: pixels.count, by: 4) {
                if pixels[position + 3] < 128 {
                    pixels.replaceSubrange(position..<position + 4, with: [0, 0, 0, 0])
                } else {
                    pixels[position + 3] = 255
                }
            }
        }
        if !isGIF, let last = shown.last, last.samples == pixels {
            shown[shown.count - 1].centiseconds += delay
        } else {
            shown.append(ShownFrame(samples: pixels, centiseconds: delay))
        }
    }
    return shown
}

/// What went wrong writing `path` as a GIF and reading it back, whether the input fits a GIF
/// exactly, and the GIF.
func roundTripProblems(path: String) async throws(ImgToolError) -> (
    problems: [String], exact: Bool, written: [UInt8]
) {
    let source = try ImageSource(contentsOf: path)
    let frames = try normalizedFrames(source)
    var sink = ByteSink()
    let codec = try CodecRegistry.standard.writer(forOutput: "roundtrip.gif")
    try await codec.write(source, into: &sink, options: ImageWriteOptions(), progress: nil)
    let written = try ImageSource(data: sink.bytes, name: path + " as GIF")
    guard written.info.format == .gif else { return (["the writer did not write a GIF"], false, sink.bytes) }
    let back = try normalizedFrames(written)
    let got = zip(back, written.info.frames).map {
        ShownFrame(samples: $0, centiseconds: Int($1.delayMilliseconds / 10))
    }

    var problems: [String] = []
    // Judged on the frames shown (the writer skips frames GIFTiming folds away).
    let asGiven = expectedShown(frames, info: source.info, threshold: false)
    let exact = fitsGIF(asGiven.map(\.samples))
    let want = exact ? asGiven : expectedShown(frames, info: source.info, threshold: true)
    if written.info.plays != source.info.plays {
        problems.append("plays \(written.info.plays), expected \(source.info.plays)")
    }
    if got.count != want.count {
        problems.append("\(got.count) frames, expected \(want.count)")
    } else if got.map(\.centiseconds) != want.map(\.centiseconds) {
        problems.append("delays (cs) \(got.map(\.centiseconds)), expected \(want.map(\.centiseconds))")
    } else if exact {
        let differing = zip(got, want).enumerated().filter { $0.element.0.samples != $0.element.1.samples }.map(
            \.offset)
        if !differing.isEmpty { problems.append("frames \(differing.prefix(8)) differ (the input fits a GIF)") }
    }
    return (problems, exact, sink.bytes)
}
