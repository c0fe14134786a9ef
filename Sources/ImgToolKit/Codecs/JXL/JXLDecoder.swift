internal import CJXL

/// One libjxl decoding session over a copy of the file, driven event by event.
///
/// libjxl reads the bytes in place, so the session keeps its own copy (closed input: the whole
/// file is there). Orientation is applied and alpha un-premultiplied by libjxl; frames are
/// coalesced (each the whole canvas, blended as the file says). A one-shot object used by one
/// thread at a time.
final class JXLDecoder {
    private let decoder: OpaquePointer
    private let runner: UnsafeMutableRawPointer?
    private let bytes: UnsafeMutableRawBufferPointer
    /// The basic information, once ``JxlDecoderStatus`` `JXL_DEC_BASIC_INFO` has been seen.
    private(set) var basicInfo = JxlBasicInfo()
    /// The contents of the first `Exif` and first `xml ` box, decompressed when they are `brob`
    /// boxes, once the session has passed them (it must report `JXL_DEC_BOX`).
    private(set) var metadataBoxes: [String: [UInt8]] = [:]
    /// The box being read: its type and the memory libjxl writes it into.
    private var box: (type: String, memory: UnsafeMutableRawBufferPointer)?
    /// The most bytes a metadata box may hold, decompressed.
    static let metadataBoxLimit = 16 << 20

    /// Starts a session that reports `events` (`JxlDecoderStatus` bits).
    /// - Parameters:
    ///   - threads: the size of libjxl's thread pool (none for 1).
    ///   - keepingOrientation: whether the basic information gives the orientation and the size
    ///     as stored (libjxl otherwise reports them as turned, orientation 1).
    init(data: [UInt8], events: Int32, threads: Int, keepingOrientation: Bool = false) throws(ImgToolError) {
        guard let decoder = JxlDecoderCreate(nil) else {
            throw ImgToolError(.tooLarge, "out of memory for a JPEG XL decoder")
        }
        self.decoder = decoder
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        self.bytes = bytes
        runner = threads > 1 ? JxlThreadParallelRunnerCreate(nil, threads) : nil
        // Every property is set: on a throw, deinit frees them.
        if let runner {
            guard JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS else {
                throw ImgToolError(.corrupt, "libjxl refused its thread pool")
            }
        }
        // Boxes are read decompressed: a `brob` box comes as the box it holds (libjxl has Brotli).
        if events & Int32(JXL_DEC_BOX.rawValue) != 0, JxlDecoderSetDecompressBoxes(decoder, 1) != JXL_DEC_SUCCESS {
            throw ImgToolError(.corrupt, "libjxl cannot decompress JPEG XL boxes (built without Brotli)")
        }
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
            !keepingOrientation || JxlDecoderSetKeepOrientation(decoder, 1) == JXL_DEC_SUCCESS,
            JxlDecoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count)
                == JXL_DEC_SUCCESS
        else { throw ImgToolError(.corrupt, "libjxl refused the decoder settings") }
        JxlDecoderCloseInput(decoder)
    }

    deinit {
        JxlDecoderDestroy(decoder)
        box?.memory.deallocate()
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        bytes.deallocate()
    }

    /// Runs the decoder to its next event.
    /// - Returns: the event (`JXL_DEC_BASIC_INFO`, `JXL_DEC_FRAME`, ..., or `JXL_DEC_SUCCESS` at
    ///   the end); basic information is read here when it arrives.
    /// - Throws: ``ImgToolError`` `truncated` when the file ends early, `corrupt` on an error.
    func next(_ what: @autoclosure () -> String) throws(ImgToolError) -> JxlDecoderStatus {
        let status = JxlDecoderProcessInput(decoder)
        switch status {
        case JXL_DEC_ERROR:
            // The input is closed, so libjxl 0.7 reports a file that ends early as an error
            // ("missing input"), not as needing more: with every byte consumed, it ran out.
            if JxlDecoderReleaseInput(decoder) == 0 {
                throw ImgToolError(.truncated, "truncated JPEG XL: the file ends before \(what()) is complete")
            }
            throw ImgToolError(.corrupt, "corrupt JPEG XL: libjxl cannot decode \(what())")
        case JXL_DEC_NEED_MORE_INPUT:
            throw ImgToolError(.truncated, "truncated JPEG XL: the file ends before \(what()) is complete")
        case JXL_DEC_BASIC_INFO:
            guard JxlDecoderGetBasicInfo(decoder, &basicInfo) == JXL_DEC_SUCCESS else {
                throw ImgToolError(.corrupt, "corrupt JPEG XL: unreadable image header")
            }
        case JXL_DEC_BOX:
            finishBox()
            try startBox()
        case JXL_DEC_BOX_NEED_MORE_OUTPUT:
            try growBox()
        case JXL_DEC_SUCCESS:
            finishBox()
        default: break
        }
        return status
    }

    /// At a box's header: lends libjxl memory for its contents when it is the first `Exif` or
    /// `xml ` box (compressed or not); other boxes are skipped.
    private func startBox() throws(ImgToolError) {
        var name = [CChar](repeating: 0, count: 4)
        guard JxlDecoderGetBoxType(decoder, &name, 1) == JXL_DEC_SUCCESS else { return }
        let type = String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard type == "Exif" || type == "xml ", metadataBoxes[type] == nil else { return }
        var raw: UInt64 = 0
        _ = JxlDecoderGetBoxSizeRaw(decoder, &raw)
        let memory = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Int(clamping: min(max(raw, 4096), UInt64(Self.metadataBoxLimit))), alignment: 16)
        box = (type, memory)
        try lendBox(from: 0)
    }

    /// Hands libjxl the box memory after its first `filled` bytes.
    private func lendBox(from filled: Int) throws(ImgToolError) {
        guard let box, let base = box.memory.baseAddress else { return }
        let start = (base + filled).assumingMemoryBound(to: UInt8.self)
        guard JxlDecoderSetBoxBuffer(decoder, start, box.memory.count - filled) == JXL_DEC_SUCCESS else {
            throw ImgToolError(.corrupt, "libjxl refused a buffer for the JPEG XL's \(box.type) box")
        }
    }

    /// The box outgrew its memory: twice as much, up to ``metadataBoxLimit``.
    private func growBox() throws(ImgToolError) {
        guard let current = box else { return }
        let filled = current.memory.count - JxlDecoderReleaseBoxBuffer(decoder)
        guard current.memory.count < Self.metadataBoxLimit else {
            throw ImgToolError(
                .tooLarge, "the JPEG XL's \(current.type) box is over \(Self.metadataBoxLimit >> 20) MiB decompressed")
        }
        let memory = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(current.memory.count * 2, Self.metadataBoxLimit), alignment: 16)
        memory.copyMemory(from: UnsafeRawBufferPointer(rebasing: current.memory[..<filled]))
        current.memory.deallocate()
        box = (current.type, memory)
        try lendBox(from: filled)
    }

    /// The box being read is complete: its contents are kept.
    private func finishBox() {
        guard let current = box else { return }
        let filled = current.memory.count - JxlDecoderReleaseBoxBuffer(decoder)
        metadataBoxes[current.type] = Array(current.memory[..<filled])
        current.memory.deallocate()
        box = nil
    }

    /// The ICC profile of the decoded pixels (libjxl's own for an image it describes by
    /// enumerated values), or `nil` for sRGB (RGB or grey: D65, sRGB primaries and transfer).
    var dataProfile: [UInt8]? {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
            == JXL_DEC_SUCCESS, encoding.white_point == JXL_WHITE_POINT_D65,
            encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB,
            encoding.color_space == JXL_COLOR_SPACE_GRAY
                || (encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB)
        {
            return nil
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0, size <= 16 << 20
        else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let status = profile.withUnsafeMutableBufferPointer {
            JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, $0.baseAddress, size)
        }
        return status == JXL_DEC_SUCCESS ? profile : nil
    }

    /// The current frame's duration in ticks, and whether it is the last.
    var frameHeader: (duration: UInt32, isLast: Bool)? {
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else { return nil }
        return (header.duration, header.is_last != 0)
    }

    /// The JPEG file a JPEG XL made by lossless recompression rebuilds, or `nil` when the file
    /// holds no reconstruction data. The session must report `JXL_DEC_JPEG_RECONSTRUCTION` and
    /// `JXL_DEC_FULL_IMAGE`.
    /// - Parameter limit: the most bytes the JPEG may have.
    func reconstructedJPEG(limit: Int) throws(ImgToolError) -> [UInt8]? {
        var jpeg = [UInt8](repeating: 0, count: 1 << 16)
        var filled = 0
        var started = false
        /// Hands libjxl the part of `jpeg` after `filled`.
        func lend() throws(ImgToolError) {
            let status = jpeg.withUnsafeMutableBufferPointer {
                JxlDecoderSetJPEGBuffer(decoder, $0.baseAddress.map { $0 + filled }, $0.count - filled)
            }
            guard status == JXL_DEC_SUCCESS else { throw ImgToolError(.corrupt, "libjxl refused a JPEG buffer") }
        }
        /// Takes the buffer back, counting what libjxl wrote into it.
        func takeBack() {
            let unused = JxlDecoderReleaseJPEGBuffer(decoder)
            filled = jpeg.count - unused
        }
        while true {
            switch try next("the JPEG reconstruction data") {
            case JXL_DEC_JPEG_RECONSTRUCTION:
                started = true
                try lend()
            case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                takeBack()
                guard jpeg.count * 2 <= limit else {
                    throw ImgToolError(.tooLarge, "the JPEG inside the JPEG XL is over \(limit) bytes")
                }
                jpeg += [UInt8](repeating: 0, count: jpeg.count)
                try lend()
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                guard started else { return nil }
                takeBack()
                return Array(jpeg.prefix(filled))
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard !started else { continue }
                return nil  // pixels, not a JPEG
            default:
                continue
            }
        }
    }

    /// Hands libjxl `buffer` for the next frame's pixels, RGBA at `depth`.
    func setImageBuffer(_ buffer: UnsafeMutableRawBufferPointer, depth: SampleDepth) throws(ImgToolError) {
        var format = Self.format(depth)
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed <= buffer.count,
            JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS
        else {
            throw ImgToolError(.corrupt, "corrupt JPEG XL: libjxl refused an output buffer of \(buffer.count) bytes")
        }
    }

    private static func format(_ depth: SampleDepth) -> JxlPixelFormat {
        JxlPixelFormat(
            num_channels: 4, data_type: depth == .sixteen ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
    }
}
