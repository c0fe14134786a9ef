// The conformance runner: decodes every file of the shared corpus with ImgToolKit and compares
// size, frame count, loop value, delays, each frame's RGBA8 SHA-256 and the pixel checks with
// every manifest*.json of the corpus, for each entry whose format the codec registry reads
// (entries of formats imgtool does not read yet are counted and skipped). Prints one line per
// failing file and ends with `N passed, N failed`.
//
// Usage: conformance [--corpus DIR] [--only pngsuite|apng|gif|jpeg|webp] [--verbose]
//        conformance --roundtrip gif [--corpus DIR] [--only gif|apng] [--verbose] [--save DIR]
//        (see RoundTrip.swift)
//        conformance --roundtrip png|avif|jxl [--corpus DIR] [--only GROUP,...] [--verbose]
//        (see LosslessRoundTrip.swift)
import Foundation
import ImgToolKit

struct Options {
    var corpus = "../shared/corpus"
    var only: [String] = []
    var verbose = false
    var roundTrip: String?
    var save: String?

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--corpus": corpus = iterator.next() ?? corpus
            case "--only": only.append(contentsOf: (iterator.next() ?? "").split(separator: ",").map(String.init))
            case "--verbose", "-v": verbose = true
            case "--roundtrip": roundTrip = iterator.next()
            case "--save": save = iterator.next()
            default:
                FileHandle.standardError.write(Data("conformance: unknown argument \(argument)\n".utf8))
                exit(64)
            }
        }
    }
}

let options = Options(arguments: CommandLine.arguments)
let manifestNames =
    ((try? FileManager.default.contentsOfDirectory(atPath: options.corpus)) ?? [])
    .filter { $0.hasPrefix("manifest") && $0.hasSuffix(".json") }.sorted()
var entries: [[String: Any]] = []
for name in manifestNames {
    let path = options.corpus + "/" + name
    guard let data = FileManager.default.contents(atPath: path),
        let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let listed = manifest["entries"] as? [[String: Any]]
    else {
        FileHandle.standardError.write(Data("conformance: cannot read \(path)\n".utf8))
        exit(1)
    }
    entries += listed
}
if entries.isEmpty {
    FileHandle.standardError.write(Data("conformance: no manifest*.json entries in \(options.corpus)\n".utf8))
    exit(1)
}

if let format = options.roundTrip, ["avif", "jxl", "png"].contains(format) {
    let (passed, failed) = await runLosslessRoundTrip(
        format: format, entries: entries, corpus: options.corpus, only: options.only, verbose: options.verbose,
        maxPixels: 1 << 20)
    print("\(passed) passed, \(failed) failed")
    exit(failed == 0 ? 0 : 1)
}
if let format = options.roundTrip {
    guard format == "gif" else {
        FileHandle.standardError.write(
            Data("conformance: --roundtrip takes gif, png, avif or jxl, not \(format)\n".utf8))
        exit(64)
    }
    let (passed, failed) = await runGIFRoundTrip(
        entries: entries, corpus: options.corpus, only: options.only, verbose: options.verbose, save: options.save)
    print("\(passed) passed, \(failed) failed")
    exit(failed == 0 ? 0 : 1)
}

var passed = 0
var failed = 0
var unread: [String: Int] = [:]

for entry in entries {
    guard let file = entry["file"] as? String else { continue }
    let group = String(file.prefix { $0 != "/" })
    if !options.only.isEmpty && !options.only.contains(group) { continue }
    let format = entry["format"] as? String ?? group
    guard let codec = CodecRegistry.standard.codec(named: format), codec.capabilities.contains(.read) else {
        unread[format, default: 0] += 1
        continue
    }
    let problems = check(
        entry: entry, path: options.corpus + "/" + file, corpus: options.corpus, verbose: options.verbose)
    if problems.isEmpty {
        passed += 1
        if options.verbose { print("ok   \(file)") }
    } else {
        failed += 1
        print("FAIL \(file): " + problems.joined(separator: "; "))
    }
}
for (format, count) in unread.sorted(by: { $0.key < $1.key }) {
    print("skipped \(count) \(format) entries: imgtool does not read \(format)")
}
print("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)

/// Decodes the whole file: info plus every frame at 8 bits (and at the native depth when asked).
func decodeAll(path: String, sixteen: Bool) throws(ImgToolError) -> (ImageInfo, [PixelBuffer], [PixelBuffer]) {
    let source = try ImageSource(contentsOf: path)
    var frames8: [PixelBuffer] = []
    let reader = try source.makeFrameReader(depth: .eight)
    while let frame = try reader.nextFrame() { frames8.append(frame.image) }
    var frames16: [PixelBuffer] = []
    if sixteen {
        let reader16 = try source.makeFrameReader(depth: .sixteen)
        while let frame = try reader16.nextFrame() { frames16.append(frame.image) }
    }
    return (source.info, frames8, frames16)
}

func check(entry: [String: Any], path: String, corpus: String, verbose: Bool) -> [String] {
    let expect = entry["expect"] as? String ?? "ok"
    let is16 = ((entry["png"] as? [String: Any])?["bit_depth"] as? Int) == 16
    let result: Result<(ImageInfo, [PixelBuffer], [PixelBuffer]), ImgToolError>
    do {
        result = .success(try decodeAll(path: path, sixteen: is16 && entry["rgba16_sha256"] != nil))
    } catch {
        result = .failure(error)
    }

    let errorAccepted = expect == "error" || entry["error_ok"] as? Bool == true
    switch (expect, result) {
    case (_, .failure(let error)) where errorAccepted:
        return error.input == path ? [] : ["error does not name the input: \(error)"]
    case ("error", .success(let (info, frames, _))):
        if entry["fallback_ok"] as? Bool == true, let fallback = entry["fallback_rgba_sha256"] as? String,
            frames.count == 1, frames[0].rgba8Digest() == fallback, !info.warnings.isEmpty
        {
            return []  // the APNG spec's recommended fallback: show the default image, with a warning
        }
        if entry["alt_ok"] as? Bool == true { return [] }
        if !info.isComplete, (entry["error_reason"] as? String)?.hasPrefix("truncated") == true,
            info.warnings.contains(where: { $0.hasPrefix("truncated") })
        {
            return []  // a cut file shows what arrived, with a warning (issue 41; --fail-on truncated refuses it)
        }
        return ["expected an error (\(entry["error_reason"] as? String ?? "?")), decoded \(frames.count) frames"]
    case (_, .failure(let error)):
        return ["expected to decode, got: \(error)"]
    case (_, .success(let (info, frames, frames16))):
        return compare(
            entry: entry, info: info, frames: frames, frames16: frames16, corpus: corpus, verbose: verbose)
    }
}

/// The RGBA8 SHA-256 of the first frame `djxl` (libjxl's tool, Debian's `libjxl-tools`) decodes
/// from `path` at 8 bits, or `nil` when djxl is not installed or fails.
func djxlDigest(of path: String) -> String? {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-djxl-\(getpid()).png").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let djxl = Process()
    djxl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    djxl.arguments = ["djxl", path, output, "--bits_per_sample=8"]
    djxl.standardOutput = FileHandle.nullDevice
    djxl.standardError = FileHandle.nullDevice
    guard (try? djxl.run()) != nil else { return nil }
    djxl.waitUntilExit()
    guard djxl.terminationStatus == 0, let frame = try? ImageSource(contentsOf: output).frame(at: 0, depth: .eight)
    else { return nil }
    return frame.image.rgba8Digest()
}

func compare(
    entry: [String: Any], info: ImageInfo, frames: [PixelBuffer], frames16: [PixelBuffer], corpus: String, verbose: Bool
) -> [String] {
    var problems: [String] = []
    if let width = entry["width"] as? Int, let height = entry["height"] as? Int,
        width != info.width || height != info.height
    {
        problems.append("size \(info.width)x\(info.height), expected \(width)x\(height)")
    }
    let expectedFrames = entry["frames"] as? Int ?? 1
    if frames.count != expectedFrames || info.frameCount != expectedFrames {
        problems.append("\(frames.count) frames decoded (\(info.frameCount) listed), expected \(expectedFrames)")
    }
    if expectedFrames > 1 {
        let expectedLoops = entry["loops"] as? Int
        if info.loopValue != expectedLoops {
            problems.append(
                "loop value \(info.loopValue.map(String.init) ?? "none"), expected \(expectedLoops.map(String.init) ?? "none")"
            )
        }
    }
    if let delays = entry["delays_ms"] as? [Double], !delays.isEmpty {
        let ours = info.frames.map { ($0.delayMilliseconds * 1000).rounded() / 1000 }
        if ours != delays { problems.append("delays \(ours), expected \(delays)") }
    }
    var hashes = entry["frames_rgba_sha256"] as? [String] ?? []
    if let rounded = entry["rgba8_scale16_sha256"] as? String, hashes.count == 1 {
        hashes = [rounded]  // we reduce 16-bit samples with rounding, as png_set_scale_16
    }
    // A CMYK JPEG that carries a CMYK profile is converted through it (the corpus records the
    // naive formula); its entry says another CMYK-to-RGB conversion is acceptable (`alt_ok`).
    if entry["alt_ok"] as? Bool == true, info.color.profile?.colorSpace == .cmyk, info.color.profile?.isUsable == true {
        return problems
    }
    var mismatched: [Int] = []
    let digests = frames.map { $0.rgba8Digest() }
    for (index, expected) in hashes.enumerated() where index < frames.count && digests[index] != expected {
        mismatched.append(index)
    }
    // A Debian 12 library's own result, accepted as a whole (`alt_frames_rgba_sha256`), or frames
    // within the tolerance of the reference decoder's PNGs (`tolerance`).
    if !mismatched.isEmpty, let alternatives = entry["alt_frames_rgba_sha256"] as? [String: [String]],
        alternatives.values.contains(where: { $0 == digests })
    {
        mismatched = []
    }
    // libjxl 0.7's result where the manifest accepts it, made on this machine: its noise
    // synthesis runs in floating point on the SIMD target highway picks for the processor, so
    // its output is the same on 1, 2 or 4 threads but not on every processor (an AVX2 AMD EPYC
    // makes another than the hash the corpus recorded). djxl, the library's own tool with its own
    // PNG writer, decodes the file here; the frames must equal its output.
    if !mismatched.isEmpty, let alternatives = entry["alt_frames_rgba_sha256"] as? [String: [String]],
        alternatives.keys.contains(where: { $0.hasPrefix("debian-libjxl-0.7") }), frames.count == 1,
        let file = entry["file"] as? String, let own = djxlDigest(of: corpus + "/" + file), own == digests[0]
    {
        if verbose {
            print("note \(file): equal to djxl 0.7's output on this processor, not to the recorded alternative")
        }
        mismatched = []
    }
    if !mismatched.isEmpty, let tolerance = entry["tolerance"] as? [String: Any],
        let references = tolerance["reference_png"] as? [String]
    {
        var outside: [Int] = []
        for index in mismatched {
            guard index < references.count,
                let reference = try? ImageSource(contentsOf: corpus + "/" + references[index]).frame(
                    at: 0, depth: .eight
                ).image
            else {
                outside.append(index)
                continue
            }
            let (largest, mean) = difference(frames[index], reference)
            let maxAllowed = tolerance["max_abs_diff"] as? Int ?? 0
            let meanAllowed = tolerance["mean_abs_diff"] as? Double ?? 0
            if largest > maxAllowed || mean > meanAllowed {
                outside.append(index)
                if verbose {
                    problems.append("frame \(index): max diff \(largest), mean \(mean) against \(references[index])")
                }
            }
        }
        mismatched = outside
    }
    if !mismatched.isEmpty {
        problems.append(
            "frame hashes differ at \(mismatched.prefix(8).map(String.init).joined(separator: ","))\(mismatched.count > 8 ? "..." : "") (\(mismatched.count) of \(hashes.count))"
        )
    }
    if let expected16 = entry["rgba16_sha256"] as? String, let first = frames16.first,
        first.rgba16Digest() != expected16
    {
        problems.append("16-bit hash differs")
    }
    for check in entry["checks"] as? [[String: Any]] ?? [] {
        guard let frame = check["frame"] as? Int, let x = check["x"] as? Int, let y = check["y"] as? Int,
            frame < frames.count, x < frames[frame].width, y < frames[frame].height
        else { continue }
        var pixel = frames[frame].pixel8(x: x, y: y)
        if pixel[3] == 0 { pixel = [0, 0, 0, 0] }
        if let rgba = check["rgba"] as? [Int] {
            let want = rgba[3] == 0 ? [0, 0, 0, 0] : rgba
            if pixel.map(Int.init) != want {
                problems.append("pixel (\(x),\(y)) of frame \(frame) is \(pixel), expected \(want)")
            }
        } else if let alpha = check["a"] as? Int, Int(pixel[3]) != alpha {
            problems.append("alpha at (\(x),\(y)) of frame \(frame) is \(pixel[3]), expected \(alpha)")
        }
    }
    return problems
}

/// The largest and mean absolute difference per sample between two 8-bit RGBA images of the same
/// size (alpha-0 pixels zeroed first); `(Int.max, .infinity)` when the sizes differ.
func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (Int, Double) {
    guard a.width == b.width, a.height == b.height, let x = a.converted(to: .eight).rgba8,
        let y = b.converted(to: .eight).rgba8
    else { return (Int.max, .infinity) }
    var largest = 0
    var total = 0
    for pixel in stride(from: 0, to: x.count, by: 4) {
        let xVisible = x[pixel + 3] != 0
        let yVisible = y[pixel + 3] != 0
        for channel in 0..<4 {
            let p = xVisible ? Int(x[pixel + channel]) : 0
            let q = yVisible ? Int(y[pixel + channel]) : 0
            largest = max(largest, abs(p - q))
            total += abs(p - q)
        }
    }
    return (largest, x.isEmpty ? 0 : Double(total) / Double(x.count))
}
