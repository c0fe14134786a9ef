/// Encodes each frame of an animation as the smallest GIF image that makes a decoder show it
/// exactly, keeping the canvas the decoder will have (``displayed``).
///
/// A frame is given whole (canvas-sized packed ``GIFPixel``s, at most 256 colours within what
/// changed) together with the frame after it. It is stored as the rectangle that differs from
/// the canvas a decoder shows before it. GIF cannot draw a transparent pixel over an opaque
/// one, so where the next frame turns opaque pixels transparent, this frame's rectangle also
/// covers them and its disposal is `background` (clear to transparent); otherwise it is `none`.
/// `previous` is never used (decoders disagree on it and it costs a saved canvas). Frame 0 is
/// stored as the rectangle of its visible pixels, like any other frame against the transparent
/// canvas a decoder starts with; when that leaves part of the screen uncovered, the frame
/// carries a transparent index and the screen's background index names it
/// (``Planned/Records/background``), so that decoders which fill an uncovered screen with the
/// background colour (Pillow, ffmpeg, ImageMagick) fill it transparent, as gifsicle also writes.
///
/// Inside the rectangle, pixels that stay the same are drawn in their colour, with the
/// transparent index (which leaves the canvas alone), or either, as the LZW encoder finds
/// shorter pixel by pixel; the three are compressed and the smallest kept (a large rectangle
/// chooses on a sample of its rows), then also with the full table kept and, where it compresses
/// well, parsed flexibly (``GIFLZWEncoder``). It is written with the global colour table when it
/// holds every colour needed (and an entry no drawn colour takes, for transparency), and with a
/// local table of just the colours drawn when there is no such global table or the local one
/// needs fewer bits a code. The LZW code size follows the largest index drawn, not the table's
/// size. A Graphic Control Extension is written only when it says something: a delay, a
/// transparent index or a disposal that clears.
struct GIFFrameEncoder {
    /// Canvas width in pixels.
    let width: Int
    /// Canvas height in pixels.
    let height: Int
    /// Whether every frame gets a Graphic Control Extension (an animation), or only frames
    /// that need one for transparency or disposal (a still).
    let isAnimated: Bool
    /// Whether some frame has transparent pixels.
    let hasTransparency: Bool
    /// The global colour table's entries, padded to its stored size; empty when there is none.
    let globalTable: [UInt32]
    /// For lossy output, the OkLab error the LZW encoder may make per pixel
    /// (``GIFLossy/maxError(for:)``); 0 codes every pixel exactly.
    let lossyError: Float
    private let globalIndex: GIFColorIndex
    /// What a decoder shows once every frame encoded so far has been drawn and disposed of.
    private(set) var displayed: [UInt32]
    private var framesEncoded = 0

    /// Starts at a transparent canvas.
    /// - Parameters:
    ///   - globalTable: the global colour table's entries (a power of two of them), or empty.
    ///   - hasTransparency: whether some frame has transparent pixels.
    ///   - lossyError: the error lossy LZW may make per pixel, 0 (the default) for none.
    init(
        width: Int, height: Int, isAnimated: Bool, hasTransparency: Bool, globalTable: [UInt32], lossyError: Float = 0
    ) {
        self.lossyError = lossyError
        self.width = width
        self.height = height
        self.isAnimated = isAnimated
        self.hasTransparency = hasTransparency
        self.globalTable = globalTable
        var index = GIFColorIndex(capacity: max(globalTable.count, 1))
        for (position, color) in globalTable.enumerated() where color != 0 {
            index.insert(color, index: UInt8(truncatingIfNeeded: position))
        }
        globalIndex = index
        displayed = [UInt32](repeating: GIFPixel.transparent, count: width * height)
    }

    /// A rectangle of the canvas, possibly empty.
    struct Rect: Sendable, Equatable {
        var minX: Int
        var minY: Int
        var maxX: Int
        var maxY: Int

        static let empty = Rect(minX: .max, minY: .max, maxX: -1, maxY: -1)
        var isEmpty: Bool { maxX < minX || maxY < minY }
        var width: Int { isEmpty ? 0 : maxX - minX + 1 }
        var height: Int { isEmpty ? 0 : maxY - minY + 1 }

        mutating func formUnion(_ other: Rect) {
            minX = min(minX, other.minX)
            minY = min(minY, other.minY)
            maxX = max(maxX, other.maxX)
            maxY = max(maxY, other.maxY)
        }
    }

    /// How unchanged pixels inside the rectangle are drawn.
    private enum Variant: Sendable {
        /// The transparent index: the canvas keeps them.
        case transparentUnchanged
        /// Their own colour.
        case opaqueUnchanged
        /// Either, pixel by pixel, as the LZW encoder finds shorter.
        case either
    }

    /// One encoded image: its colour table choice and compressed data.
    private struct Encoded: Sendable {
        var localTable: [UInt32]?
        var transparentIndex: UInt8?
        var data: [UInt8]

        /// The bytes it takes in the file, its local table included.
        var size: Int { data.count + (localTable.map { 3 << GIFPixel.tableBits(forEntries: $0.count) } ?? 0) }
    }

    /// Encodes `target`, shown for `delayCentiseconds`, and appends its records (Graphic
    /// Control Extension, image descriptor, local colour table, image data) to `output`.
    /// - Parameters:
    ///   - target: the whole canvas the decoder must show, ``width`` x ``height``.
    ///   - next: the frame after it (only its transparent pixels matter), or `nil` for the last.
    mutating func encode(target: [UInt32], delayCentiseconds: Int, next: [UInt32]?, into output: inout [UInt8]) {
        output += plan(target: target, delayCentiseconds: delayCentiseconds, next: next).records()
    }

    /// A frame whose rectangle and disposal are decided, the encoder's canvas already past it:
    /// what is left, compressing it, depends on nothing else, so it can run on another thread
    /// while the caller prepares the next frame.
    struct Planned: Sendable {
        /// The encoder as it was before the frame (its canvas, tables and frame count).
        fileprivate let before: GIFFrameEncoder
        fileprivate let target: [UInt32]
        fileprivate let rect: Rect
        fileprivate let disposal: Int
        fileprivate let delayCentiseconds: Int

        /// A frame's records and what the logical screen should say of it.
        struct Records: Sendable {
            /// Graphic Control Extension, image descriptor, local colour table, image data.
            var bytes: [UInt8]
            /// For frame 0 when it leaves part of the screen uncovered and draws with the global
            /// table: its transparent index, which the screen's background index should name.
            var background: UInt8?
        }

        /// The frame's records (Graphic Control Extension, image descriptor, local colour table,
        /// image data).
        func records() -> [UInt8] { recordsAndBackground().bytes }

        /// ``records()``, and the background index frame 0 asks the logical screen for.
        func recordsAndBackground() -> Records {
            // A frame cleared afterwards carries a transparent index even when it draws none:
            // Pillow and ffmpeg clear to transparent only then (else to the background colour).
            // Frame 0 of an animation with transparency carries one too: Pillow decodes every
            // later frame without alpha unless frame 0 has a transparent index.
            let covers = rect.minX == 0 && rect.minY == 0 && rect.width == before.width && rect.height == before.height
            let best = before.encodeBetterWay(
                target, in: rect,
                transparentIndex: disposal == 2 || (before.framesEncoded == 0 && (before.hasTransparency || !covers)))
            var output: [UInt8] = []
            // An extension with no delay, no transparent index and no clearing says what a decoder
            // assumes without one.
            if best.transparentIndex != nil || disposal == 2 || delayCentiseconds != 0 {
                output +=
                    GIFGraphicControl(
                        delayCentiseconds: min(max(delayCentiseconds, 0), 0xFFFF), disposalMethod: disposal,
                        transparentIndex: best.transparentIndex
                    ).serialized
            }
            output.append(0x2C)
            for value in [rect.minX, rect.minY, rect.width, rect.height] {
                output += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
            }
            if let local = best.localTable {
                let bits = GIFPixel.tableBits(forEntries: local.count)
                output.append(0x80 | UInt8(bits - 1))
                output += GIFPixel.colorTable(local, count: 1 << bits)
            } else {
                output.append(0)
            }
            output += best.data
            let background =
                before.framesEncoded == 0 && !covers && best.localTable == nil ? best.transparentIndex : nil
            return Records(bytes: output, background: background)
        }
    }

    /// Decides how `target`, shown for `delayCentiseconds`, is stored (the rectangle that
    /// changes, and the disposal that clears what `next` turns transparent) and moves
    /// ``displayed`` past it; ``Planned/records()`` then compresses it.
    /// - Parameters:
    ///   - target: the whole canvas the decoder must show, ``width`` x ``height``.
    ///   - next: the frame after it (only its transparent pixels matter), or `nil` for the last.
    mutating func plan(target: [UInt32], delayCentiseconds: Int, next: [UInt32]?) -> Planned {
        var rect = differences(target)
        var clear = Rect.empty
        if let next { clear = cleared(target, next: next) }
        rect.formUnion(clear)
        if rect.isEmpty { rect = Rect(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        let disposal = clear.isEmpty ? 1 : 2
        let planned = Planned(
            before: self, target: target, rect: rect, disposal: disposal, delayCentiseconds: delayCentiseconds)

        // What the decoder shows next: the target, then this frame's disposal.
        displayed = target
        if disposal == 2 {
            displayed.withUnsafeMutableBufferPointer { canvas in
                for y in rect.minY...rect.maxY {
                    let row = y * width
                    for x in rect.minX...rect.maxX { canvas[row + x] = GIFPixel.transparent }
                }
            }
        }
        framesEncoded += 1
        return planned
    }

    /// The bounding box of the pixels where `target` differs from ``displayed``.
    private func differences(_ target: [UInt32]) -> Rect {
        var rect = Rect.empty
        target.withUnsafeBufferPointer { new in
            displayed.withUnsafeBufferPointer { old in
                for y in 0..<height {
                    let row = y * width
                    var x = 0
                    while x < width && new[row + x] == old[row + x] { x += 1 }
                    guard x < width else { continue }
                    var last = width - 1
                    while new[row + last] == old[row + last] { last -= 1 }
                    rect.minX = min(rect.minX, x)
                    rect.maxX = max(rect.maxX, last)
                    rect.minY = min(rect.minY, y)
                    rect.maxY = y
                }
            }
        }
        return rect
    }

    /// The bounding box of the pixels opaque in `target` and transparent in `next`.
    private func cleared(_ target: [UInt32], next: [UInt32]) -> Rect {
        var rect = Rect.empty
        target.withUnsafeBufferPointer { now in
            next.withUnsafeBufferPointer { later in
                for y in 0..<height {
                    let row = y * width
                    for x in 0..<width where later[row + x] == 0 && now[row + x] != 0 {
                        rect.minX = min(rect.minX, x)
                        rect.maxX = max(rect.maxX, x)
                        rect.minY = min(rect.minY, y)
                        rect.maxY = y
                    }
                }
            }
        }
        return rect
    }

    /// The rectangle drawn the way that compresses smallest of three: its unchanged pixels drawn
    /// in their colour (no transparent entry, which may save a bit per code or a local table's
    /// entry), all transparent, or either as the LZW encoder finds shorter (``Variant/either``),
    /// each with the tables it may use; the smallest then also compressed keeping a full table
    /// and, when it compresses well, parsed flexibly. A rectangle larger than ``sampledArea``
    /// picks its way on a sample of its rows. Guessing two of the three from how often the
    /// colour changes along a row (LZW data grows with those changes) missed the smallest on
    /// photographic frames: 1.1% larger than gifsicle -O3 on the corpus' `moon_impact.gif`,
    /// where drawing every pixel wins, 4% on a photographic clip. Ways whose colours fit no
    /// table are left out.
    private func encodeBetterWay(_ target: [UInt32], in rect: Rect, transparentIndex: Bool) -> Encoded {
        let displayed = displayed
        // Whether some visible pixel is unchanged; when none is, every way draws the same pixels.
        let someUnchanged = target.withUnsafeBufferPointer { new in
            displayed.withUnsafeBufferPointer { old in
                for y in rect.minY...rect.maxY {
                    let row = y * width
                    for x in rect.minX...rect.maxX where new[row + x] != 0 && new[row + x] == old[row + x] {
                        return true
                    }
                }
                return false
            }
        }
        var variants: [Variant] =
            someUnchanged ? [.opaqueUnchanged, .either, .transparentUnchanged] : [.opaqueUnchanged]
        let area = rect.width * rect.height
        if variants.count > 1, area > Self.sampledArea {
            variants = [
                bestVariant(of: variants, target, displayed: displayed, in: rect, forceTransparent: transparentIndex)
            ]
        }
        for force in transparentIndex ? [true, false] : [false] {
            var candidates = variants.flatMap { indexed(target, displayed: displayed, in: rect, variant: $0, force) }
            if candidates.isEmpty {
                candidates = indexed(target, displayed: displayed, in: rect, variant: .transparentUnchanged, force)
            }
            // Each way compressed clearing a full table at once; the smaller also keeping a full
            // table while it compresses, when its table filled, and then parsed flexibly.
            let compressed = candidates.map { ($0, $0.compressed(keepingFullTable: false)) }
            guard let (indexed, (cleared, filled)) = compressed.min(by: { $0.1.encoded.size < $1.1.encoded.size })
            else { continue }
            var best = cleared
            var keepingFullTable = false
            if filled {
                let keeping = indexed.compressed(keepingFullTable: true).encoded
                if keeping.size < best.size { (best, keepingFullTable) = (keeping, true) }
            }
            // Flexible parsing pays on data that compresses well (5.6% on a screencast, 1% on the
            // corpus' iss634.gif) and finds next to nothing where the greedy parse already takes
            // 2 bits a pixel or more (0.1% on a photographic clip, for half again its CPU time).
            guard lossyError == 0, best.data.count * 8 < rect.width * rect.height * 2 else { return best }
            let flexible = indexed.compressed(keepingFullTable: keepingFullTable, flexible: true).encoded
            return flexible.size < best.size ? flexible : best
        }
        preconditionFailure("a frame with more colours than a GIF palette holds reached the encoder")
    }

    /// Rectangles larger than this (in pixels) choose their way on a sample of their rows, and
    /// only the way chosen is compressed whole: on a 480x270 photographic clip, compressing all
    /// three whole took half again the CPU time (0.60 s against 0.40 s) for the same bytes. At
    /// 32 Ki pixels the sample chose worse on a screencast's changed rectangles (1.6% larger).
    static let sampledArea = 64 * 1024

    /// The way of `variants` whose data is smallest on a sample of the rectangle's rows (bands of
    /// 8 rows spread over it, about ``sampledArea`` / 2 pixels), a local table counted whole.
    private func bestVariant(
        of variants: [Variant], _ target: [UInt32], displayed: [UInt32], in rect: Rect, forceTransparent: Bool
    ) -> Variant {
        let bandRows = 8
        let bands = max(1, Self.sampledArea / 2 / (rect.width * bandRows))
        let spacing = max(bandRows, rect.height / bands)
        var rows: [Int] = []
        var start = rect.minY
        while start <= rect.maxY, rows.count < bands * bandRows {
            rows += (start...min(start + bandRows - 1, rect.maxY))
            start += spacing
        }
        let scale = Double(rect.height) / Double(rows.count)
        var best = (variant: variants[0], size: Double.infinity)
        for variant in variants {
            let candidates =
                [forceTransparent, false].lazy.map {
                    self.indexed(target, displayed: displayed, in: rect, variant: variant, $0, rows: rows)
                }.first { !$0.isEmpty } ?? []
            for candidate in candidates {
                let encoded = candidate.compressed(keepingFullTable: false).encoded
                let size = Double(encoded.data.count) * scale + Double(encoded.size - encoded.data.count)
                if size < best.size { best = (variant, size) }
            }
        }
        return best.variant
    }

    /// A rectangle as table indices, not yet compressed.
    private struct Indexed {
        var localTable: [UInt32]?
        var transparentIndex: UInt8?
        var codeSize: Int
        var indices: [UInt8]
        /// For ``Variant/either``: 1 where the pixel may be coded as the transparent index.
        var mayBeTransparent: [UInt8]?
        /// The colours of the table the indices point into.
        var table: [UInt32]
        /// The rectangle's width.
        var rowWidth: Int
        /// The lossy LZW encoder's error per pixel; 0 for exact.
        var lossyError: Float

        /// Compressed, with a full LZW table cleared at once or kept while it compresses, each
        /// string the longest the table holds or (`flexible`) the one after which the next
        /// reaches furthest; `filled` says whether the table filled (if not, clearing and keeping
        /// give the same bytes).
        func compressed(keepingFullTable: Bool, flexible: Bool = false) -> (encoded: Encoded, filled: Bool) {
            var data: [UInt8] = []
            if lossyError > 0 {
                indices.withUnsafeBufferPointer { indices in
                    (mayBeTransparent ?? []).withUnsafeBufferPointer { flags in
                        GIFLZWEncoder.encodeLossy(
                            indices, mayBeTransparent: mayBeTransparent == nil ? nil : flags,
                            transparentIndex: transparentIndex, minimumCodeSize: codeSize, rowWidth: rowWidth,
                            table: table, maxError: lossyError, into: &data)
                    }
                }
                return (Encoded(localTable: localTable, transparentIndex: transparentIndex, data: data), false)
            }
            let filled = indices.withUnsafeBufferPointer { indices in
                (mayBeTransparent ?? []).withUnsafeBufferPointer { flags in
                    GIFLZWEncoder.encode(
                        indices, mayBeTransparent: mayBeTransparent == nil ? nil : flags,
                        transparentIndex: transparentIndex, minimumCodeSize: codeSize,
                        keepingFullTable: keepingFullTable, flexible: flexible, into: &data)
                }
            }
            return (Encoded(localTable: localTable, transparentIndex: transparentIndex, data: data), filled)
        }
    }

    /// The rectangle drawn as `variant`, as indices into the tables it may use: the global
    /// table when it holds every colour (and a free entry when a transparent index is needed),
    /// and a local table of just the colours drawn when there is no such global table or when
    /// the local one's code size is smaller (a few colours that lie high in a large global table:
    /// the smaller code may pay for the table). Empty when the colours (and the transparent
    /// index the frame needs, or `forceTransparent` asks for) fit in no colour table.
    private func indexed(
        _ target: [UInt32], displayed: [UInt32], in rect: Rect, variant: Variant, _ forceTransparent: Bool,
        rows: [Int]? = nil
    ) -> [Indexed] {
        let rows = rows ?? Array(rect.minY...rect.maxY)
        guard let drawn = drawn(target, displayed: displayed, in: rect, variant: variant, rows: rows),
            let global = tabled(
                drawn, target, displayed: displayed, in: rect, variant: variant, forceTransparent, local: false)
        else { return [] }
        // A local table's code size follows from how many entries it has.
        let localEntries = drawn.colors.count + (drawn.needsTransparent(variant, forceTransparent) ? 1 : 0)
        guard global.localTable == nil, global.codeSize > GIFPixel.tableBits(forEntries: max(localEntries, 4)),
            let local = tabled(
                drawn, target, displayed: displayed, in: rect, variant: variant, forceTransparent, local: true)
        else { return [global] }
        return [global, local]
    }

    /// A rectangle's rows as positions among the colours they draw, before a table is chosen.
    private struct Drawn {
        /// The colours drawn, in order of first use.
        var colors: GIFColorIndex
        /// Each pixel's position among ``colors`` (its index in a local table); 0 for now where
        /// the pixel is drawn transparent.
        var positions: [UInt8]
        /// For ``Variant/either``: 1 where the pixel may be coded transparent (the canvas shows it).
        var flags: [UInt8]
        /// How many pixels are drawn transparent.
        var transparentPositions: Int
        /// The rows, one after another.
        var rows: [Int]

        /// Whether the image needs a transparent index.
        func needsTransparent(_ variant: Variant, _ forceTransparent: Bool) -> Bool {
            forceTransparent || transparentPositions > 0 || variant == .either
        }
    }

    /// `rows` of the rectangle drawn as `variant`, in one pass; `nil` when they draw more colours
    /// than a table holds.
    private func drawn(_ target: [UInt32], displayed: [UInt32], in rect: Rect, variant: Variant, rows: [Int])
        -> Drawn?
    {
        let width = width
        var colors = GIFColorIndex(capacity: 256)
        var indices = [UInt8](repeating: 0, count: rect.width * rows.count)
        var flags = [UInt8](repeating: 0, count: variant == .either ? indices.count : 0)
        var transparentPositions = 0
        let fits: Bool = target.withUnsafeBufferPointer { new in
            displayed.withUnsafeBufferPointer { old in
                indices.withUnsafeMutableBufferPointer { out in
                    flags.withUnsafeMutableBufferPointer { unchanged in
                        let flagging = variant == .either
                        var position = 0
                        var last: UInt32 = 0
                        var lastIndex: UInt8 = 0
                        for y in rows {
                            let row = y * width
                            for x in rect.minX...rect.maxX {
                                let pixel = new[row + x]
                                if pixel == 0 || (variant == .transparentUnchanged && pixel == old[row + x]) {
                                    transparentPositions += 1
                                    out[position] = 0
                                    position += 1
                                    continue
                                }
                                if pixel != last {
                                    guard let index = colors.indexAdding(pixel) else { return false }
                                    last = pixel
                                    lastIndex = index
                                }
                                if flagging && pixel == old[row + x] { unchanged[position] = 1 }
                                out[position] = lastIndex
                                position += 1
                            }
                        }
                        return true
                    }
                }
            }
        }
        guard fits else { return nil }
        return Drawn(
            colors: colors, positions: indices, flags: flags, transparentPositions: transparentPositions, rows: rows)
    }

    /// `drawn` as indices into the global table (`local` false: when it holds every colour and,
    /// if needed, a free entry, else a local table) or into a local table (`local` true); `nil`
    /// when the colours (and the transparent index the frame needs, or `forceTransparent` asks
    /// for) fit in no table.
    private func tabled(
        _ drawn: Drawn, _ target: [UInt32], displayed: [UInt32], in rect: Rect, variant: Variant,
        _ forceTransparent: Bool, local: Bool
    ) -> Indexed? {
        let width = width
        let (colors, rows, transparentPositions) = (drawn.colors, drawn.rows, drawn.transparentPositions)
        var indices = drawn.positions
        let needsTransparent = drawn.needsTransparent(variant, forceTransparent)

        // The global table, when it holds every colour and, if needed, a free entry; else a
        // local table of the colours drawn, the transparent entry last.
        var localTable: [UInt32]?
        var transparentIndex: UInt8?
        var useGlobal = false
        if !local, !globalTable.isEmpty, colors.colors.allSatisfy({ globalIndex.contains($0) }) {
            if needsTransparent {
                var used = [Bool](repeating: false, count: globalTable.count)
                for color in colors.colors { if let index = globalIndex.index(of: color) { used[Int(index)] = true } }
                if let free = used.firstIndex(of: false) {
                    transparentIndex = UInt8(truncatingIfNeeded: free)
                    useGlobal = true
                }
            } else {
                useGlobal = true
            }
        }
        if !useGlobal {
            guard colors.count + (needsTransparent ? 1 : 0) <= 256 else { return nil }
            localTable = colors.colors
            transparentIndex = needsTransparent ? UInt8(truncatingIfNeeded: colors.count) : nil
        }
        // The code size follows the largest index drawn, not the table's size: a frame drawn with
        // the first colours of a large global table is coded in fewer bits a code (as gifsicle
        // writes; decoders need every index below 2^size, nothing more).
        let largestIndex: Int
        if useGlobal {
            var largest = Int(transparentIndex ?? 0)
            for color in colors.colors { largest = max(largest, Int(globalIndex.index(of: color) ?? 0)) }
            largestIndex = largest
        } else {
            largestIndex = colors.count + (needsTransparent ? 1 : 0) - 1
        }
        let codeSize = max(2, GIFPixel.tableBits(forEntries: max(largestIndex + 1, 2)))

        // Positions among the colours drawn to table indices: the global table's, or the local
        // table's (the same), with the transparent pixels at the transparent index.
        let clearIndex = transparentIndex ?? 0
        if useGlobal || transparentPositions > 0 {
            let remap: [UInt8] = useGlobal ? colors.colors.map { globalIndex.index(of: $0) ?? 0 } : Array(0...255)
            target.withUnsafeBufferPointer { new in
                displayed.withUnsafeBufferPointer { old in
                    remap.withUnsafeBufferPointer { remap in
                        indices.withUnsafeMutableBufferPointer { out in
                            var position = 0
                            for y in rows {
                                let row = y * width
                                for x in rect.minX...rect.maxX {
                                    let pixel = new[row + x]
                                    if pixel == 0 || (variant == .transparentUnchanged && pixel == old[row + x]) {
                                        out[position] = clearIndex
                                    } else {
                                        out[position] = remap[Int(out[position])]
                                    }
                                    position += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return Indexed(
            localTable: localTable, transparentIndex: transparentIndex, codeSize: codeSize, indices: indices,
            mayBeTransparent: variant == .either ? drawn.flags : nil, table: localTable ?? globalTable,
            rowWidth: rect.width,
            lossyError: lossyError)
    }
}
