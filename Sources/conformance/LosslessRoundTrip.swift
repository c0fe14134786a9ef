// `conformance --roundtrip png|avif|jxl`: every decodable `ok` entry of the corpus (any format
// this build reads) is written losslessly as PNG (APNG), AVIF or JPEG XL through
// `CodecRegistry.standard` and decoded back; the frames must be the same pixels (alpha-0 pixels
// compared as 0) and the delays the same (PNG: exactly, as APNG keeps fractions, with a run of
// identical consecutive frames stored once for their summed delays; AVIF and JPEG
// XL: the same milliseconds (a grey-profiled source as sRGB, as every RGB writer takes it;
// written in whole milliseconds from the running sum, 1 ms at
// least). Deeper inputs are compared at 16 bits: exactly for JPEG XL, within half a 12-bit step
// for AVIF (12 bits cannot hold 16). For jxl, every JPEG entry is also recompressed
// and rebuilt: the JPEG must come back byte for byte, and the JPEG XL be smaller unless the JPEG
// is under 2 KB (container and reconstruction data outweigh what tiny files save).
// Entries over `maxPixels` per frame (default 1 MP) are counted and skipped, to bound CI time.
import Foundation
import ImgToolKit

func runLosslessRoundTrip(
    format: String, entries: [[String: Any]], corpus: String, only: [String], verbose: Bool, maxPixels: Int
) async -> (Int, Int) {
    guard let codec = CodecRegistry.standard.codec(named: format), codec.capabilities.contains(.write) else {
        print("conformance: this build cannot write \(format)")
        return (0, 1)
    }
    var passed = 0
    var failed = 0
    var skipped = 0
    for entry in entries {
        guard let file = entry["file"] as? String, entry["expect"] as? String ?? "ok" == "ok",
            entry["error_ok"] as? Bool != true
        else { continue }
        let group = String(file.prefix { $0 != "/" })
        if !only.isEmpty && !only.contains(group) { continue }
        guard let entryFormat = entry["format"] as? String,
            CodecRegistry.standard.codec(named: entryFormat)?.capabilities.contains(.read) == true
        else { continue }
        let path = corpus + "/" + file
        var problems: [String] = []
        do throws(ImgToolError) {
            let source = try ImageSource(contentsOf: path)
            guard source.info.width * source.info.height <= maxPixels else {
                skipped += 1
                continue
            }
            problems = try await losslessProblems(source, codec: codec)
            if format == "jxl", source.info.format == .jpeg {
                problems += try await transcodeProblems(source, codec: codec)
            }
        } catch {
            problems = ["\(error)"]
        }
        if problems.isEmpty {
            passed += 1
            if verbose { print("ok   \(file)") }
        } else {
            failed += 1
            print("FAIL \(file): " + problems.joined(separator: "; "))
        }
    }
    print("skipped \(skipped) entries over \(maxPixels) pixels a frame")
    return (passed, failed)
}

/// What differs between `source` and its lossless `codec` round trip.
private func losslessProblems(_ source: ImageSource, codec: any ImageCodec) async throws(ImgToolError) -> [String] {
    var options = ImageWriteOptions()
    options.lossless = true
    var sink = ByteSink()
    // A JPEG would be recompressed, not decoded: its pixels go through as pixels here.
    let pixels = source.info.format == .jpeg ? PixelsOnly(base: source) as any FrameSource : source
    try await codec.write(pixels, into: &sink, options: options, progress: nil)
    let written = try ImageSource(data: sink.bytes, name: "roundtrip." + codec.format.rawValue)
    if source.info.frameCount > 1 && codec.format == .png {
        return try apngProblems(source, written: written)
    }
    var problems: [String] = []
    if written.info.frameCount != source.info.frameCount {
        problems.append("\(written.info.frameCount) frames written, \(source.info.frameCount) read")
    }
    if source.info.frameCount > 1 {
        var sum = Duration.zero
        var expected: [Double] = []
        var previous = 0
        for frame in source.info.frames {
            sum += frame.delay
            let end = Int((sum / .milliseconds(1)).rounded())
            // Both formats give a frame 1 ms at least.
            expected.append(Double(max(end - previous, 1)))
            previous = max(end, previous + 1)
        }
        let got = written.info.frames.map { ($0.delayMilliseconds * 1000).rounded() / 1000 }
        if got != expected { problems.append("delays \(got.prefix(6)), expected \(expected.prefix(6))") }
    }
    // Compared at the source's depth: 16-bit samples exactly in JPEG XL, within half a 12-bit
    // step in AVIF.
    let deep = source.info.bitDepth > 8
    let tolerance = deep && codec.format == .avif ? 65535 / 4095 / 2 + 1 : 0
    let depth: SampleDepth = deep ? .sixteen : .eight
    // A grey profile cannot describe RGB pixels: writers take such images to sRGB.
    let shown: any FrameSource =
        source.info.color.effectiveProfile?.colorSpace == .gray ? source.convertedToSRGB() : source
    let originals = try shown.makeFrameReader(depth: depth)
    let copies = try written.makeFrameReader(depth: depth)
    var index = 0
    while let original = try originals.nextFrame() {
        guard let copy = try copies.nextFrame() else { break }
        let largest = deep ? difference16(original.image, copy.image) : difference(original.image, copy.image).0
        if largest > tolerance {
            problems.append("frame \(index) differs by up to \(largest)")
            break
        }
        index += 1
    }
    return problems
}

/// What differs between an animation and its APNG: the source's frames with each run of
/// identical consecutive frames taken once, for the run's summed delay (the APNG writer stores
/// them so), against the written frames; delays to the microsecond (a fraction such as 1/30 s
/// is held to the attosecond).
private func apngProblems(_ source: ImageSource, written: ImageSource) throws(ImgToolError) -> [String] {
    let depth: SampleDepth = source.info.bitDepth > 8 ? .sixteen : .eight
    var runs: [(image: PixelBuffer, delay: Duration)] = []
    let originals = try source.makeFrameReader(depth: depth)
    while let frame = try originals.nextFrame() {
        let delay = max(frame.info.delay, .zero)
        if let last = runs.last, last.image == frame.image {
            runs[runs.count - 1].delay += delay
        } else {
            runs.append((frame.image, delay))
        }
    }
    var problems: [String] = []
    if written.info.frameCount != runs.count {
        problems.append(
            "\(written.info.frameCount) frames written, \(runs.count) shown (\(source.info.frameCount) read)")
    }
    let got = written.info.frames.map { ($0.delay / .microseconds(1)).rounded() }
    let expected = runs.map { ($0.delay / .microseconds(1)).rounded() }
    if got != expected { problems.append("delays \(got.prefix(6)), expected \(expected.prefix(6))") }
    let copies = try written.makeFrameReader(depth: depth)
    for (index, run) in runs.enumerated() {
        guard let copy = try copies.nextFrame() else { break }
        let largest = depth == .sixteen ? difference16(run.image, copy.image) : difference(run.image, copy.image).0
        if largest > 0 {
            problems.append("frame \(index) differs by up to \(largest)")
            break
        }
    }
    return problems
}

/// A JPEG recompressed into JPEG XL with all its metadata (`--keep-gps`) must come back byte for
/// byte, and be smaller; recompressed by default, it must come back without a GPS position.
private func transcodeProblems(_ source: ImageSource, codec: any ImageCodec) async throws(ImgToolError) -> [String] {
    let all = ImageWriteOptions(metadata: .keepWithGPS)
    var sink = ByteSink()
    do throws(ImgToolError) {
        try await codec.write(source, into: &sink, options: all, progress: nil)
    } catch  where error.code == .writeFailed {
        return []  // libjxl refuses some JPEGs (CMYK, cut files): those are decoded instead
    }
    let jxl = try ImageSource(data: sink.bytes, name: "recompressed.jxl")
    var back = ByteSink()
    try await CodecRegistry.standard.writer(forOutput: "back.jpg").write(jxl, into: &back, options: all, progress: nil)
    var problems: [String] = []
    if back.bytes != source.data { problems.append("the JPEG rebuilt from the JPEG XL is not the original") }
    if source.data.count >= 2048 && sink.bytes.count >= source.data.count {
        problems.append("the JPEG XL (\(sink.bytes.count) bytes) is not smaller than the JPEG (\(source.data.count))")
    }
    var plain = ByteSink()
    try await codec.write(source, into: &plain, options: ImageWriteOptions(), progress: nil)
    let plainJXL = try ImageSource(data: plain.bytes, name: "plain.jxl")
    var plainBack = ByteSink()
    try await CodecRegistry.standard.writer(forOutput: "back.jpg").write(
        plainJXL, into: &plainBack, options: ImageWriteOptions(), progress: nil)
    let rebuilt = try ImageSource(data: plainBack.bytes, name: "plain-back.jpg").info
    if plainJXL.info.hasGPS || rebuilt.hasGPS { problems.append("recompressed by default, a GPS position remains") }
    if plainJXL.info.width != source.info.width || plainJXL.info.height != source.info.height {
        problems.append("recompressed by default, it shows \(plainJXL.info.width)x\(plainJXL.info.height)")
    }
    return problems
}

/// A source seen only through its frames (so a writer cannot take its file as it is).
private struct PixelsOnly: FrameSource {
    let base: any FrameSource
    var info: ImageInfo { base.info }
    var isOpaque: Bool { base.isOpaque }
    func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        try base.makeFrameReader(depth: depth)
    }
}

/// The largest difference of one sample between two images at 16 bits (alpha-0 pixels as 0).
private func difference16(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    guard a.width == b.width, a.height == b.height, let x = a.converted(to: .sixteen).rgba16,
        let y = b.converted(to: .sixteen).rgba16
    else { return .max }
    var largest = 0
    for pixel in stride(from: 0, to: x.count, by: 4) {
        let xVisible = x[pixel + 3] != 0
        let yVisible = y[pixel + 3] != 0
        for channel in 0..<4 {
            largest = max(
                largest, abs((xVisible ? Int(x[pixel + channel]) : 0) - (yVisible ? Int(y[pixel + channel]) : 0)))
        }
    }
    return largest
}
