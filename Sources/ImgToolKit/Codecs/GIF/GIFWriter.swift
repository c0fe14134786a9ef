/// Writes any ``FrameSource`` as a GIF, streaming, exactly whenever the frames allow it.
///
/// Two passes over the source, so memory stays bounded whatever the frame count; pass 1 keeps
/// its last frames up to ``keptBytes`` and pass 2 reads the source again only for the frames
/// before them (an animation that fits is decoded once):
/// 1. Every frame shown is flattened or thresholded to one-bit alpha and its colours counted
///    (all of them, or, after a frame written exactly, those of the pixels it changes).
///    When every frame fits in ``ImageWriteOptions/colors`` (the transparent index aside), the
///    file is exact: one global colour table when all frames' colours together fit, otherwise a
///    local table for each frame whose colours are not in the global one. Frames that do not
///    fit feed a weighted histogram (changed pixels, weighted by time on screen), from which
///    ``GIFQuantizer`` builds one global palette.
/// 2. Frames are mapped (only those that do not fit: onto the global palette, or, whole, onto one
///    of their own where that pays, ``GIFPaletteMapper/ownPalette(for:previousSource:colors:scratch:)``) and encoded by
///    ``GIFFrameEncoder`` as the rectangles that change, one frame behind the source so that
///    each frame knows whether the next one needs pixels cleared. With ``inParallel``, the
///    palette of a frame's own is chosen, and the frame mapped onto it, on a second thread while
///    this one maps and compresses the frames before it.
///
/// Timing follows ``GIFTiming`` (frames under 20 ms folded by ``WrittenTiming``, as every
/// animated writer does); consecutive identical frames of a non-GIF source are merged
/// and their delays summed (a GIF source read as stored keeps its frames one for one;
/// ``ImageInfo/framesAreDerived``). Plays: 1 writes no
/// loop extension, N writes NETSCAPE2.0 with loop value N - 1, 0 (forever) writes loop value
/// 0 (more than 65536 plays are written as 65536, ``AnimationLimits``). The header is `GIF89a` whenever an extension is written, `GIF87a` otherwise.
struct GIFWriter {
    let options: ImageWriteOptions

    /// What pass 1 learns.
    private struct Analysis {
        /// Per shown frame: whether its colours fit a palette exactly.
        var fits: [Bool] = []
        /// Every colour of every frame, while they fit.
        var union: GIFColorIndex
        var unionFits = true
        /// Per frame while ``union`` fits: the colours it changes the canvas with (all of frame
        /// 0's), when they could be counted.
        var drawnColors: [[UInt32]] = []
        var firstColors: [UInt32] = []
        var hasTransparency = false
        var histogram: GIFHistogram?
        /// The last frames shown, prepared, as many as fit in ``GIFWriter/keptBytes``: pass 2 takes them
        /// from here rather than from the source.
        var kept: [(index: Int, delay: Int, pixels: [UInt32])] = []
        var keptBytes = 0
        /// Whether some frame was let go of to stay within ``GIFWriter/keptBytes``.
        var droppedAny = false

        /// Whether the global table (`global`, before padding) needs an entry no colour takes,
        /// for the transparent index of frames drawn with it: not when every frame after the
        /// first changes the canvas with fewer colours than the table holds, so that a colour
        /// it does not draw can serve (as gifsicle does), and frame 0, when it has transparent
        /// pixels, leaves one out too. Then a spare entry that would double the table's size is
        /// not paid for; a frame that finds no free entry after all takes a local table.
        func needsSpareEntry(shown: Int, global: [UInt32]) -> Bool {
            guard shown > 1 || hasTransparency else { return false }
            guard unionFits, global.count == union.count, drawnColors.count == shown,
                let first = drawnColors.first
            else { return true }
            if hasTransparency && first.count >= global.count { return true }
            return drawnColors.dropFirst().contains { $0.count >= global.count }
        }

        /// ``union``'s colours ordered so that frames drawing few colours find them at the
        /// lowest indices: the colours of the frame that draws fewest first, then those of the
        /// next, and so on (in order of first use among equals). A frame whose indices all lie
        /// low is coded with a small LZW code size (``GIFFrameEncoder``).
        var orderedUnion: [UInt32] {
            var placed = GIFColorIndex(capacity: max(union.count, 1))
            let frames = drawnColors.indices.sorted { a, b in
                drawnColors[a].count != drawnColors[b].count ? drawnColors[a].count < drawnColors[b].count : a < b
            }
            for frame in frames {
                for color in drawnColors[frame] { _ = placed.add(color) }
            }
            for color in union.colors { _ = placed.add(color) }
            return placed.colors
        }
    }

    /// The most bytes of prepared frames pass 1 keeps for pass 2 (64 MiB by default): an
    /// animation up to this size (100 frames of 480x270 take 52 MB) is decoded, and resized or
    /// composited, once; a larger one has only its last frames kept, and memory stays bounded
    /// whatever the frame count.
    var keptBytes = 64 << 20

    /// Whether a second thread is used: a frame's own palette chosen while the frames before it
    /// are mapped and compressed, and large frames mapped in two halves. The bytes are the same
    /// either way; tests turn it off to check that.
    var inParallel = availableProcessors > 1

    /// Writes `source` into `sink`.
    ///
    /// A GIF read as stored and written with nothing changed
    /// (``GIFPassThrough/candidate(for:options:)``) is made in memory first and compared with the
    /// input's own drawing records; the smaller is written (the input's on a tie, so that a file
    /// no smaller made is kept byte for byte), so the output is never larger than those records.
    /// - Throws: ``ImgToolError``: `invalidArgument` for options out of range or a canvas larger
    ///   than 65535 pixels a side; decoding errors from `source`; `writeFailed`; `cancelled`.
    func write(
        _ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?
    ) throws(ImgToolError) {
        guard let original = GIFPassThrough.candidate(for: source, options: options) else {
            return try writeMade(source, into: &sink, progress: progress)
        }
        var made = ByteSink()
        try writeMade(source, into: &made, progress: progress)
        try sink.append(made.bytes.count < original.count ? made.bytes : original)
    }

    /// Makes the GIF (see the type's description) into `sink`.
    private func writeMade(
        _ source: any FrameSource, into sink: inout ByteSink, progress: (@Sendable (Int) -> Void)?
    ) throws(ImgToolError) {
        let source = source.timedForWriting(as: .gif)
        let info = source.info
        guard (2...256).contains(options.colors) else {
            throw ImgToolError(.invalidArgument, "--colors must be 2...256, not \(options.colors)")
        }
        guard (0...GIFLossy.maximum).contains(options.lossy) else {
            throw ImgToolError(.invalidArgument, "--lossy must be 0...\(GIFLossy.maximum), not \(options.lossy)")
        }
        guard (0...256).contains(options.alphaThreshold) else {
            throw ImgToolError(.invalidArgument, "--alpha-threshold must be 0...256, not \(options.alphaThreshold)")
        }
        guard (1...0xFFFF).contains(info.width), (1...0xFFFF).contains(info.height) else {
            throw ImgToolError(
                .invalidArgument, "cannot write a \(info.width)x\(info.height) GIF: sides must be 1...65535")
        }
        // Past 65536 plays, the most a loop value holds (``AnimationLimits``; noted before writing).
        let plays = AnimationLimits.gif.clamped(plays: options.plays ?? info.plays)
        // A GIF read as stored keeps its frames and centiseconds one for one; frames made by
        // operations are merged when repeated, their rounding carried.
        let isGIF = info.format == .gif && !info.framesAreDerived
        let delays = GIFTiming.centiseconds(for: info)
        let shown = delays.compactMap { $0 }.count

        // Pass 1: colours.
        var analysis = try analyze(source, delays: delays)

        // The global table.
        var global: [UInt32]
        var mapper: GIFPaletteMapper?
        if analysis.fits.allSatisfy({ $0 }) {
            global = analysis.unionFits ? analysis.orderedUnion : analysis.firstColors
        } else {
            let histogram = analysis.histogram ?? GIFHistogram()
            let palette = GIFQuantizer.palette(from: histogram, count: min(options.colors, 255))
            mapper = GIFPaletteMapper(palette: palette, inParallel: inParallel)
            global = palette
        }
        let reserve = analysis.needsSpareEntry(shown: shown, global: global) ? 1 : 0
        // A spare entry for the transparent index, when the colours leave room for one.
        let tableBits = GIFPixel.tableBits(forEntries: min(max(global.count + reserve, 2), 256))
        global += [UInt32](repeating: 0, count: (1 << tableBits) - global.count)

        // Header, logical screen, global table, loop extension.
        let loops = plays != 1
        let extensions = shown > 1 || analysis.hasTransparency || loops || delays.contains { ($0 ?? 0) != 0 }
        var head = Array((extensions ? "GIF89a" : "GIF87a").utf8)
        head += [
            UInt8(truncatingIfNeeded: info.width), UInt8(truncatingIfNeeded: info.width >> 8),
            UInt8(truncatingIfNeeded: info.height), UInt8(truncatingIfNeeded: info.height >> 8),
            0x80 | 0x70 | UInt8(tableBits - 1), 0, 0,
        ]
        head += GIFPixel.colorTable(global, count: global.count)
        if loops { head += GIFLoopExtension(value: plays == 0 ? 0 : plays - 1).serialized }
        // Written with frame 0, whose records may name the background index.
        var pendingHead: [UInt8]? = head

        // Pass 2: frames, in a pipeline. When a frame arrives, whether a palette of its own pays
        // is decided, and the palette built and the frame mapped onto it
        // (``GIFPaletteChooser/mappedOnOwnPalette(_:previousSource:colors:width:height:dither:)``,
        // the costly step) on a second thread, while this one compresses the frame two back and
        // maps the one before onto the shared palette (which needs what the decoder shows after
        // the frame two back). The bytes are the same on one thread.
        var encoder = GIFFrameEncoder(
            width: info.width, height: info.height, isAnimated: shown > 1, hasTransparency: analysis.hasTransparency,
            globalTable: global, lossyError: GIFLossy.maxError(for: options.lossy))
        let colors = min(options.colors, 255)
        /// A frame whose palette is chosen: mapped already when onto a palette of its own.
        struct Chosen {
            var prepared: [UInt32]
            var previous: [UInt32]?
            var fits: Bool
            var ownMapped: [UInt32]?
            var delay: Int
        }
        var chosen: Chosen?
        /// A frame mapped, not yet written.
        var ready: (target: [UInt32], delay: Int)?
        var shownIndex = 0
        let chooser = mapper.map(GIFPaletteChooser.init)
        // When pass 1 kept every frame, the palettes of their own are chosen, and the frames
        // mapped onto them, ahead, on a helper thread, a few frames in front of the frame this
        // one compresses (see ``OwnPalettesAhead``); otherwise each is chosen alongside the
        // frames before it.
        var ahead: OwnPalettesAhead?
        if inParallel, !analysis.droppedAny, let mapper {
            let jobs = Self.paletteJobs(analysis.kept, fits: analysis.fits, mergesRepeats: !isGIF)
            if !jobs.isEmpty {
                ahead = OwnPalettesAhead(
                    jobs: jobs, shared: mapper, colors: colors, width: info.width, height: info.height,
                    dither: options.dither)
            }
        }
        defer { ahead?.stop() }
        var nextJob = 0
        /// The canvas to write for `frame`: itself, or mapped onto its palette.
        func map(_ frame: Chosen, displayed: [UInt32]) -> [UInt32] {
            if frame.fits { return frame.prepared }
            if let mapped = frame.ownMapped { return mapped }
            return mapper?.map(
                frame.prepared, width: info.width, height: info.height, previousSource: frame.previous,
                displayed: displayed, dither: options.dither) ?? frame.prepared
        }
        /// Writes `ready` (with `chosen` as the frame after it) and maps `chosen` into `ready`,
        /// while `side` runs on a second thread (on this one after, without ``inParallel``).
        func advance<Side: Sendable>(alongside side: (@Sendable () -> Side)?) throws(ImgToolError) -> Side? {
            let planned = ready.map { held in
                encoder.plan(target: held.target, delayCentiseconds: held.delay, next: chosen?.prepared)
            }
            let displayed = encoder.displayed
            let front = { (planned?.recordsAndBackground(), chosen.map { map($0, displayed: displayed) }) }
            let sideResult: Side?
            let (records, target): (GIFFrameEncoder.Planned.Records?, [UInt32]?)
            if let side, inParallel {
                (sideResult, (records, target)) = forkJoin(side, alongside: front)
            } else {
                (records, target) = front()
                sideResult = side?()
            }
            if let records {
                if var head = pendingHead {
                    if let background = records.background { head[11] = background }
                    try sink.append(head)
                    pendingHead = nil
                }
                try sink.append(records.bytes)
            }
            ready = chosen.flatMap { frame in target.map { ($0, frame.delay) } }
            return sideResult
        }
        /// Takes the next shown frame.
        func add(_ prepared: [UInt32], index: Int, delay: Int) throws(ImgToolError) {
            defer {
                shownIndex += 1
                progress?(index + 1)
            }
            let fits = analysis.fits[shownIndex]
            // Merged only while the sum fits a delay (65535 cs); a longer run is written as frames.
            if var held = chosen, !isGIF, held.prepared == prepared, held.delay + delay <= 0xFFFF {
                held.delay += delay
                chosen = held
                return
            }
            let previous = chosen?.prepared
            var ownMapped: [UInt32]?
            if let ahead, !fits {
                ownMapped = try ahead.mapped(nextJob)
                nextJob += 1
                _ = try advance(alongside: nil as (@Sendable () -> Int)?)
            } else if let chooser, !fits {
                let (width, height, dither) = (info.width, info.height, options.dither)
                ownMapped =
                    try advance {
                        chooser.mappedOnOwnPalette(
                            prepared, previousSource: previous, colors: colors, width: width, height: height,
                            dither: dither)
                    } ?? nil
            } else {
                _ = try advance(alongside: nil as (@Sendable () -> Int)?)
            }
            chosen = Chosen(
                prepared: prepared, previous: previous, fits: fits, ownMapped: ownMapped, delay: delay)
        }
        // The frames before those pass 1 kept are read again; the kept ones are taken as they are.
        var kept = analysis.kept
        analysis.kept = []
        let firstKept = kept.first?.index ?? Int.max
        if firstKept > 0 {
            let reader = try source.makeFrameReader(depth: .eight)
            var next = 0
            while next < firstKept, let frame = try reader.nextFrame() {
                next = frame.index + 1
                if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing frame \(frame.index)") }
                guard delays.indices.contains(frame.index), let delay = delays[frame.index] else { continue }
                try add(prepare(frame.image), index: frame.index, delay: delay)
            }
        }
        for position in kept.indices {
            let frame = kept[position]
            kept[position].pixels = []
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while writing frame \(frame.index)") }
            try add(frame.pixels, index: frame.index, delay: frame.delay)
        }
        guard chosen != nil else { throw ImgToolError(.corrupt, "the image has no frames to write") }
        _ = try advance(alongside: nil as (@Sendable () -> Int)?)  // the last but one written, the last mapped
        chosen = nil
        _ = try advance(alongside: nil as (@Sendable () -> Int)?)  // the last written
        try sink.append([0x3B])
    }

    /// The frames of `kept` (every frame shown, in order) whose palettes of their own are to be
    /// chosen, each with the frame shown before it: those that do not fit, leaving out a frame
    /// merged into the one before it (equal to it, when `mergesRepeats`), as pass 2 meets them.
    static func paletteJobs(
        _ kept: [(index: Int, delay: Int, pixels: [UInt32])], fits: [Bool], mergesRepeats: Bool
    ) -> [OwnPalettesAhead.Job] {
        var jobs: [OwnPalettesAhead.Job] = []
        var shown: [UInt32]?
        for (position, frame) in kept.enumerated() {
            if mergesRepeats, let shown, shown == frame.pixels { continue }
            if !fits[position] { jobs.append(OwnPalettesAhead.Job(frame: frame.pixels, previous: shown)) }
            shown = frame.pixels
        }
        return jobs
    }

    /// Pass 1: which frames fit a palette, every colour while they fit, and the histogram of
    /// the frames that do not.
    ///
    /// A frame fits when its colours do, or when the colours of just the pixels it changes do
    /// (one entry kept for the transparent index that leaves the rest of the canvas alone): the
    /// encoder stores only what changes, with a local table when the global one lacks a colour.
    /// The second test holds only when the decoder's canvas before the frame is exactly the
    /// frame before it: that frame was written exactly and nothing was cleared between them
    /// (no pixel turns from opaque to transparent).
    private func analyze(_ source: any FrameSource, delays: [Int?]) throws(ImgToolError) -> Analysis {
        var analysis = Analysis(union: GIFColorIndex(capacity: options.colors))
        var previous: [UInt32]?
        var previousFits = false
        let reader = try source.makeFrameReader(depth: .eight)
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while reading frame \(frame.index)") }
            guard delays.indices.contains(frame.index), let delay = delays[frame.index] else { continue }
            let pixels = prepare(frame.image)
            var (colors, fits, transparent) = countColors(pixels)
            if !fits, previousFits, let before = previous,
                let changed = countChangedColors(pixels, since: before, limit: min(options.colors, 255))
            {
                (colors, fits) = (changed, true)
            }
            previousFits = fits
            if transparent { analysis.hasTransparency = true }
            analysis.fits.append(fits)
            if analysis.fits.count == 1 { analysis.firstColors = colors.colors }
            if fits && analysis.unionFits {
                for color in colors.colors where !analysis.union.add(color) {
                    analysis.unionFits = false
                    break
                }
                if analysis.unionFits {
                    if let before = previous {
                        if let changed = countChangedColors(pixels, since: before, limit: min(options.colors, 255)) {
                            analysis.drawnColors.append(changed.colors)
                        }
                    } else {
                        analysis.drawnColors.append(colors.colors)
                    }
                }
            }
            if !fits {
                var histogram = analysis.histogram ?? GIFHistogram()
                analysis.histogram = nil  // `histogram` the only reference: added to in place
                // Changed pixels count for their time on screen, unchanged ones (still on screen,
                // but already mapped) a tenth of it, sampled one in 8.
                histogram.add(changesOf: pixels, since: previous ?? [], weight: Double(max(delay, 2)))
                analysis.histogram = histogram
            }
            previous = pixels
            analysis.kept.append((frame.index, delay, pixels))
            analysis.keptBytes += pixels.count * 4
            var dropped = 0
            while analysis.keptBytes > keptBytes, dropped < analysis.kept.count {
                analysis.keptBytes -= analysis.kept[dropped].pixels.count * 4
                dropped += 1
            }
            if dropped > 0 {
                analysis.kept.removeFirst(dropped)
                analysis.droppedAny = true
            }
        }
        return analysis
    }

    /// The colours of `pixels` while they fit ``ImageWriteOptions/colors`` (and a transparent
    /// entry when some pixel is transparent), whether they do, and whether some pixel is
    /// transparent.
    private func countColors(_ pixels: [UInt32]) -> (colors: GIFColorIndex, fits: Bool, transparent: Bool) {
        var colors = GIFColorIndex(capacity: options.colors)
        var fits = true
        var transparent = false
        var last: UInt32 = 0
        for pixel in pixels where pixel != last {
            if pixel == 0 {
                transparent = true
                continue
            }
            last = pixel
            if !colors.add(pixel) {
                fits = false
                break
            }
        }
        if !transparent { transparent = pixels.contains(0) }
        if fits && transparent && colors.count + 1 > 256 { fits = false }
        return (colors, fits, transparent)
    }

    /// The colours of the pixels of `pixels` that differ from `before`, or `nil` when they are
    /// more than `limit` or some pixel turns from opaque to transparent (the encoder then clears
    /// a rectangle, and the frame is drawn on a canvas other than `before`).
    private func countChangedColors(_ pixels: [UInt32], since before: [UInt32], limit: Int) -> GIFColorIndex? {
        var colors = GIFColorIndex(capacity: limit)
        let fits = pixels.withUnsafeBufferPointer { now in
            before.withUnsafeBufferPointer { then in
                var last: UInt32 = 0
                for position in 0..<now.count {
                    let pixel = now[position]
                    let old = then[position]
                    if pixel == old { continue }
                    if pixel == 0 { return false }
                    if pixel == last { continue }
                    last = pixel
                    if !colors.add(pixel) { return false }
                }
                return true
            }
        }
        return fits ? colors : nil
    }

    /// A frame as packed pixels: flattened onto ``ImageWriteOptions/background`` when one is
    /// set, else alpha below ``ImageWriteOptions/alphaThreshold`` is transparent (0) and the
    /// rest opaque.
    func prepare(_ image: PixelBuffer) -> [UInt32] {
        let image = image.depth == .eight ? image : image.converted(to: .eight)
        guard case .rgba8(let samples) = image.samples else { return [] }
        let count = image.pixelCount
        let threshold = options.alphaThreshold
        let background = options.background
        return [UInt32](unsharedUninitializedCapacity: count) { out, initialized in
            samples.withUnsafeBufferPointer { bytes in
                if let background {
                    let (br, bg, bb) = (Int(background.red), Int(background.green), Int(background.blue))
                    for position in 0..<count {
                        let a = Int(bytes[position * 4 + 3])
                        func mix(_ value: UInt8, _ under: Int) -> UInt8 {
                            UInt8((Int(value) * a + under * (255 - a) + 127) / 255)
                        }
                        out[position] = GIFPixel.opaque(
                            mix(bytes[position * 4], br), mix(bytes[position * 4 + 1], bg),
                            mix(bytes[position * 4 + 2], bb))
                    }
                } else {
                    // A pixel's four bytes read as one little-endian word are already packed
                    // (red in the low byte): alpha is set to 255, or the word to 0 below the
                    // threshold. One load and a compare a pixel, which the compiler vectorizes.
                    let words = UnsafeRawBufferPointer(bytes)
                    let threshold = UInt32(clamping: threshold)
                    for position in 0..<count {
                        let word = UInt32(
                            littleEndian: words.loadUnaligned(fromByteOffset: position * 4, as: UInt32.self))
                        out[position] = word >> 24 < threshold ? GIFPixel.transparent : word | 0xFF00_0000
                    }
                }
            }
            initialized = count
        }
    }
}

/// Chooses the palettes of their own of an animation's frames (``GIFPaletteMapper/ownPalette(for:previousSource:colors:scratch:)``)
/// and maps the frames onto them, ahead of the writer, on a helper thread, a few frames in front
/// of the frame the writer compresses, through a ``DecodeAhead``: the two threads each keep
/// working instead of meeting at every frame, which matters most when another process holds a
/// core (each then runs as the scheduler allows, and a meeting waits for the slower). A frame
/// asked for before the helper has it is done by the writer's thread, so the work balances
/// itself between the two. A frame on a palette of its own is mapped whole, without what the
/// decoder shows before it, so neither its palette nor its mapping depends on the thread or the
/// order: the file is the same bytes as on one thread.
final class OwnPalettesAhead: Sendable {
    /// A frame whose palette is chosen, and the frame shown before it (`nil` for the first).
    struct Job: Sendable {
        var frame: [UInt32]
        var previous: [UInt32]?
    }

    private let ahead: DecodeAhead<[UInt32]?>

    /// Starts choosing the palettes of `jobs` (frames of `width` x `height`), in order, with a
    /// copy of `shared` per thread, and mapping each frame onto its own with `dither`.
    init(
        jobs: [Job], shared: GIFPaletteMapper, colors: Int, width: Int, height: Int,
        dither: ImageWriteOptions.Dither
    ) {
        // One chooser (a copy of the shared mapper and its histograms) per thread at work.
        let choosers = Locked<[GIFPaletteChooser]>([])
        ahead = DecodeAhead(frameCount: jobs.count, helpers: 1) { index, _, _ in
            let chooser = choosers.withLock { $0.popLast() } ?? GIFPaletteChooser(shared: shared)
            defer { choosers.withLock { $0.append(chooser) } }
            return chooser.mappedOnOwnPalette(
                jobs[index].frame, previousSource: jobs[index].previous, colors: colors, width: width, height: height,
                dither: dither)
        }
    }

    /// Job `index` (asked for in order, each once) mapped onto a palette of its own, or `nil`
    /// where one does not pay.
    func mapped(_ index: Int) throws(ImgToolError) -> [UInt32]? {
        try ahead.decoded(index, isCancelled: { Task.isCancelled })
    }

    /// Ends the helper.
    func stop() { ahead.stop() }
}
