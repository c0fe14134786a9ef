/// The smallest exact way to store a picture as PNG: colour type, bit depth, and a palette
/// when one fits. Chosen by looking at every pixel, so nothing is lost.
struct PNGLayout: Sendable, Hashable {
    var colorType: ColorType
    var bitDepth: Int
    /// Palette entries as packed RGBA (`r | g << 8 | b << 16 | a << 24`), translucent ones first.
    var palette: [UInt32] = []

    /// Samples of one stored pixel (before packing below 8 bits).
    var channels: Int {
        switch colorType {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// Bytes in one stored row.
    func rowBytes(width: Int) -> Int { (width * channels * bitDepth + 7) / 8 }

    /// RGB, or RGBA with `alpha`, at 8 or 16 bits per sample.
    static func trueColor(alpha: Bool, depth: SampleDepth) -> PNGLayout {
        PNGLayout(colorType: alpha ? .rgba : .rgb, bitDepth: depth == .eight ? 8 : 16)
    }

    /// Analyses `image` and returns the smallest exact layout.
    static func choose(for image: PixelBuffer, allowsGray: Bool = true) -> PNGLayout {
        var analysis = Analysis(allowsGray: allowsGray)
        analysis.add(image)
        return analysis.layout
    }

    /// Finds the smallest layout that stores every one of several images exactly (an APNG's
    /// frames share one IHDR and PLTE): add the images, then read ``layout``.
    struct Analysis {
        private var gray = true
        private var opaque = true
        private var grayBits: UInt8 = 1
        /// Whether every sample seen fits in 8 bits (16-bit samples that are all `v * 257`).
        private var eightBit = true
        private var colors = ColorSet()
        private var empty = true
        /// Whether every image is known to be opaque before it is seen.
        private let knownOpaque: Bool

        /// An analysis of images that are all opaque when `knownOpaque` (so it can settle on RGB
        /// without seeing them all), or of any images; `allowsGray` false rules out grey storage
        /// (an RGB ICC profile cannot describe a grey PNG).
        init(knownOpaque: Bool = false, allowsGray: Bool = true) {
            self.knownOpaque = knownOpaque
            self.gray = allowsGray
        }

        /// Whether more images can no longer change the answer (16-bit or 8-bit RGB(A) with more
        /// than 256 colours, not grey, and translucent or known to be opaque): callers may stop adding.
        var isSettled: Bool { !gray && (!opaque || knownOpaque) && (colors.overflowed || !eightBit) }

        /// The smallest layout holding every image added so far exactly.
        var layout: PNGLayout {
            if empty { return PNGLayout(colorType: .rgba, bitDepth: 8) }
            guard eightBit else {
                switch (gray, opaque) {
                case (true, true): return PNGLayout(colorType: .gray, bitDepth: 16)
                case (true, false): return PNGLayout(colorType: .grayAlpha, bitDepth: 16)
                case (false, true): return PNGLayout(colorType: .rgb, bitDepth: 16)
                case (false, false): return PNGLayout(colorType: .rgba, bitDepth: 16)
                }
            }
            if gray && opaque { return PNGLayout(colorType: .gray, bitDepth: Int(grayBits)) }
            if !colors.overflowed {
                let entries = colors.members.sorted { ($0 >> 24, $0) < ($1 >> 24, $1) }
                let bits = entries.count <= 2 ? 1 : entries.count <= 4 ? 2 : entries.count <= 16 ? 4 : 8
                return PNGLayout(colorType: .palette, bitDepth: bits, palette: entries)
            }
            if gray { return PNGLayout(colorType: .grayAlpha, bitDepth: 8) }
            return PNGLayout(colorType: opaque ? .rgb : .rgba, bitDepth: 8)
        }

        /// Adds the pixels of `image`.
        mutating func add(_ image: PixelBuffer) {
            guard !isSettled, image.pixelCount > 0 else { return }
            empty = false
            switch image.samples {
            case .rgba8(let samples):
                samples.withUnsafeBufferPointer { add8(UnsafeRawPointer($0.baseAddress), pixels: image.pixelCount) }
            case .rgba16(let samples):
                if eightBit && samples.allSatisfy({ $0 >> 8 == $0 & 0xff }) {
                    // Every sample is v * 257: the 8-bit image holds exactly the same values.
                    let narrow = samples.map { UInt8(truncatingIfNeeded: $0) }
                    narrow.withUnsafeBufferPointer {
                        add8(UnsafeRawPointer($0.baseAddress), pixels: image.pixelCount)
                    }
                    return
                }
                eightBit = false
                var index = 0
                while index < samples.count && (gray || opaque) {
                    if samples[index] != samples[index + 1] || samples[index] != samples[index + 2] { gray = false }
                    if samples[index + 3] != .max { opaque = false }
                    index += 4
                }
            }
        }

        /// Depth a grey value needs: 1 bit for 0 and 255, 2 bits for multiples of 85, 4 for 17.
        private static let grayDepth: [UInt8] = (0..<256).map { value in
            value % 255 == 0 ? 1 : value % 85 == 0 ? 2 : value % 17 == 0 ? 4 : 8
        }

        private mutating func add8(_ base: UnsafeRawPointer?, pixels: Int) {
            guard let base else { return }
            let trackColors = eightBit
            for index in 0..<pixels {
                let pixel = base.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self).littleEndian
                let r = UInt8(truncatingIfNeeded: pixel)
                if gray {
                    if r != UInt8(truncatingIfNeeded: pixel >> 8) || r != UInt8(truncatingIfNeeded: pixel >> 16) {
                        gray = false
                    } else {
                        grayBits = max(grayBits, Self.grayDepth[Int(r)])
                    }
                }
                if opaque && pixel >> 24 != 0xff { opaque = false }
                if trackColors && !colors.overflowed { colors.insert(pixel) }
                if !gray && !opaque && (colors.overflowed || !trackColors) { break }
            }
        }
    }
}

/// A set of at most 256 packed RGBA colours, with open addressing; it stops growing (and
/// reports `overflowed`) at the 257th distinct colour.
struct ColorSet {
    private var slots = [UInt32](repeating: 0, count: 1024)
    private var used = [Bool](repeating: false, count: 1024)
    private(set) var members: [UInt32] = []
    private(set) var overflowed = false
    private var last: UInt32?

    private static func slot(of color: UInt32) -> Int { Int((color &* 0x9E37_79B1) >> 22) }

    mutating func insert(_ color: UInt32) {
        if color == last { return }
        last = color
        var slot = Self.slot(of: color)
        while used[slot] {
            if slots[slot] == color { return }
            slot = (slot + 1) & 1023
        }
        if members.count == 256 {
            overflowed = true
            return
        }
        used[slot] = true
        slots[slot] = color
        members.append(color)
    }

    /// Index of `color` in `members` order, given a lookup table built by ``indexTable(for:)``.
    static func indexTable(for palette: [UInt32]) -> (keys: [UInt32], values: [UInt8], used: [Bool]) {
        var keys = [UInt32](repeating: 0, count: 1024)
        var values = [UInt8](repeating: 0, count: 1024)
        var used = [Bool](repeating: false, count: 1024)
        for (index, color) in palette.enumerated() {
            var slot = slot(of: color)
            while used[slot] { slot = (slot + 1) & 1023 }
            used[slot] = true
            keys[slot] = color
            values[slot] = UInt8(index)
        }
        return (keys, values, used)
    }

    static func lookup(_ color: UInt32, in table: (keys: [UInt32], values: [UInt8], used: [Bool])) -> UInt8 {
        var slot = slot(of: color)
        while table.used[slot] {
            if table.keys[slot] == color { return table.values[slot] }
            slot = (slot + 1) & 1023
        }
        return 0
    }
}
