internal import CGif

/// One giflib decoding session over a GIF held in memory, from `DGifOpen` to `DGifCloseFile`.
///
/// This is the only Swift file that uses giflib (``GIFLZWEncoder`` uses only our encoder from
/// `CGif`), and no C type leaves it. giflib reports a
/// failure by returning `GIF_ERROR` and leaving a code in `GifFileType.Error`; every call goes
/// through ``check(_:_:)``, which turns that code into an ``ImgToolError`` whose cause is
/// `GifErrorString(code)`. Bytes reach giflib through a non-capturing `@convention(c)` reader that
/// finds its ``GIFInput`` through `UserData`, so the failure can also say whether the data simply
/// ended (`truncated`) or broke the format (`corrupt`).
///
/// Records are read one at a time, in file order (never `DGifSlurp`, which keeps every frame in
/// memory and cannot read an extension that has no data sub-blocks). A decoder is a one-shot
/// object used inside one task and never shared.
final class GIFDecoder {
    /// What kind of record comes next.
    enum Record {
        /// An image descriptor (`0x2C`).
        case image
        /// An extension introducer (`0x21`).
        case `extension`
        /// The trailer (`0x3B`).
        case trailer
    }

    /// Width of the logical screen, in pixels.
    let screenWidth: Int
    /// Height of the logical screen, in pixels.
    let screenHeight: Int
    /// Entries in the global colour table; 0 when there is none.
    let globalColorCount: Int

    private let input: GIFInput
    /// Whether plain LZW data is decoded by `imgtool_gif_lzw_decode` rather than `DGifGetLine`.
    private let copyingLZW: Bool
    private var file: UnsafeMutablePointer<GifFileType>?
    /// One row of palette indices, as giflib decodes it.
    private var line: UnsafeMutableBufferPointer<UInt8>

    /// Opens `data` and reads the header, the logical screen descriptor and the global colour
    /// table. The corresponding C function is `DGifOpen`.
    /// - Parameter copyingLZW: decode plain LZW data with `imgtool_gif_lzw_decode`, which gives
    ///   giflib's pixels faster; tests turn it off to compare the two.
    /// - Throws: ``ImgToolError`` `truncated` or `corrupt`.
    init(data: [UInt8], copyingLZW: Bool = true) throws(ImgToolError) {
        input = GIFInput(data: data)
        self.copyingLZW = copyingLZW
        line = .allocate(capacity: 0)
        var status: Int32 = 0
        let opened = DGifOpen(
            Unmanaged.passUnretained(input).toOpaque(),
            { file, buffer, length in
                guard let file, let buffer, length > 0, let context = file.pointee.UserData else { return 0 }
                let input = Unmanaged<GIFInput>.fromOpaque(context).takeUnretainedValue()
                return Int32(input.read(into: buffer, count: Int(length)))
            },
            &status)
        guard let opened else {
            screenWidth = 0
            screenHeight = 0
            globalColorCount = 0
            throw Self.failure(
                code: status, input: input, while: "the header, logical screen descriptor and global colour table")
        }
        file = opened
        screenWidth = Int(opened.pointee.SWidth)
        screenHeight = Int(opened.pointee.SHeight)
        globalColorCount = opened.pointee.SColorMap.map { Int($0.pointee.ColorCount) } ?? 0
    }

    deinit {
        close()
        line.deallocate()
    }

    /// Where giflib has read to, in bytes from the start of the file.
    var offset: Int { input.offset }

    /// Ends the session; later calls fail. Safe to call more than once: `DGifCloseFile` runs
    /// exactly once. The corresponding C function is `DGifCloseFile`.
    func close() {
        guard let file else { return }
        self.file = nil
        var status: Int32 = 0
        _ = DGifCloseFile(file, &status)  // memory-only input: nothing to report on close
    }

    /// Reads the introducer of the next record. The corresponding C function is `DGifGetRecordType`.
    /// - Parameter what: names the record in an error, e.g. "the record after frame 2".
    func nextRecord(_ what: @autoclosure () -> String) throws(ImgToolError) -> Record {
        let file = try handle()
        var type = UNDEFINED_RECORD_TYPE
        try check(DGifGetRecordType(file, &type), what())
        switch type {
        case IMAGE_DESC_RECORD_TYPE: return .image
        case EXTENSION_RECORD_TYPE: return .extension
        case TERMINATE_RECORD_TYPE: return .trailer
        default:
            throw ImgToolError(
                .corrupt, "corrupt GIF: unknown record type at byte \(input.offset) while reading \(what())")
        }
    }

    /// Reads one extension, keeping its label and at most `keepingBlocks` data sub-blocks (each
    /// without its length byte), and skips the rest. An extension with no sub-block at all
    /// (`21 FE 00`) is valid and returns no blocks. The corresponding C functions are
    /// `DGifGetExtension` and `DGifGetExtensionNext`.
    ///
    /// When `keepsAll` says yes to the first block (an application extension's identifier), every
    /// block is kept, up to `byteLimit` bytes of them in all (then `overflowed` is `true`).
    func readExtension(
        keepingBlocks limit: Int, keepsAll: ([UInt8]) -> Bool = { _ in false }, byteLimit: Int = 0,
        _ what: @autoclosure () -> String
    ) throws(ImgToolError) -> (label: UInt8, blocks: [[UInt8]], overflowed: Bool) {
        let file = try handle()
        var label: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtension(file, &label, &block), what())
        var blocks: [[UInt8]] = []
        var all = false
        var kept = 0
        var overflowed = false
        while let current = block {
            if all && !overflowed {
                kept += Int(current[0])
                if kept > byteLimit {
                    overflowed = true
                    blocks.removeAll()
                } else {
                    blocks.append(Array(UnsafeBufferPointer(start: current + 1, count: Int(current[0]))))
                }
            } else if blocks.count < limit {
                blocks.append(Array(UnsafeBufferPointer(start: current + 1, count: Int(current[0]))))
            }
            if blocks.count == 1 && !all && label == 0xFF { all = keepsAll(blocks[0]) }
            block = nil
            try check(DGifGetExtensionNext(file, &block), what())
        }
        return (UInt8(truncatingIfNeeded: label), blocks, overflowed)
    }

    /// Reads an image descriptor, its local colour table and the LZW minimum code size.
    /// The corresponding C function is `DGifGetImageHeader` (unlike `DGifGetImageDesc`, it keeps
    /// no per-frame copy, so memory does not grow with the frame count).
    func readImageHeader(_ what: @autoclosure () -> String) throws(ImgToolError) -> GIFImageHeader {
        let file = try handle()
        let status = DGifGetImageHeader(file)
        if status == GIF_ERROR && !input.hitEnd && file.pointee.Error == D_GIF_ERR_READ_FAILED && input.offset > 0 {
            // giflib's "somewhat bogus" code for an LZW minimum code size over 8.
            let size = input.byte(at: input.offset - 1)
            throw ImgToolError(
                .corrupt,
                "corrupt GIF: LZW minimum code size \(size) at byte \(input.offset - 1) is over 8 in \(what())")
        }
        try check(status, what())
        let image = file.pointee.Image
        return GIFImageHeader(
            region: FrameRegion(
                x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height)),
            isInterlaced: image.Interlace,
            localColorCount: image.ColorMap.map { Int($0.pointee.ColorCount) } ?? 0)
    }

    /// Skips the LZW data of the image whose header was just read, without decoding it.
    /// - Parameter probing: whether to look at the first LZW codes (for a frame with no pixels).
    /// - Returns: whether the data starts with a pixel code (always `false` when not probing).
    ///   The corresponding C functions are `DGifGetCode` and `DGifGetCodeNext`.
    func skipImageData(probing: Bool, _ what: @autoclosure () -> String) throws(ImgToolError) -> Bool {
        let file = try handle()
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetCode(file, &codeSize, &block), what())
        if !probing, block != nil {
            // Walk the remaining sub-blocks' length bytes here, without a giflib call and two
            // reads per 255 bytes, then let giflib read the terminator (or fail at the end).
            input.seek(to: input.offsetOfBlockTerminator(from: input.offset))
            try check(DGifGetCodeNext(file, &block), what())
            return false
        }
        var probe = GIFFirstCodeProbe(minimumCodeSize: Int(codeSize))
        while let current = block {
            if probing && probe.foundPixel == nil {
                for byte in UnsafeBufferPointer(start: current + 1, count: Int(current[0])) { probe.feed(byte) }
            }
            block = nil
            try check(DGifGetCodeNext(file, &block), what())
        }
        return probe.foundPixel ?? false
    }

    /// Moves the read position to `offset`, the introducer (`0x2C`) of an image that an earlier
    /// scan found there, so that one frame can be decoded without reading the ones before it.
    /// giflib keeps no read-ahead between records, so the next call reads from `offset`.
    func seek(toRecordAt offset: Int) {
        input.seek(to: offset)
    }

    /// Decodes the image whose header was just read into `frame`: its palette indices, clipped
    /// to the `screenWidth` x `screenHeight` logical screen and put in screen row order
    /// (interlaced rows land in their place), and its colours (the local table, else the global
    /// one, else opaque black; entries past the table's end are opaque black).
    ///
    /// Every row is decoded, visible or not, so bad LZW data anywhere in the image is an error.
    /// Calls `shouldStop` between bands of rows and throws `cancelled` when it returns `true`.
    /// The corresponding C function is `DGifGetLine`.
    func decodeIndices(
        _ header: GIFImageHeader, into frame: GIFFrameIndices, screenWidth: Int, screenHeight: Int,
        shouldStop: () -> Bool, _ what: @autoclosure () -> String
    ) throws(ImgToolError) {
        let file = try handle()
        let region = header.region
        let clip = region.clipped(toWidth: screenWidth, height: screenHeight)
        frame.reset(clip: clip)
        guard region.width > 0, region.height > 0 else {
            _ = try skipImageData(probing: false, what())
            return
        }
        try loadColors(into: frame)
        if clip == region, try decodeCopying(header, into: frame, with: file, what()) { return }
        if line.count < region.width {
            line.deallocate()
            line = .allocate(capacity: region.width)
        }
        guard let lineBase = line.baseAddress else { return }
        // Rows as wide as the clip go straight to their place; others through `line`.
        let direct = clip.width == region.width
        let width = Int32(region.width)
        var decoded = 0
        for pass in header.isInterlaced ? Self.interlacePasses : Self.progressivePass {
            var row = pass.start
            while row < region.height {
                let y = region.y + row
                if clip.width > 0, y >= clip.y, y < clip.y + clip.height {
                    let target = frame.indices + (y - clip.y) * clip.width
                    if direct {
                        try check(DGifGetLine(file, target, width), what())
                    } else {
                        try check(DGifGetLine(file, lineBase, width), what())
                        target.update(from: lineBase + (clip.x - region.x), count: clip.width)
                    }
                } else {
                    try check(DGifGetLine(file, lineBase, width), what())
                }
                decoded += 1
                if decoded & 63 == 0 && shouldStop() {
                    throw ImgToolError(.cancelled, "cancelled while decoding \(what())")
                }
                row += pass.step
            }
        }
    }

    /// Decodes the next `count` pixels of the image whose header was just read, in file order,
    /// into `target`, and stops there (the rest of the image stays unread). The corresponding C
    /// function is `DGifGetLine`.
    func decodePixels(into target: UnsafeMutablePointer<UInt8>, count: Int, _ what: @autoclosure () -> String)
        throws(ImgToolError)
    {
        guard count > 0 else { return }
        let file = try handle()
        if copyingDecode(into: target, count: count) { return }
        try check(DGifGetLine(file, target, Int32(count)), what())
    }

    /// Loads the colours of the image whose header was just read into `frame` (see
    /// ``decodeIndices(_:into:screenWidth:screenHeight:shouldStop:_:)``).
    func loadColors(into frame: GIFFrameIndices) throws(ImgToolError) {
        let file = try handle()
        loadColors(from: file.pointee.Image.ColorMap ?? file.pointee.SColorMap, into: frame.colors)
    }

    // MARK: - Internals

    /// Decodes a frame that lies inside the screen with `imgtool_gif_lzw_decode` (see
    /// `CGif/gif_lzw.c`), then reads the rest of its sub-blocks up to the terminator as giflib
    /// does after the last pixel. Interlaced rows are decoded in file order and then put in
    /// their place.
    /// - Returns: `false`, having read nothing, when the data is not plain LZW; giflib then
    ///   decodes the frame and reports what is wrong.
    private func decodeCopying(
        _ header: GIFImageHeader, into frame: GIFFrameIndices, with file: UnsafeMutablePointer<GifFileType>,
        _ what: @autoclosure () -> String
    ) throws(ImgToolError) -> Bool {
        let region = header.region
        let count = region.width * region.height
        guard header.isInterlaced else {
            guard copyingDecode(into: frame.indices, count: count) else { return false }
            try finishImageData(file, what())
            return true
        }
        let fileOrder = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { fileOrder.deallocate() }
        guard copyingDecode(into: fileOrder, count: count) else { return false }
        var source = fileOrder
        for pass in Self.interlacePasses {
            for row in stride(from: pass.start, to: region.height, by: pass.step) {
                (frame.indices + row * region.width).update(from: source, count: region.width)
                source += region.width
            }
        }
        try finishImageData(file, what())
        return true
    }

    /// Runs `imgtool_gif_lzw_decode` on the image data at the read position (just after the
    /// LZW minimum code size); the read position does not move.
    private func copyingDecode(into target: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        let start = input.offset
        guard copyingLZW, start > 0 else { return false }
        let minimumCodeSize = Int32(input.byte(at: start - 1))
        return input.withBytes { bytes in
            guard let base = bytes.baseAddress else { return false }
            return imgtool_gif_lzw_decode(base, bytes.count, start, minimumCodeSize, target, count) == 0
        }
    }

    /// Skips the sub-blocks left after the last pixel and lets giflib read the terminator, as
    /// `DGifGetLine` does once the image is complete (a cut block is `truncated`).
    private func finishImageData(_ file: UnsafeMutablePointer<GifFileType>, _ what: @autoclosure () -> String)
        throws(ImgToolError)
    {
        input.seek(to: input.offsetOfBlockTerminator(from: input.offset))
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetCodeNext(file, &block), what())
    }

    private static let progressivePass: [(start: Int, step: Int)] = [(0, 1)]
    private static let interlacePasses: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    /// Fills the 256-entry lookup with `map`'s colours (opaque), the rest with opaque black.
    private func loadColors(from map: UnsafeMutablePointer<ColorMapObject>?, into colors: UnsafeMutablePointer<UInt32>)
    {
        let black = UInt32(0xFF00_0000).littleEndian
        colors.update(repeating: black, count: 256)
        guard let map, let entries = map.pointee.Colors else { return }
        let count = min(max(Int(map.pointee.ColorCount), 0), 256)
        for i in 0..<count {
            let color = entries[i]
            let rgba = UInt32(color.Red) | UInt32(color.Green) << 8 | UInt32(color.Blue) << 16 | 0xFF00_0000
            colors[i] = rgba.littleEndian
        }
    }

    private func handle() throws(ImgToolError) -> UnsafeMutablePointer<GifFileType> {
        guard let file else { throw ImgToolError(.corrupt, "GIF decoder used after it was closed") }
        return file
    }

    /// The one place giflib status codes become errors.
    private func check(_ status: Int32, _ what: @autoclosure () -> String) throws(ImgToolError) {
        guard status == GIF_ERROR else { return }
        throw Self.failure(code: file?.pointee.Error ?? 0, input: input, while: what())
    }

    private static func failure(code: Int32, input: GIFInput, while what: String) -> ImgToolError {
        let cause = text(of: code)
        if input.hitEnd {
            return ImgToolError(
                .truncated, "truncated GIF: the data ends at byte \(input.count) while reading \(what)", cause: cause)
        }
        var detail = cause ?? "giflib error \(code)"
        if code == D_GIF_ERR_WRONG_RECORD && input.offset > 0 {
            let byte = input.byte(at: input.offset - 1)
            detail += " (byte 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16, uppercase: true)))"
        }
        return ImgToolError(
            .corrupt, "corrupt GIF: \(detail) at byte \(input.offset) while reading \(what)", cause: cause)
    }

    private static func text(of code: Int32) -> String? {
        GifErrorString(code).map { String(cString: $0) }
    }
}

/// The bytes giflib reads and how far it has read. Owned by a ``GIFDecoder``; the C reader
/// reaches it through `GifFileType.UserData`.
private final class GIFInput {
    private let data: [UInt8]
    private(set) var offset = 0
    /// Set when giflib asked for bytes past the end of the data.
    private(set) var hitEnd = false

    init(data: [UInt8]) {
        self.data = data
    }

    var count: Int { data.count }

    func byte(at index: Int) -> UInt8 { data[index] }

    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        data.withUnsafeBufferPointer(body)
    }

    /// Reads from `position` next (clamped to the data).
    func seek(to position: Int) {
        offset = min(max(position, 0), data.count)
        hitEnd = false
    }

    /// Where the run of data sub-blocks starting at `position` ends: the offset of its zero
    /// length byte, or the end of the data when the run is cut short.
    func offsetOfBlockTerminator(from position: Int) -> Int {
        data.withUnsafeBufferPointer { bytes in
            var offset = position
            while offset < bytes.count {
                let length = Int(bytes[offset])
                if length == 0 { return offset }
                offset += 1 + length
            }
            return bytes.count
        }
    }

    /// Copies up to `count` bytes to `destination`; returns how many it copied.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let available = min(count, data.count - offset)
        if available < count { hitEnd = true }
        guard available > 0 else { return 0 }
        data.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { destination.update(from: base + offset, count: available) }
        }
        offset += available
        return available
    }
}

/// An image descriptor as giflib read it.
struct GIFImageHeader: Sendable, Hashable {
    /// Where the frame goes on the logical screen, as declared.
    var region: FrameRegion
    /// Whether rows are stored in the four-pass interlaced order.
    var isInterlaced: Bool
    /// Entries in the local colour table; 0 when there is none.
    var localColorCount: Int
}
