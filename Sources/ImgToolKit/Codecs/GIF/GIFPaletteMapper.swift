/// Maps frames that do not fit a palette onto one, with dithering that does not flicker.
///
/// The nearest palette colour is found in OkLab, through a lazily filled table of 64 x 64 x 64
/// cells (a colour's cell centre decides; an exact palette colour always maps to itself). The
/// table holds one byte a cell (a palette has at most 255 colours, so 255 marks a cell not yet
/// looked up): 256 KiB, half of what two bytes a cell took, so a frame with a palette of its own
/// clears half as much and more of its table stays cached.
///
/// - `ordered`: an 8 x 8 Bayer threshold tied to canvas coordinates is added before the lookup,
///   so a pixel that stays the same gets the same colour in every frame (no flicker). Its
///   strength follows the area: full in smooth areas, where banding shows, fading where the
///   local contrast is high (texture hides banding and dither noise only costs bytes), and
///   none for pixels at (or within one level of) a palette colour.
/// - `diffusion`: Floyd-Steinberg error diffusion, finest for stills.
/// - `none`: the nearest colour.
///
/// Then, for animations mapped onto the shared palette, a pixel keeps what the canvas already
/// shows when its source pixel did not change, or when it changed by no more than noise does
/// (``keptChangeLimit``) and the colour shown is at least as close to the source as the new one
/// (``keepsShown(_:for:before:over:)``), so static areas stay the transparent index in the
/// written frame.
/// A frame with a palette of its own is mapped whole (``ownPalette(for:previousSource:colors:scratch:)``).
struct GIFPaletteMapper {
    let palette: [UInt32]
    private let search: OkLabNearest
    private let exact: GIFColorIndex
    /// The palette position nearest to each cell's centre, or ``unknownCell``.
    private var cells: [UInt8]
    /// A typical distance between neighbouring palette colours, in sRGB levels.
    private let spread: Float
    /// Whether large frames are mapped in two halves on two threads (see ``parallelPixels``).
    let inParallel: Bool

    private static let bayer: [Float] = {
        let matrix: [Int] = [
            0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
            12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
            3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
            15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21,
        ]
        return matrix.map { (Float($0) + 0.5) / 64 - 0.5 }
    }()

    /// A mapper onto `palette`; `inParallel` as ``inParallel``, by default when there are two
    /// processors or more.
    /// - Precondition: `palette` has 1 ... 255 colours (the transparent index takes the 256th).
    init(palette: [UInt32], inParallel: Bool = availableProcessors > 1) {
        precondition((1...255).contains(palette.count), "a GIF palette to map onto has 1...255 colours")
        self.palette = palette
        self.inParallel = inParallel
        search = OkLabNearest(palette.map(OkLab.init(packed:)))
        exact = GIFColorIndex(palette: palette)
        cells = [UInt8](repeating: Self.unknownCell, count: 1 << 18)
        spread = Self.spread(of: palette)
    }

    /// The most a source pixel may change (in every channel, in sRGB levels) and still keep the
    /// colour the canvas shows when that colour is at least as close as the new mapping.
    ///
    /// The colour shown was chosen, dither and all, for the pixel as it was: it stands for the
    /// pixel as it is only while the pixel changed by about its noise (sensor noise, grain: the
    /// video clip of `scripts/bench gif` changes its static pixels by a few levels a frame).
    /// Where the picture moves, the colour shown belongs to another part of the picture; keeping
    /// it whenever it happened to be nearer than the dithered choice kept the nearer of two
    /// colours at every pixel, which undoes the dither: flat blotches that grew frame after frame.
    /// On 100 stills of a grainy photo panned across (`scripts/bench make`), the worst sampled
    /// frame scored butteraugli 13.4 keeping any nearer colour and 11.1 with this limit (the
    /// last frame; 9.5 and 11.5 at a third and two thirds of the way, 5.9 and 6.9 now), for 3%
    /// more bytes; on the video clip, 4.8 and 4.6 at its middle frames, 4.0 and 3.7 now, 1% more.
    static let keptChangeLimit = 8

    /// Whether a pixel of source colour `pixel` keeps `kept`, the colour the canvas shows, rather
    /// than `chosen`, its new mapping: when its source did not change since the frame before
    /// (`before`), or changed by at most ``keptChangeLimit`` in every channel and `kept` is at
    /// least as close to it as `chosen`. Nothing is kept when `before` is `nil` (the frame before
    /// is not known) or `kept` is transparent.
    @inline(__always)
    static func keepsShown(_ kept: UInt32, for pixel: UInt32, before: UInt32?, over chosen: UInt32) -> Bool {
        guard let before, kept != 0 else { return false }
        if before == pixel { return true }
        return difference(pixel, before) <= keptChangeLimit
            && distanceSquared(kept, pixel) <= distanceSquared(chosen, pixel)
    }

    /// A cell of ``cells`` whose nearest palette colour is not looked up yet.
    private static let unknownCell = UInt8.max

    /// The median distance from a palette colour to its nearest other one, in sRGB levels,
    /// clamped to 2 ... 48 (32 for a palette of one colour).
    private static func spread(of palette: [UInt32]) -> Float {
        // Sorted by red, a colour's nearest other one is found scanning outwards from it until
        // the red difference alone is as far as the nearest found.
        let colors = palette.map { color -> SIMD4<Int32> in
            let (r, g, b) = GIFPixel.channels(color)
            return SIMD4(Int32(r), Int32(g), Int32(b), 0)
        }.sorted { $0.x < $1.x }
        var gaps: [Float] = []
        gaps.reserveCapacity(colors.count)
        colors.withUnsafeBufferPointer { colors in
            for index in colors.indices {
                let own = colors[index]
                var nearest = Int32.max
                for other in colors[(index + 1)...] {
                    let dr = other.x - own.x
                    if dr * dr >= nearest { break }
                    let d = other &- own
                    nearest = min(nearest, (d &* d).wrappedSum())
                }
                for other in colors[..<index].reversed() {
                    let dr = own.x - other.x
                    if dr * dr >= nearest { break }
                    let d = other &- own
                    nearest = min(nearest, (d &* d).wrappedSum())
                }
                if nearest != .max { gaps.append(Float(nearest).squareRoot()) }
            }
        }
        gaps.sort()
        return gaps.isEmpty ? 32 : min(max(gaps[gaps.count / 2], 2), 48)
    }

    /// The palette position nearest to `(r, g, b)` (each 0 ... 255).
    @inline(__always)
    private mutating func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let cell = (r >> 2) << 12 | (g >> 2) << 6 | b >> 2
        let cached = cells.withUnsafeBufferPointer { $0[cell] }
        if cached != Self.unknownCell { return Int(cached) }
        let linear = Self.cellCentres
        let centre = OkLab(linearRed: linear[r >> 2], green: linear[g >> 2], blue: linear[b >> 2])
        let best = search.nearest(to: centre)
        cells[cell] = UInt8(truncatingIfNeeded: best)
        return best
    }

    /// The linear-light value of each cell's centre level (4 k + 1.5), k = 0 ... 63.
    private static let cellCentres: [Float] = (0..<64).map { OkLab.toLinear(Float($0 * 4) + 1.5) }

    @inline(__always)
    private static func distanceSquared(_ p: UInt32, _ q: UInt32) -> Int {
        let (r1, g1, b1) = GIFPixel.channels(p)
        let (r2, g2, b2) = GIFPixel.channels(q)
        return (r1 - r2) * (r1 - r2) + (g1 - g2) * (g1 - g2) + (b1 - b2) * (b1 - b2)
    }

    /// A mapper for a palette of the frame's own, when one pays: the frame changes at least a
    /// quarter of the canvas (a smaller change does not pay for a 768-byte table and the colours
    /// a shared palette keeps stable), and a palette built from a sample of the pixels it
    /// changes has at most nine tenths of the squared error of this palette on that sample.
    /// Otherwise `nil`.
    ///
    /// The palette is built from every pixel of the frame, and the frame is then mapped whole
    /// (``map(_:width:height:previousSource:displayed:dither:)`` with no `displayed`): pixels
    /// kept from frames mapped onto other palettes quantize the same flat colour differently
    /// from their new neighbours, and those seams are what a viewer sees. On big.gif resized to
    /// 480 wide (`scripts/bench resize`), a palette from the changed pixels with the rest kept
    /// scored butteraugli 10.0 on the worst sampled frame; the frame's own palette mapped whole,
    /// 2.8 (vips with libimagequant: 3.6), for 17% more bytes. Pixels that come out as the canvas
    /// already shows them are still written as the transparent index by the encoder. The mapper
    /// maps on one thread: a frame's own palette is chosen, and the frame mapped, on a thread
    /// beside another at work (``GIFPaletteChooser/mappedOnOwnPalette(_:previousSource:colors:width:height:dither:)``).
    ///
    /// The test leaves the shared palette to frames it serves about as well as one of their own
    /// would (the same colours in every frame: a palette of their own would only trade stable
    /// colours for bytes). Frames whose colours wander away from what the animation shares get
    /// their own: an animation resized from a GIF with a palette per frame (the shared palette's
    /// error is 3 to 9 times a frame's own), and a camera moving over a photograph, where each
    /// frame shows a part of the scene and the shared palette spends most of its colours on the
    /// parts the frame does not show. That error ratio understates what a viewer sees: the
    /// shared palette's error there lies in the colours it lacks, mapped to flat blotches. On 100
    /// stills of a grainy photo panned across (`scripts/bench make`), the ratio is 0.58 to 1.15
    /// (median 0.78); with palettes of their own at most half the error (the test until then),
    /// no frame took one and the worst sampled frame scored butteraugli 11.1; with nine tenths,
    /// 6.9 (ImageMagick's palette per frame: 11.1), for 14% more bytes. On the video clip of
    /// `scripts/bench gif` (a pan and zoom, ratio 0.83 to 1.03), its first frame takes one:
    /// 6.05 to 3.3, for 2% more bytes.
    /// - Parameters:
    ///   - source: the frame, packed pixels (transparent 0).
    ///   - previousSource: the source frame shown before, or `nil` for the first.
    ///   - colors: the most colours the frame's palette may have.
    ///   - scratch: histograms reused from frame to frame.
    mutating func ownPalette(
        for source: [UInt32], previousSource: [UInt32]?, colors: Int, scratch: GIFPaletteChooser
    ) -> GIFPaletteMapper? {
        // The changed pixels, in order (a frame with nothing before it changes every pixel), and
        // an even sample of 4096 of them: the estimate is built from every other one and judged
        // on the rest (judged on its own sample it would look better than it is).
        let changedPixels = source.withUnsafeBufferPointer { now in
            (previousSource ?? []).withUnsafeBufferPointer { before in
                var changed: [UInt32] = []
                changed.reserveCapacity(now.count)
                if before.count == now.count {
                    for position in 0..<now.count where now[position] != 0 && before[position] != now[position] {
                        changed.append(now[position])
                    }
                } else {
                    for pixel in now where pixel != 0 { changed.append(pixel) }
                }
                return changed
            }
        }
        guard changedPixels.count * 4 >= source.count else { return nil }
        let stride = max(1, changedPixels.count / 4096)
        var training: [UInt32] = []
        var judged: [UInt32] = []
        training.reserveCapacity(2048 + 1)
        judged.reserveCapacity(2048 + 1)
        for (sampled, position) in Swift.stride(from: 0, to: changedPixels.count, by: stride).enumerated() {
            if sampled & 1 == 0 {
                training.append(changedPixels[position])
            } else {
                judged.append(changedPixels[position])
            }
        }
        scratch.training.removeAll()
        training.withUnsafeBufferPointer { scratch.training.addOpaque($0) }
        let estimate = GIFQuantizer.palette(from: scratch.training, count: colors, iterations: 2)
        guard Self.squaredError(of: judged, nearestIn: estimate) * 10 <= squaredError(of: judged) * 9 else {
            return nil
        }

        scratch.whole.removeAll()
        source.withUnsafeBufferPointer { scratch.whole.addOpaque($0) }
        return GIFPaletteMapper(palette: GIFQuantizer.palette(from: scratch.whole, count: colors), inParallel: false)
    }

    /// The summed squared sRGB distance from each of `pixels` (opaque) to the colour of
    /// `palette` nearest to it in OkLab: what a mapper onto `palette` would do without
    /// dithering, without making one (its table of cells costs more than the few thousand
    /// pixels judged). Each distinct colour is searched once and counted as often as it occurs
    /// (a resized GIF frame's sample repeats its colours two to three times over).
    private static func squaredError(of pixels: [UInt32], nearestIn palette: [UInt32]) -> Int {
        let (colors, counts) = distinct(pixels)
        let nearest = OkLabNearest(palette.map(OkLab.init(packed:))).nearest(to: colors.map(OkLab.init(packed:)))
        var total = 0
        for position in colors.indices {
            total += distanceSquared(palette[Int(nearest[position])], colors[position]) * counts[position]
        }
        return total
    }

    /// The distinct colours of `pixels` (opaque, so never 0) in the order they first occur,
    /// and how often each occurs.
    static func distinct(_ pixels: [UInt32]) -> (colors: [UInt32], counts: [Int]) {
        var size = 16
        while size < pixels.count * 2 { size <<= 1 }
        let mask = size - 1
        var keys = [UInt32](repeating: 0, count: size)
        var slots = [Int32](repeating: 0, count: size)
        var colors: [UInt32] = []
        var counts: [Int] = []
        keys.withUnsafeMutableBufferPointer { keys in
            slots.withUnsafeMutableBufferPointer { slots in
                for pixel in pixels {
                    var slot = Int((pixel &* 0x9E37_79B1) >> 16) & mask
                    while keys[slot] != 0, keys[slot] != pixel { slot = (slot + 1) & mask }
                    if keys[slot] == 0 {
                        keys[slot] = pixel
                        slots[slot] = Int32(colors.count)
                        colors.append(pixel)
                        counts.append(1)
                    } else {
                        counts[Int(slots[slot])] += 1
                    }
                }
            }
        }
        return (colors, counts)
    }

    /// The summed squared sRGB distance from each of `pixels` to its nearest palette colour.
    private mutating func squaredError(of pixels: [UInt32]) -> Int {
        var total = 0
        for pixel in pixels {
            let (r, g, b) = GIFPixel.channels(pixel)
            total += Self.distanceSquared(palette[nearest(r, g, b)], pixel)
        }
        return total
    }

    /// Maps `source` (packed pixels, transparent 0) onto the palette.
    /// - Parameters:
    ///   - previousSource: the source frame shown before, or `nil` for the first.
    ///   - displayed: what the decoder shows before this frame, or `nil` to map every pixel
    ///     (nothing kept).
    /// - Returns: the canvas to write: palette colours, transparent pixels, and pixels kept
    ///   from `displayed`.
    mutating func map(
        _ source: [UInt32], width: Int, height: Int, previousSource: [UInt32]?, displayed: [UInt32]?,
        dither: ImageWriteOptions.Dither
    ) -> [UInt32] {
        var target = [UInt32](repeating: 0, count: source.count)
        switch dither {
        case .none, .ordered:
            mapOrdered(
                source, width: width, height: height, previousSource: previousSource, displayed: displayed,
                dithered: dither == .ordered, into: &target)
        case .diffusion:
            mapDiffused(source, width: width, height: height, into: &target)
            // Keep what is shown where the source did not change, or changed by noise and the
            // shown colour is as close.
            guard let displayed, let previousSource else { break }
            source.withUnsafeBufferPointer { src in
                displayed.withUnsafeBufferPointer { shown in
                    previousSource.withUnsafeBufferPointer { before in
                        target.withUnsafeMutableBufferPointer { out in
                            for position in 0..<src.count {
                                let pixel = src[position]
                                let kept = shown[position]
                                guard pixel != 0, out[position] != kept else { continue }
                                if Self.keepsShown(kept, for: pixel, before: before[position], over: out[position]) {
                                    out[position] = kept
                                }
                            }
                        }
                    }
                }
            }
        }
        return target
    }

    /// Ordered dither offsets in sRGB levels: 9 strengths (0/8 ... 8/8 of half the ``spread``)
    /// x 64 pattern positions. The offset moves all three channels, so half the spread between
    /// palette colours is enough to reach the neighbours; measured on the video clip of
    /// `scripts/bench gif`, it lowers ssimulacra from 0.050 to 0.038 against the full spread.
    private var offsets: [Int32] {
        var table: [Int32] = []
        for level in 0...8 {
            for threshold in Self.bayer {
                table.append(Int32((threshold * spread * Float(level) / 16).rounded()))
            }
        }
        return table
    }

    /// Frames with at least this many pixels are mapped in two halves on two threads, each with
    /// its own copy of the nearest-colour cells (merged afterwards).
    static let parallelPixels = 32 * 1024

    private mutating func mapOrdered(
        _ source: [UInt32], width: Int, height: Int, previousSource: [UInt32]?, displayed: [UInt32]?, dithered: Bool,
        into target: inout [UInt32]
    ) {
        let offsets = offsets
        // Nothing shown: nothing kept, whatever the source was before.
        let keeps = displayed != nil
        let unchanged = keeps ? previousSource ?? [] : []
        let displayed = displayed ?? []
        let split =
            inParallel && height >= 2 && width * height >= Self.parallelPixels ? height / 2 : 0
        source.withUnsafeBufferPointer { src in
            displayed.withUnsafeBufferPointer { shown in
                unchanged.withUnsafeBufferPointer { before in
                    offsets.withUnsafeBufferPointer { offsets in
                        target.withUnsafeMutableBufferPointer { out in
                            let frame = OrderedFrame(
                                source: src, shown: shown, before: before, offsets: offsets, out: out, width: width,
                                height: height, keeps: keeps, dithered: dithered)
                            guard split > 0 else {
                                mapOrderedRows(0..<height, of: frame)
                                return
                            }
                            let lower = self
                            let (lowerCells, _) = forkJoin(
                                { () -> [UInt8] in
                                    var mapper = lower
                                    mapper.mapOrderedRows(split..<height, of: frame)
                                    return mapper.cells
                                },
                                alongside: { mapOrderedRows(0..<split, of: frame) })
                            // Keep what either half found for later frames.
                            cells.withUnsafeMutableBufferPointer { cells in
                                lowerCells.withUnsafeBufferPointer { found in
                                    for cell in 0..<cells.count where cells[cell] == Self.unknownCell {
                                        cells[cell] = found[cell]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// What ``mapOrderedRows(_:of:)`` reads and writes.
    ///
    /// `@unchecked Sendable`: the buffers belong to ``mapOrdered(_:width:height:previousSource:displayed:dithered:into:)``,
    /// which returns only after both halves are done; the halves only read the inputs and write
    /// their own rows of `out`.
    private struct OrderedFrame: @unchecked Sendable {
        let source: UnsafeBufferPointer<UInt32>
        let shown: UnsafeBufferPointer<UInt32>
        let before: UnsafeBufferPointer<UInt32>
        let offsets: UnsafeBufferPointer<Int32>
        let out: UnsafeMutableBufferPointer<UInt32>
        let width: Int
        let height: Int
        let keeps: Bool
        let dithered: Bool
    }

    /// Rows `rows` of an ordered (or undithered) mapping.
    private mutating func mapOrderedRows(_ rows: Range<Int>, of frame: OrderedFrame) {
        let palette = palette
        let exact = exact
        let (src, shown, before, offsets, out) = (frame.source, frame.shown, frame.before, frame.offsets, frame.out)
        let (width, height, keeps, dithered) = (frame.width, frame.height, frame.keeps, frame.dithered)
        var lastPixel: UInt32 = 0
        var lastExact: UInt32? = nil
        for y in rows {
            let row = y * width
            let pattern = (y & 7) * 8
            for x in 0..<width {
                let position = row + x
                let pixel = src[position]
                if pixel == 0 { continue }
                let kept = keeps ? shown[position] : 0
                // A pixel that did not change keeps what is shown.
                if kept != 0 && !before.isEmpty && before[position] == pixel {
                    out[position] = kept
                    continue
                }
                if pixel != lastPixel {
                    lastPixel = pixel
                    lastExact = exact.index(of: pixel).map { palette[Int($0)] }
                }
                var chosen: UInt32
                if let lastExact {
                    chosen = lastExact
                } else {
                    let (r, g, b) = GIFPixel.channels(pixel)
                    chosen = palette[nearest(r, g, b)]
                    if dithered && Self.distanceSquared(chosen, pixel) > 3 {
                        // Local contrast against the right and lower neighbours.
                        var contrast = 0
                        if x + 1 < width, src[position + 1] != 0 {
                            contrast = Self.difference(pixel, src[position + 1])
                        }
                        if y + 1 < height, src[position + width] != 0 {
                            contrast = max(contrast, Self.difference(pixel, src[position + width]))
                        }
                        let level = contrast <= 6 ? 8 : max(2, 8 - (contrast - 6) / 5)
                        let offset = Int(offsets[level * 64 + pattern + (x & 7)])
                        chosen =
                            palette[
                                nearest(
                                    min(max(r + offset, 0), 255), min(max(g + offset, 0), 255),
                                    min(max(b + offset, 0), 255))]
                    }
                }
                if chosen != kept && !before.isEmpty
                    && Self.keepsShown(kept, for: pixel, before: before[position], over: chosen)
                {
                    chosen = kept
                }
                out[position] = chosen
            }
        }
    }

    /// The largest difference of one channel between two packed colours.
    @inline(__always)
    private static func difference(_ p: UInt32, _ q: UInt32) -> Int {
        let (r1, g1, b1) = GIFPixel.channels(p)
        let (r2, g2, b2) = GIFPixel.channels(q)
        return max(abs(r1 - r2), abs(g1 - g2), abs(b1 - b2))
    }

    private mutating func mapDiffused(_ source: [UInt32], width: Int, height: Int, into target: inout [UInt32]) {
        var current = [Int32](repeating: 0, count: (width + 2) * 3)
        var next = [Int32](repeating: 0, count: (width + 2) * 3)
        for y in 0..<height {
            let row = y * width
            for position in next.indices { next[position] = 0 }
            for x in 0..<width {
                let pixel = source[row + x]
                if pixel == 0 { continue }
                let (r, g, b) = GIFPixel.channels(pixel)
                let slot = (x + 1) * 3
                let wanted = [
                    min(max(r + Int(current[slot] / 16), 0), 255),
                    min(max(g + Int(current[slot + 1] / 16), 0), 255),
                    min(max(b + Int(current[slot + 2] / 16), 0), 255),
                ]
                let chosen = palette[nearest(wanted[0], wanted[1], wanted[2])]
                target[row + x] = chosen
                let (cr, cg, cb) = GIFPixel.channels(chosen)
                let errors = [wanted[0] - cr, wanted[1] - cg, wanted[2] - cb]
                for channel in 0..<3 {
                    let error = Int32(errors[channel])
                    current[slot + 3 + channel] += error * 7
                    next[slot - 3 + channel] += error * 3
                    next[slot + channel] += error * 5
                    next[slot + 3 + channel] += error
                }
            }
            swap(&current, &next)
        }
    }
}

/// What choosing a palette of a frame's own needs from frame to frame: a copy of the shared
/// mapper (its cache of nearest colours then fills on the thread that chooses, and is never
/// copied again) and the histograms ``GIFPaletteMapper/ownPalette(for:previousSource:colors:scratch:)``
/// fills, whose megabyte is allocated once rather than twice a frame.
///
/// `@unchecked Sendable`: one owner at a time; the GIF writer hands it to the thread that
/// chooses the next frame's palette and takes it back when that thread is joined.
final class GIFPaletteChooser: @unchecked Sendable {
    private var shared: GIFPaletteMapper
    var training = GIFHistogram()
    var whole = GIFHistogram()

    init(shared: GIFPaletteMapper) {
        self.shared = shared
    }

    /// `source` (a frame of `width` x `height`) mapped whole onto a palette of its own with
    /// `dither`, when one pays (``GIFPaletteMapper/ownPalette(for:previousSource:colors:scratch:)``
    /// of the shared mapper); otherwise `nil`. Without what the decoder shows, the result depends
    /// on nothing but the frame, so any thread may make it.
    func mappedOnOwnPalette(
        _ source: [UInt32], previousSource: [UInt32]?, colors: Int, width: Int, height: Int,
        dither: ImageWriteOptions.Dither
    ) -> [UInt32]? {
        guard var own = shared.ownPalette(for: source, previousSource: previousSource, colors: colors, scratch: self)
        else { return nil }
        return own.map(source, width: width, height: height, previousSource: nil, displayed: nil, dither: dither)
    }
}
