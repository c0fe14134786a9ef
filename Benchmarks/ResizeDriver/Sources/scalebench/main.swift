import Foundation
import ImgToolKit

// The terminal player's reduction, 1920x1080 -> 100x56 flattened onto black as 0xRRGGBB: the
// CLI's AreaScaler (Sources/imgtool/AreaScaler.swift, linked here through a symbolic link)
// against the library's box Resampler. Interleaved rounds of N runs each; medians.
// usage: swift run -c release scalebench [N]   (from Benchmarks/ResizeDriver)
var random = SplitMix(state: 42)
var samples = [UInt8](repeating: 0, count: 1920 * 1080 * 4)
for i in 0..<samples.count { samples[i] = UInt8(truncatingIfNeeded: random.next()) }
for i in stride(from: 3, to: samples.count, by: 4) where i % 40 < 20 { samples[i] = 255 }
let frame = PixelBuffer(width: 1920, height: 1080, rgba8: samples)
let runs = Int(CommandLine.arguments.dropFirst().first ?? "100") ?? 100

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Median wall and process CPU time of `runs` calls, in milliseconds.
func measure(_ body: () -> Int) -> (wall: Double, cpu: Double) {
    var wall: [Double] = []
    var cpu: [Double] = []
    var sink = 0
    for _ in 0..<runs {
        var t0 = timespec()
        var t1 = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0)
        let start = ContinuousClock.now
        sink &+= body()
        let elapsed = ContinuousClock.now - start
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1)
        wall.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        cpu.append(Double(t1.tv_sec - t0.tv_sec) * 1000 + Double(t1.tv_nsec - t0.tv_nsec) / 1e6)
    }
    precondition(sink > 0)
    wall.sort()
    cpu.sort()
    return (wall[wall.count / 2], cpu[cpu.count / 2])
}

/// What the terminal would get from the library: box resample flattened onto black, packed.
func library(_ image: PixelBuffer) -> Int {
    guard
        let resampler = try? Resampler(
            from: PixelSize(width: image.width, height: image.height), to: PixelSize(width: 100, height: 56),
            filter: .box),
        let flat = try? resampler.resample(image, flattenedOnto: .black), let s = flat.rgba8
    else { return 0 }
    var pixels = [UInt32](repeating: 0, count: 100 * 56)
    for i in 0..<pixels.count { pixels[i] = UInt32(s[i * 4]) << 16 | UInt32(s[i * 4 + 1]) << 8 | UInt32(s[i * 4 + 2]) }
    return pixels.count
}

for _ in 0..<5 {
    _ = AreaScaler.scale(frame, toWidth: 100, height: 56)
    _ = library(frame)
}
var rounds: [(area: (wall: Double, cpu: Double), library: (wall: Double, cpu: Double))] = []
for round in 0..<6 {
    let area = measure { AreaScaler.scale(frame, toWidth: 100, height: 56).pixels.count }
    let lib = measure { library(frame) }
    rounds.append((area, lib))
    print(String(format: "round %d: AreaScaler %.3f ms (CPU %.3f), library box %.3f ms (CPU %.3f)", round,
                 area.wall, area.cpu, lib.wall, lib.cpu))
}
let areaWall = rounds.map(\.area.wall).sorted()[3]
let libraryWall = rounds.map(\.library.wall).sorted()[3]
print(String(format: "median of rounds: AreaScaler %.3f ms, library %.3f ms (%.2fx)", areaWall, libraryWall,
             libraryWall / areaWall))
