/// The nearest of a fixed set of ``OkLab`` colours to a query, by squared distance.
///
/// The colours are sorted by lightness and searched outward from the query's lightness, stopping
/// once the lightness gap alone is larger than the best distance found (the squared distance
/// adds non-negative terms to the squared lightness gap, so no colour beyond can be nearer). The
/// answer is exactly a full scan's: the smallest distance, and among equal distances the lowest
/// index. A 255-colour palette is typically searched in a few dozen comparisons instead of 255.
struct OkLabNearest: Sendable {
    /// The colours in order of lightness (ties by index).
    private let sorted: [OkLab]
    /// Each sorted colour's index in the set given.
    private let indices: [Int]
    /// The colours in the order given.
    private let colors: [OkLab]

    init(_ colors: [OkLab]) {
        let order = colors.indices.sorted { (colors[$0].l, $0) < (colors[$1].l, $1) }
        sorted = order.map { colors[$0] }
        indices = order
        self.colors = colors
    }

    /// The index of the colour nearest to `point`, as ``nearest(to:)``, found faster when the
    /// colour at `guess` is near it (its distance bounds the search from the start): a point's
    /// previous centre in k-means.
    func nearest(to point: OkLab, guess: Int) -> Int {
        nearest(to: point, bound: (point.distanceSquared(to: colors[guess]), guess))
    }

    /// The index of the colour nearest to `point`; 0 for an empty set.
    func nearest(to point: OkLab) -> Int {
        nearest(to: point, bound: (.infinity, .max))
    }

    /// The nearest colour, or `bound` (a distance and an index) when no colour is nearer or as
    /// near with a lower index.
    @inline(__always)
    private func nearest(to point: OkLab, bound: (distance: Float, index: Int)) -> Int {
        sorted.withUnsafeBufferPointer { sorted in
            indices.withUnsafeBufferPointer { indices in
                // The first colour at least as light as the point: the search starts there and
                // just below it.
                var low = 0
                var high = sorted.count
                while low < high {
                    let middle = (low + high) / 2
                    if sorted[middle].l < point.l { low = middle + 1 } else { high = middle }
                }
                var up = low
                var down = low - 1
                var bestIndex = bound.index
                var bestDistance = bound.distance
                while true {
                    let upGap = up < sorted.count ? (point.l - sorted[up].l) * (point.l - sorted[up].l) : .infinity
                    let downGap =
                        down >= 0 ? (point.l - sorted[down].l) * (point.l - sorted[down].l) : .infinity
                    let goingUp = upGap <= downGap
                    let gap = goingUp ? upGap : downGap
                    if gap == .infinity || gap > bestDistance { break }
                    let position = goingUp ? up : down
                    let distance = point.distanceSquared(to: sorted[position])
                    let index = indices[position]
                    if distance < bestDistance || (distance == bestDistance && index < bestIndex) {
                        bestDistance = distance
                        bestIndex = index
                    }
                    if goingUp { up += 1 } else { down -= 1 }
                }
                return bestIndex == .max ? 0 : bestIndex
            }
        }
    }
}
