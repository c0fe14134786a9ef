/// The APP2 `ICC_PROFILE` segments of a JPEG file, as ICC.1 annex B splits a profile: each
/// holds its 1-based number, the count of segments and a share of the profile, and a reader
/// joins the shares in the order of their numbers, wherever the segments stand.
///
/// libjxl's lossless recompression reads them in file order and refuses a JPEG whose segments
/// are out of order; ``inOrder`` gives it the same profile in order.
struct JPEGICCSegments {
    /// What the segments of a file are.
    enum Order: Equatable {
        /// In order, 1 to the count, each number once (or there are none): nothing to do.
        case inOrder
        /// Every number once, with one count, but not in order: the file with them in order.
        case reordered([UInt8])
        /// A number missing or repeated, counts that disagree, a segment too short: they do not
        /// make one profile (which readers then ignore), and cannot be put in order.
        case broken
    }

    private static let signature = Array("ICC_PROFILE".utf8) + [0]

    /// The order of `jpeg`'s segments before its first scan; `nil` when its markers cannot be
    /// followed (``JPEGSegmentLayout``).
    static func order(of jpeg: [UInt8]) -> Order? {
        guard let layout = JPEGSegmentLayout(jpeg) else { return nil }
        let segments = layout.segments.filter {
            $0.marker == 0xE2 && jpeg[$0.payload].starts(with: signature)
        }
        guard !segments.isEmpty else { return .inOrder }
        var numbers: [Int] = []
        for segment in segments {
            guard segment.payload.count >= signature.count + 2 else { return .broken }
            let number = Int(jpeg[segment.payload.lowerBound + signature.count])
            let count = Int(jpeg[segment.payload.lowerBound + signature.count + 1])
            guard count == segments.count, (1...count).contains(number) else { return .broken }
            numbers.append(number)
        }
        guard Set(numbers).count == numbers.count else { return .broken }
        guard numbers != Array(1...numbers.count) else { return .inOrder }
        // Every segment in order where the first one stood; the rest of the file as it was.
        let ordered = zip(numbers, segments).sorted { $0.0 < $1.0 }.map(\.1)
        var output: [UInt8] = Array(jpeg[..<segments[0].whole.lowerBound])
        output.reserveCapacity(jpeg.count)
        for segment in ordered { output += jpeg[segment.whole] }
        var position = segments[0].whole.upperBound
        for segment in segments.dropFirst() {
            output += jpeg[position..<segment.whole.lowerBound]
            position = segment.whole.upperBound
        }
        output += jpeg[position...]
        return .reordered(output)
    }
}
