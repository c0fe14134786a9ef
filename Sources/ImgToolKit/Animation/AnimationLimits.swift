/// The longest frame delay and the most plays a format holds as imgtool writes it, and the rule
/// every animated writer applies to values past them: each is clamped to the limit, and
/// ``ImageOutput/notes(for:options:)`` says so before writing (`imgtool` prints it as a note
/// naming the output, the frames and the value). Nothing is stored modulo a field's width.
///
/// The limits, by format (``limits(for:)``):
/// - GIF: a delay is 16 bits of centiseconds (655.35 s); NETSCAPE2.0's loop value is 16 bits,
///   and N plays are written as loop value N - 1 (65536 plays).
/// - APNG: `delay_num / delay_den` are 16 bits each (65535 s); `num_plays` is a PNG
///   four-byte value, at most 2³¹ - 1.
/// - WebP: an `ANMF` duration is 24 bits of milliseconds (16777.215 s); `ANIM`'s loop count is
///   16 bits (65535 plays).
/// - JPEG XL: our writer ticks in milliseconds and a frame's duration is 32 bits
///   (4294967.295 s); `num_loops` is 32 bits.
/// - AVIF: libavif 0.11 stores a sample's duration (`stts`) and the track's in 32 bits of the
///   timescale, which our writer sets to milliseconds (4294967.295 s), and writes no edit list,
///   so no play count at all: a sequence plays as players loop it (forever), whatever was asked
///   (``mostPlays`` `nil`; the note says so).
public struct AnimationLimits: Sendable, Hashable {
    /// The longest delay one frame can be written with.
    public var longestDelay: Duration
    /// The most plays that can be written (0, forever, always can), or `nil` when the format, as
    /// imgtool writes it, stores no play count (every animation loops forever).
    public var mostPlays: Int?

    /// Limits of `longestDelay` and `mostPlays`.
    public init(longestDelay: Duration, mostPlays: Int?) {
        self.longestDelay = longestDelay
        self.mostPlays = mostPlays
    }

    /// The limits of animations written as `format`, or `nil` for a format that holds stills
    /// only (or one imgtool does not write).
    public static func limits(for format: ImageFormat) -> AnimationLimits? {
        switch format {
        case .gif: gif
        case .png, .apng: apng
        case .webp: webp
        case .jxl: jxl
        case .avif: avif
        default: nil
        }
    }

    static let gif = AnimationLimits(longestDelay: .milliseconds(655_350), mostPlays: 0x10000)
    static let apng = AnimationLimits(longestDelay: .seconds(65535), mostPlays: Int(Int32.max))
    static let webp = AnimationLimits(longestDelay: .milliseconds((1 << 24) - 1), mostPlays: 0xFFFF)
    static let jxl = AnimationLimits(longestDelay: .milliseconds(Int(UInt32.max)), mostPlays: Int(UInt32.max))
    static let avif = AnimationLimits(longestDelay: .milliseconds(Int(UInt32.max)), mostPlays: nil)

    /// `delay`, or ``longestDelay`` when it is longer.
    public func clamped(_ delay: Duration) -> Duration { min(delay, longestDelay) }

    /// The plays written for `plays` (0 forever): `plays` up to ``mostPlays``, else the most; 0
    /// when the format stores no count.
    public func clamped(plays: Int) -> Int {
        guard let mostPlays else { return 0 }
        return min(max(plays, 0), mostPlays)
    }

    /// What writing `info`'s timeline (as the writer sees it, after ``WrittenTiming``'s folding)
    /// with `plays` changes, one sentence each, naming the frames and the values; empty when
    /// everything fits. `formatName` is the format as the sentence names it (`GIF`).
    public func notes(for info: ImageInfo, plays: Int, formatName: String) -> [String] {
        guard info.isAnimated else { return [] }
        var notes: [String] = []
        let long = info.frames.filter { $0.delay > longestDelay }
        if let longest = long.map(\.delay).max() {
            let value =
                long.count == 1
                ? Self.seconds(longest)
                : long.allSatisfy { $0.delay == longest }
                    ? "\(Self.seconds(longest)) each" : "up to \(Self.seconds(longest))"
            notes.append(
                "\(formatName) holds delays up to \(Self.seconds(longestDelay)): \(Self.frameList(long.map(\.index))) (\(value)) written as \(Self.seconds(longestDelay))"
            )
        }
        if plays != 0 {
            if let mostPlays, plays > mostPlays {
                notes.append(
                    "\(formatName) plays at most \(mostPlays) times (or forever): \(plays) plays are written as \(mostPlays)"
                )
            } else if mostPlays == nil {
                notes.append(
                    "\(formatName) sequences written here carry no play count (libavif 0.11 writes none): players loop them forever, not \(plays) time\(plays == 1 ? "" : "s")"
                )
            }
        }
        return notes
    }

    /// `duration` in seconds, as few decimals as it needs (`655.35 s`, `800 s`).
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Int((duration / .milliseconds(1)).rounded())
        let whole = milliseconds / 1000
        let fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(whole) s" }
        var digits = String(fraction + 1000).dropFirst()
        while digits.last == "0" { digits = digits.dropLast() }
        return "\(whole).\(digits) s"
    }

    /// `frame 3`, `frames 0-23`, `frames 1, 4-6 and 9`: indices in order, runs shortened.
    static func frameList(_ indices: [Int]) -> String {
        var runs: [String] = []
        var position = 0
        while position < indices.count {
            var end = position
            while end + 1 < indices.count && indices[end + 1] == indices[end] + 1 { end += 1 }
            runs.append(end == position ? "\(indices[position])" : "\(indices[position])-\(indices[end])")
            position = end + 1
        }
        let single = indices.count == 1
        let list =
            runs.count <= 1 ? runs.joined() : runs.dropLast().joined(separator: ", ") + " and " + runs[runs.count - 1]
        return (single ? "frame " : "frames ") + list
    }
}
