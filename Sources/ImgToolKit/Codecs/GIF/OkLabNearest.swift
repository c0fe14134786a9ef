internal import CGif

/// Nearest-colour search in OkLab over a fixed set of colours: the colour at the smallest
/// squared distance, the lowest index among equal distances.
///
/// Every colour is measured, eight at a time (`imgtool_oklab_nearest` in CGif, AVX2 when the
/// processor has it): for a GIF palette of up to 256 colours that is faster than pruning, whose
/// branches cost more than the arithmetic they skip, and its time does not depend on how the
/// colours are spread.
struct OkLabNearest: Sendable {
    /// The coordinates, one array per axis, padded to a multiple of 8 with colours far away
    /// (never chosen).
    private let l: [Float]
    private let a: [Float]
    private let b: [Float]

    init(_ colors: [OkLab]) {
        let padded = (colors.count + 7) / 8 * 8
        let far = [Float](repeating: 1e18, count: padded - colors.count)
        l = colors.map(\.l) + far
        a = colors.map(\.a) + far
        b = colors.map(\.b) + far
    }

    /// The index of the colour nearest to `point`; 0 for an empty set.
    func nearest(to point: OkLab) -> Int {
        guard !l.isEmpty else { return 0 }
        return l.withUnsafeBufferPointer { l in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    Int(
                        imgtool_oklab_nearest(
                            l.baseAddress, a.baseAddress, b.baseAddress, Int32(l.count), point.l, point.a, point.b))
                }
            }
        }
    }

    /// The index of the colour nearest to each of `points`, in order (0 for an empty set);
    /// `simd: false` measures one colour at a time instead (for the tests).
    func nearest(to points: [OkLab], simd: Bool = true) -> [Int32] {
        guard !l.isEmpty else { return [Int32](repeating: 0, count: points.count) }
        // Read by C as consecutive (l, a, b) triples.
        precondition(MemoryLayout<OkLab>.stride == 12 && MemoryLayout<OkLab>.offset(of: \OkLab.b) == 8)
        return [Int32](unsharedUninitializedCapacity: points.count) { out, initialized in
            l.withUnsafeBufferPointer { l in
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        points.withUnsafeBytes { raw in
                            imgtool_oklab_nearest_many(
                                l.baseAddress, a.baseAddress, b.baseAddress, Int32(l.count),
                                raw.baseAddress?.assumingMemoryBound(to: Float.self), Int32(points.count),
                                out.baseAddress, simd ? 1 : 0)
                        }
                    }
                }
            }
            initialized = points.count
        }
    }
}
