/// A small open-addressing map from a packed opaque colour to a palette index: the writer's
/// per-pixel lookup, and its colour counter while it checks whether frames fit a palette.
///
/// Colours are packed as ``GIFPixel`` values (`r | g << 8 | b << 16 | a << 24`); the
/// transparent pixel (0) is never stored, so 0 marks an empty slot. The table holds at most
/// ``capacity`` colours and refuses more, which is how "does this fit in N colours" is asked
/// without ever holding more than N.
struct GIFColorIndex {
    private var keys: [UInt32]
    private var values: [UInt8]
    private let mask: Int
    /// The most colours the map takes.
    let capacity: Int
    /// The colours stored, in insertion order.
    private(set) var colors: [UInt32] = []

    /// Creates an empty map for up to `capacity` colours (at most 4096).
    init(capacity: Int = 256) {
        self.capacity = capacity
        var size = 16
        while size < capacity * 4 { size <<= 1 }
        keys = [UInt32](repeating: 0, count: size)
        values = [UInt8](repeating: 0, count: size)
        mask = size - 1
    }

    /// Creates a map of `palette`'s opaque colours to their positions (the first position of a
    /// repeated colour wins).
    init(palette: [UInt32]) {
        self.init(capacity: max(palette.count, 1))
        for (index, color) in palette.enumerated() where color != 0 {
            _ = insert(color, index: UInt8(truncatingIfNeeded: index))
        }
    }

    /// The number of colours stored.
    var count: Int { colors.count }

    @inline(__always)
    private func slot(of color: UInt32) -> (slot: Int, found: Bool) {
        var slot = Int((color &* 0x9E37_79B1) >> 16) & mask
        while true {
            let key = keys[slot]
            if key == color { return (slot, true) }
            if key == 0 { return (slot, false) }
            slot = (slot + 1) & mask
        }
    }

    /// The index stored for `color`, or `nil`.
    @inline(__always)
    func index(of color: UInt32) -> UInt8? {
        let (slot, found) = slot(of: color)
        return found ? values[slot] : nil
    }

    /// Whether `color` is stored.
    func contains(_ color: UInt32) -> Bool { slot(of: color).found }

    /// Stores `color` with `index` unless it is there already. Returns `false` (storing nothing)
    /// when the map is full and `color` is new.
    @discardableResult
    mutating func insert(_ color: UInt32, index: UInt8) -> Bool {
        let (slot, found) = slot(of: color)
        if found { return true }
        guard colors.count < capacity else { return false }
        keys[slot] = color
        values[slot] = index
        colors.append(color)
        return true
    }

    /// The index of `color`, stored with the next free index (its insertion position) when it
    /// is new; `nil` when the map is full and `color` is new.
    @inline(__always)
    mutating func indexAdding(_ color: UInt32) -> UInt8? {
        let (slot, found) = slot(of: color)
        if found { return values[slot] }
        guard colors.count < capacity else { return nil }
        let index = UInt8(truncatingIfNeeded: colors.count)
        keys[slot] = color
        values[slot] = index
        colors.append(color)
        return index
    }

    /// Stores `color` with the next free index (its insertion position). Returns `false` when
    /// the map is full and `color` is new.
    @discardableResult
    mutating func add(_ color: UInt32) -> Bool {
        indexAdding(color) != nil
    }
}

/// Packed pixels as the GIF writer handles them: one `UInt32` per pixel, `r | g << 8 | b << 16
/// | a << 24`, with every transparent pixel stored as 0.
enum GIFPixel {
    /// The transparent pixel.
    static let transparent: UInt32 = 0

    /// Packs an opaque colour.
    @inline(__always)
    static func opaque(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> UInt32 {
        UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | 0xFF00_0000
    }

    /// The red, green and blue samples of a packed pixel.
    @inline(__always)
    static func channels(_ pixel: UInt32) -> (Int, Int, Int) {
        (Int(pixel & 0xFF), Int(pixel >> 8 & 0xFF), Int(pixel >> 16 & 0xFF))
    }

    /// A colour table as stored: `count` entries (a power of two, 2 ... 256), 3 bytes each,
    /// `colors` first and black after them.
    static func colorTable(_ colors: [UInt32], count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count * 3)
        for (index, color) in colors.prefix(count).enumerated() {
            bytes[index * 3] = UInt8(truncatingIfNeeded: color)
            bytes[index * 3 + 1] = UInt8(truncatingIfNeeded: color >> 8)
            bytes[index * 3 + 2] = UInt8(truncatingIfNeeded: color >> 16)
        }
        return bytes
    }

    /// The bits of a colour table that holds `entries` entries: 1 ... 8 (a table of `1 << bits`).
    static func tableBits(forEntries entries: Int) -> Int {
        var bits = 1
        while 1 << bits < entries { bits += 1 }
        return bits
    }
}
