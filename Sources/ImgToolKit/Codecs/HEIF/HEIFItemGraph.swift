/// The items of a HEIF's `meta` box and their `dimg` references, read before libheif sees the
/// file: libheif 1.15 recurses without end on a grid whose tiles are themselves derived images
/// (a grid of grids, or a grid that is its own image's alpha), taking gigabytes and never
/// returning (FuzzHEIF found one in 4 KB). MIAF allows only coded images as a grid's tiles, so
/// such a file is refused here. Every read is bounds-checked.
struct HEIFItemGraph {
    /// Item types by item ID.
    private(set) var types: [UInt32: String] = [:]
    /// `dimg` references: derived item ID to its input item IDs.
    private(set) var inputs: [UInt32: [UInt32]] = [:]

    /// The graph of `data`'s top-level `meta` box; empty when there is none to read.
    init(_ data: [UInt8]) {
        guard let meta = Self.boxes(in: data, 0..<data.count).first(where: { $0.type == "meta" }) else { return }
        // `meta` is a full box: version and flags before its children.
        let children = Self.boxes(in: data, (meta.body.lowerBound + 4)..<meta.body.upperBound)
        if let iinf = children.first(where: { $0.type == "iinf" }),
            let version = Self.integer(data, iinf.body.lowerBound, 1)
        {
            let start = iinf.body.lowerBound + 4 + (version == 0 ? 2 : 4)
            for infe in Self.boxes(in: data, start..<iinf.body.upperBound) where infe.type == "infe" {
                guard let infeVersion = Self.integer(data, infe.body.lowerBound, 1), infeVersion >= 2 else { continue }
                let idBytes = infeVersion == 2 ? 2 : 4
                let at = infe.body.lowerBound + 4
                guard let id = Self.integer(data, at, idBytes), let type = Self.fourCC(data, at + idBytes + 2) else {
                    continue
                }
                types[UInt32(truncatingIfNeeded: id)] = type
            }
        }
        if let iref = children.first(where: { $0.type == "iref" }),
            let version = Self.integer(data, iref.body.lowerBound, 1)
        {
            let idBytes = version == 0 ? 2 : 4
            for reference in Self.boxes(in: data, (iref.body.lowerBound + 4)..<iref.body.upperBound)
            where reference.type == "dimg" {
                var at = reference.body.lowerBound
                guard let from = Self.integer(data, at, idBytes), let count = Self.integer(data, at + idBytes, 2) else {
                    continue
                }
                at += idBytes + 2
                var targets: [UInt32] = []
                for _ in 0..<min(count, 4096) {
                    guard let to = Self.integer(data, at, idBytes) else { break }
                    targets.append(UInt32(truncatingIfNeeded: to))
                    at += idBytes
                }
                inputs[UInt32(truncatingIfNeeded: from), default: []] += targets
            }
        }
    }

    /// Why the references cannot be decoded safely, or `nil`: a derived image whose input is
    /// itself, or is a derived image (`grid`, `iovl`, `iden`) rather than a coded one.
    var problem: String? {
        let derived: Set<String> = ["grid", "iovl", "iden"]
        for (from, targets) in inputs.sorted(by: { $0.key < $1.key }) {
            for to in targets {
                if to == from { return "item \(from) is an input of itself" }
                if let type = types[to], derived.contains(type) {
                    return "item \(from) (\(types[from] ?? "?")) takes item \(to), a \(type), as an input"
                }
            }
        }
        return nil
    }

    private struct Box {
        var type: String
        var body: Range<Int>
    }

    private static func boxes(in data: [UInt8], _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at >= 0, at + 8 <= range.upperBound, found.count < 65536 {
            guard let size32 = integer(data, at, 4), let type = fourCC(data, at + 4) else { break }
            var header = 8
            var size = size32
            if size32 == 1 {
                guard let large = integer(data, at + 8, 8) else { break }
                header = 16
                size = large
            } else if size32 == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            found.append(Box(type: type, body: (at + header)..<(at + size)))
            at += size
        }
        return found
    }

    private static func integer(_ data: [UInt8], _ at: Int, _ bytes: Int) -> Int? {
        guard at >= 0, bytes <= 8, at + bytes <= data.count else { return nil }
        let value = data[at..<at + bytes].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    private static func fourCC(_ data: [UInt8], _ at: Int) -> String? {
        guard at >= 0, at + 4 <= data.count else { return nil }
        return String(decoding: data[at..<at + 4], as: UTF8.self)
    }
}
