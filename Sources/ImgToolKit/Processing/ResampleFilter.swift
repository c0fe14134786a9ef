import Foundation

/// The reconstruction filter a resize uses: a kernel of finite support, stretched by the
/// reduction factor when shrinking so that every source pixel is taken into account.
///
/// Weights are the kernel sampled at the distance between pixel centres (in source pixels,
/// divided by the reduction factor when shrinking), normalized to add up to 1 for each output
/// pixel; near the edges, taps outside the image are dropped and the rest renormalized. ``box``
/// is the exception: its weights are the exact fraction of each source pixel the output pixel
/// covers (area averaging).
public enum ResampleFilter: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Lanczos with three lobes, `sinc(x)·sinc(x/3)` for `|x| < 3`: the sharpest, the default.
    /// It rings slightly at hard edges (values are clamped, never wrapped).
    case lanczos3
    /// Mitchell-Netravali cubic, B = C = 1/3, support 2: softer, almost no ringing.
    case mitchell
    /// Catmull-Rom cubic, B = 0, C = 1/2, support 2: sharp, little ringing.
    case catmullRom = "catmull-rom"
    /// Triangle (tent), support 1: bilinear interpolation when enlarging.
    case bilinear
    /// Box: each output pixel is the area-weighted mean of the source pixels it covers. The
    /// fastest for large reductions (every source pixel is read once per axis), blocky when
    /// enlarging.
    case box

    /// The name `--filter` takes (`lanczos3`, `mitchell`, `catmull-rom`, `bilinear`, `box`).
    public var description: String { rawValue }

    /// The filter named `name` (case-insensitive); `triangle`, `linear`, `area`, `lanczos`,
    /// `catmullrom` and `bicubic` (Catmull-Rom) are accepted as synonyms.
    /// - Parameter name: the name as the user typed it.
    /// - Throws: ``ImgToolError`` `invalidArgument` listing the names, for any other name.
    public init(named name: String) throws(ImgToolError) {
        let lowered = name.lowercased()
        if let filter = ResampleFilter(rawValue: lowered) {
            self = filter
            return
        }
        switch lowered {
        case "lanczos": self = .lanczos3
        case "catmullrom", "bicubic", "cubic": self = .catmullRom
        case "triangle", "linear", "tent": self = .bilinear
        case "area": self = .box
        default:
            let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw ImgToolError(.invalidArgument, "unknown filter \"\(name)\"; use one of \(names)")
        }
    }

    /// How far the kernel reaches, in source pixels at scale 1 (Lanczos3: 3, cubics: 2,
    /// triangle: 1, box: 0.5).
    public var support: Double {
        switch self {
        case .lanczos3: 3
        case .mitchell, .catmullRom: 2
        case .bilinear: 1
        case .box: 0.5
        }
    }

    /// The kernel's value at distance `x` (in filter units, where 1 is one source pixel at scale 1).
    /// - Parameter x: the distance from the kernel's centre.
    public func weight(at x: Double) -> Double {
        let t = abs(x)
        switch self {
        case .lanczos3:
            guard t < 3 else { return 0 }
            return Self.sinc(t) * Self.sinc(t / 3)
        case .mitchell:
            return Self.cubic(t, b: 1.0 / 3, c: 1.0 / 3)
        case .catmullRom:
            return Self.cubic(t, b: 0, c: 0.5)
        case .bilinear:
            return t < 1 ? 1 - t : 0
        case .box:
            return t <= 0.5 ? 1 : 0
        }
    }

    /// `sin(πx) / (πx)`, 1 at 0.
    static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let a = Double.pi * x
        return sin(a) / a
    }

    /// The Mitchell-Netravali family of cubics (Mitchell and Netravali, 1988) at `t >= 0`.
    static func cubic(_ t: Double, b: Double, c: Double) -> Double {
        if t < 1 {
            return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6
        }
        if t < 2 {
            return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}
