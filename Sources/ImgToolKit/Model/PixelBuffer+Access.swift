extension PixelBuffer {
    /// The 8-bit samples, or `nil` for a 16-bit buffer.
    public var rgba8: [UInt8]? { samples.rgba8 }

    /// The 16-bit samples, or `nil` for an 8-bit buffer.
    public var rgba16: [UInt16]? { samples.rgba16 }

    /// The pixel at `(x, y)` as 8-bit RGBA (16-bit samples reduced with rounding).
    public func pixel8(x: Int, y: Int) -> [UInt8] {
        precondition(x >= 0 && y >= 0 && x < width && y < height, "pixel outside the buffer")
        let base = (y * width + x) * 4
        switch samples {
        case .rgba8(let values): return Array(values[base..<base + 4])
        case .rgba16(let values): return values[base..<base + 4].map(SampleDepth.reduce)
        }
    }

    /// This buffer at `depth`: 16 to 8 bits rounds (``SampleDepth/reduce(_:)``), 8 to 16 bits
    /// multiplies by 257. Returns `self` when the depth already matches.
    public func converted(to depth: SampleDepth) -> PixelBuffer {
        var result: PixelBuffer
        switch (samples, depth) {
        case (.rgba8, .eight), (.rgba16, .sixteen):
            return self
        case (.rgba16(let values), .eight):
            result = PixelBuffer(width: width, height: height, rgba8: values.map(SampleDepth.reduce))
        case (.rgba8(let values), .sixteen):
            result = PixelBuffer(width: width, height: height, rgba16: values.map(SampleDepth.widen))
        }
        result.metadata = metadata
        return result
    }

    /// Calls `body` with the 8-bit samples for in-place changes. The buffer must be 8-bit.
    public mutating func withMutableRGBA8<Result, Failure: Error>(
        _ body: (inout [UInt8]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withMutableSamples(of: UInt8.self, body)
    }

    /// Calls `body` with the 16-bit samples for in-place changes. The buffer must be 16-bit.
    public mutating func withMutableRGBA16<Result, Failure: Error>(
        _ body: (inout [UInt16]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withMutableSamples(of: UInt16.self, body)
    }

    /// Calls `body` with the samples, of type `S`, for in-place changes. The buffer must hold `S`.
    mutating func withMutableSamples<S: Sample, Result, Failure: Error>(
        of _: S.Type, _ body: (inout [S]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard var values = S.values(of: samples) else { preconditionFailure("not a \(S.bitWidth)-bit buffer") }
        samples = S.samples([])  // drop the second reference so `values` is uniquely owned
        defer { samples = S.samples(values) }
        return try body(&values)
    }

    /// Sets every sample of every pixel whose alpha is 0 to 0, so that invisible colour does not
    /// take part in comparisons and hashes (the corpus's convention).
    public mutating func clearInvisibleColor() {
        switch samples {
        case .rgba8: withMutableSamples(of: UInt8.self, Self.zeroInvisiblePixels)
        case .rgba16: withMutableSamples(of: UInt16.self, Self.zeroInvisiblePixels)
        }
    }

    private static func zeroInvisiblePixels<S: Sample>(_ values: inout [S]) {
        values.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                if buffer[index + 3] == 0 {
                    buffer[index] = 0
                    buffer[index + 1] = 0
                    buffer[index + 2] = 0
                }
                index += 4
            }
        }
    }
}
