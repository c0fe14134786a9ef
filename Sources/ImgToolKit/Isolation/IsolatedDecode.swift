/// One request to a child decoder, seen from the parent (see ``DecoderIsolation``): starts the
/// child, sends the request, then reads its records one at a time as the caller asks for them,
/// checking every size against the limits before allocating for it. Any failure (the child's own
/// error, a crash, cancellation, the timeout) throws an ``ImgToolError`` and the child is gone
/// (reaped, or killed and reaped). A one-shot object used by one thread.
final class IsolatedDecode {
    private let child: DecoderChild
    private let limits: DecodingLimits

    /// Starts `isolation`'s child and sends it `request`.
    /// - Parameter library: the library decoding in the child, for messages ("libheif").
    init(_ isolation: DecoderIsolation, library: String, request: IsolatedRequest) throws(ImgToolError) {
        child = try DecoderChild(isolation, library: library)
        limits = request.limits
        do throws(DecoderChild.Failure) {
            try child.send(request.header)
            try child.send(request.data)
        } catch {
            throw child.error(for: error)
        }
    }

    /// Asks the child a second question, `bytes`, on the same request (``HEIFIsolation``: the
    /// depth to decode at, after the description), its timeout counted from now.
    func ask(_ bytes: [UInt8]) throws(ImgToolError) {
        child.restartClock()
        do throws(DecoderChild.Failure) {
            try child.send(bytes)
        } catch {
            throw child.error(for: error)
        }
    }

    /// The next record's tag; an error record is thrown as the child's error.
    private func tag(expecting expected: UInt8) throws(ImgToolError) {
        let tag = try read(1)[0]
        if tag == IsolatedRecord.error { throw try childError() }
        guard tag == expected else {
            throw protocolError("record \(tag) where \(expected) was expected")
        }
    }

    private func read(_ count: Int) throws(ImgToolError) -> [UInt8] {
        do throws(DecoderChild.Failure) {
            return try child.receive(count)
        } catch {
            throw child.error(for: error)
        }
    }

    private func u32() throws(ImgToolError) -> Int {
        var wire = WireReader(try read(4))
        return Int(wire.u32() ?? 0)
    }

    private func protocolError(_ what: String) -> ImgToolError {
        ImgToolError(.corrupt, "the \(child.library) decoder process answered wrongly: \(what)")
    }

    /// The error record's fields (the tag read), as the error the decoder threw in the child.
    private func childError() throws(ImgToolError) -> ImgToolError {
        let count = try u32()
        guard count <= 1 << 20 else { throw protocolError("an error record of \(count) bytes") }
        var wire = WireReader(try read(count))
        guard let code = wire.string().flatMap(ImgToolError.Code.init(rawValue:)), let message = wire.string(),
            let cause = wire.optionalString(), let limit = wire.optionalString()
        else { throw protocolError("an unreadable error record") }
        _ = child.finish()
        return ImgToolError(code, message, cause: cause, limit: limit.flatMap(ImgToolError.Limit.init(rawValue:)))
    }

    /// A `P` record's bytes, at most `maxBytes` of them.
    func payload(maxBytes: Int) throws(ImgToolError) -> [UInt8] {
        try tag(expecting: IsolatedRecord.payload)
        let count = try u32()
        guard count <= maxBytes else { throw protocolError("a description of \(count) bytes") }
        return try read(count)
    }

    /// An `F` record's frame, which must be `width` x `height` at `depth` (checked before the
    /// buffer is allocated), read straight into its buffer.
    func frame(width: Int, height: Int, depth: SampleDepth) throws(ImgToolError) -> PixelBuffer {
        try tag(expecting: IsolatedRecord.frame)
        return try frameBody(width: width, height: height, depth: depth)
    }

    /// The next frame of a stream of `F` records (``VideoIsolation``), as ``frame(width:height:depth:)``
    /// reads one, or `nil` at the `Z` record that ends them (the child then waited for). Each frame
    /// has the whole timeout, from now.
    func nextFrame(width: Int, height: Int, depth: SampleDepth) throws(ImgToolError) -> PixelBuffer? {
        child.restartClock()
        let tag = try read(1)[0]
        switch tag {
        case IsolatedRecord.frame:
            return try frameBody(width: width, height: height, depth: depth)
        case IsolatedRecord.end:
            if case .signaled(let signal) = child.finish() {
                throw ImgToolError(
                    .corrupt, "\(child.library) crashed after decoding it (\(DecoderChild.name(ofSignal: signal)))")
            }
            return nil
        case IsolatedRecord.error:
            throw try childError()
        default:
            throw protocolError("record \(tag) where a frame or the end was expected")
        }
    }

    /// An `F` record's fields and rows, its tag read.
    private func frameBody(width: Int, height: Int, depth: SampleDepth) throws(ImgToolError) -> PixelBuffer {
        var wire = WireReader(try read(9))
        let (sentWidth, sentHeight, bits) = (Int(wire.u32() ?? 0), Int(wire.u32() ?? 0), wire.byte() ?? 0)
        try limits.checkPixels(width: sentWidth, height: sentHeight, what: "frame from the \(child.library) process")
        guard sentWidth == width, sentHeight == height, Int(bits) == (depth == .sixteen ? 16 : 8) else {
            throw protocolError("a \(sentWidth)x\(sentHeight) \(bits)-bit frame where \(width)x\(height) was expected")
        }
        var failure: DecoderChild.Failure?
        let image = PixelBuffer(width: width, height: height, depth: depth) { (bytes: UnsafeMutableRawBufferPointer) in
            do throws(DecoderChild.Failure) {
                try child.receive(into: bytes)
            } catch {
                failure = error
            }
        }
        if let failure { throw child.error(for: failure) }
        return image
    }

    /// Reads the `Z` record and waits for the child to exit.
    func end() throws(ImgToolError) {
        try tag(expecting: IsolatedRecord.end)
        if case .signaled(let signal) = child.finish() {
            throw ImgToolError(
                .corrupt, "\(child.library) crashed after decoding it (\(DecoderChild.name(ofSignal: signal)))")
        }
    }
}
