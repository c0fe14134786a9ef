internal import CLibPNG
import Foundation

/// The zlib stream of a PNG's image data, compressed in blocks on every core (pigz's method; the
/// C side is `CLibPNG/png_deflate.c`).
///
/// The filtered rows are cut into blocks of whole rows, about ``blockBytes`` each. A block is
/// deflated on its own, primed with the 32 KiB of filtered data before it, and ends on a byte
/// (a sync flush); the blocks in order, between a zlib header and the Adler-32 of them all, make
/// one stream that any inflater reads. Where blocks start depends only on the row size, so one
/// thread and many write the same bytes; priming keeps the file within a fraction of a percent
/// of one unbroken stream's size.
struct PNGDeflater: Sendable {
    let packer: RowPacker
    let level: Int
    let strategy: PNGEncoder.Strategy
    /// Each row takes the best of PNG's five filters (libpng's heuristic), or none.
    let adaptiveFilters: Bool

    /// At most how many filtered bytes a block holds; ``stillBlockBytes`` but in tests.
    var blockBytes = Self.stillBlockBytes
    /// The block size for a still, from `scripts/bench merge` and `scripts/bench png`: each
    /// block ends its deflate block and starts another, about 100 bytes that a 4:1 photograph
    /// never notices but a GIF-like image, which compresses 50:1, does (a 1920x1080 palette
    /// image: +0.75% at 1 MiB, +0.18% at 2 MiB). A 4096x4096 merge is as fast at 4 MiB as at
    /// 512 KiB on two cores.
    static let stillBlockBytes = 2 << 20
    /// The block size for an animation's frames, which are compressed several at once already:
    /// only a frame past this is split.
    static let frameBlockBytes = 8 << 20
    /// How far back deflate can refer: the priming of each block.
    static let window = 1 << 15

    /// The whole zlib stream of `image`'s rows, compressed on up to `threads` threads.
    /// - Throws: ``ImgToolError`` `tooLarge` when memory runs out.
    func stream(of image: PixelBuffer, threads: Int = availableProcessors) throws(ImgToolError) -> [UInt8] {
        let height = image.height
        let rowBytes = packer.rowBytes
        // As few blocks as the size allows, with the rows shared evenly among them.
        let total = (rowBytes + 1) * height
        let wanted = min(max(1, total / blockBytes + (total % blockBytes == 0 ? 0 : 1)), height)
        let perBlock = (height + wanted - 1) / wanted
        let blockCount = (height + perBlock - 1) / perBlock
        let blocks = BlockResults(count: blockCount)
        defer { blocks.free() }
        let workers = max(1, min(threads, blockCount))
        let work: @Sendable () -> Void = { [self] in
            while let index = blocks.claim() {
                let rows = index * perBlock..<min((index + 1) * perBlock, height)
                blocks.store(
                    index,
                    Result { () throws(ImgToolError) in try deflate(rows, of: image, isLast: rows.upperBound == height)
                    })
            }
        }
        if workers == 1 {
            work()
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { _ in work() }
        }
        return try blocks.joined(level: level, strategy: strategy)
    }

    /// Deflates `rows`, primed with the filtered rows before them.
    private func deflate(_ rows: Range<Int>, of image: PixelBuffer, isLast: Bool) throws(ImgToolError)
        -> imgtool_png_block
    {
        let rowBytes = packer.rowBytes
        let dictionaryRows = min(rows.lowerBound, (Self.window + rowBytes) / (rowBytes + 1))
        let hasAbove = rows.lowerBound - dictionaryRows > 0
        let first = rows.lowerBound - dictionaryRows - (hasAbove ? 1 : 0)
        return try packer.withRows(first..<rows.upperBound, of: image) { packed throws(ImgToolError) in
            var params = imgtool_png_block_params()
            params.above = hasAbove ? packed : nil
            params.rows = hasAbove ? packed + rowBytes : packed
            params.stride = rowBytes
            params.row_bytes = rowBytes
            params.bytes_per_pixel = UInt32(max(1, packer.layout.channels * packer.layout.bitDepth / 8))
            params.dictionary_rows = UInt32(dictionaryRows)
            params.block_rows = UInt32(rows.count)
            params.adaptive = adaptiveFilters ? 1 : 0
            params.level = Int32(level)
            params.strategy = strategy.zlibValue
            params.is_last = isLast ? 1 : 0
            var block = imgtool_png_block()
            guard imgtool_png_deflate_block(&params, &block) == IMGTOOL_PNG_OK else {
                throw ImgToolError(
                    .tooLarge, "out of memory compressing PNG rows \(rows.lowerBound)..<\(rows.upperBound)")
            }
            return block
        }
    }
}

/// The blocks of one stream as workers finish them, and the next block to claim.
private final class BlockResults: Sendable {
    private struct State {
        var results: [Result<imgtool_png_block, ImgToolError>?]
        var next = 0
        var failed = false
    }
    private let state: Locked<State>

    init(count: Int) { state = Locked(State(results: Array(repeating: nil, count: count))) }

    /// The index of a block no worker has taken, or `nil` when none is left or one failed.
    func claim() -> Int? {
        state.withLock { state in
            guard !state.failed, state.next < state.results.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    func store(_ index: Int, _ result: Result<imgtool_png_block, ImgToolError>) {
        state.withLock { state in
            if case .failure = result { state.failed = true }
            state.results[index] = result
        }
    }

    /// zlib header, the blocks in order, Adler-32 of all the filtered bytes.
    func joined(level: Int, strategy: PNGEncoder.Strategy) throws(ImgToolError) -> [UInt8] {
        let results = state.withLock { $0.results }
        var blocks: [imgtool_png_block] = []
        for result in results {
            guard let result else { throw ImgToolError(.tooLarge, "a block of PNG rows was not compressed") }
            blocks.append(try result.get())
        }
        // The header deflateInit writes: a 32 KiB window, and the level's class.
        let levelClass =
            strategy == .huffman || strategy == .rle || level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var header = 0x7800 | levelClass << 6
        header += 31 - header % 31
        var stream: [UInt8] = [UInt8(header >> 8), UInt8(header & 0xff)]
        stream.reserveCapacity(blocks.reduce(6) { $0 + $1.length })
        var adler: UInt32 = 1
        for block in blocks {
            stream.append(contentsOf: UnsafeBufferPointer(start: block.data, count: block.length))
            adler = imgtool_png_adler32_combine(adler, block.adler, block.filtered_length)
        }
        for shift in [24, 16, 8, 0] as [UInt32] { stream.append(UInt8(truncatingIfNeeded: adler >> shift)) }
        return stream
    }

    /// Frees every block's data.
    func free() {
        state.withLock { state in
            for case .success(let block) in state.results { imgtool_png_buffer_free(block.data) }
            state.results = []
        }
    }
}
