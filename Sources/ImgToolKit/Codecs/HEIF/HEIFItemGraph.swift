/// The items of a HEIF's `meta` box and their `dimg` references, read before libheif sees the
/// file: libheif 1.15 recurses without end on a grid whose tiles are themselves derived images
/// (a grid of grids, or a grid that is its own image's alpha), taking gigabytes and never
/// returning (FuzzHEIF found one in 4 KB). MIAF allows only coded images as a grid's tiles, so
/// such a file is refused here. Every read is bounds-checked (``ISOBMFF``).
struct HEIFItemGraph {
    /// Item types by item ID.
    private(set) var types: [UInt32: String] = [:]
    /// `dimg` references: derived item ID to its input item IDs.
    private(set) var inputs: [UInt32: [UInt32]] = [:]

    /// The graph of `data`'s top-level `meta` box; empty when there is none to read.
    init(_ data: [UInt8]) {
        let file = ISOBMFF(data)
        guard let meta = file.boxes().first(where: { $0.type == "meta" }) else { return }
        let children = file.children(of: meta, skipping: 4)  // a full box: version and flags first
        if let iinf = children.first(where: { $0.type == "iinf" }),
            let version = file.integer(at: iinf.body.lowerBound, bytes: 1)
        {
            for infe in file.children(of: iinf, skipping: 4 + (version == 0 ? 2 : 4)) where infe.type == "infe" {
                guard let infeVersion = file.integer(at: infe.body.lowerBound, bytes: 1), infeVersion >= 2 else {
                    continue
                }
                let idBytes = infeVersion == 2 ? 2 : 4
                let at = infe.body.lowerBound + 4
                guard let id = file.integer(at: at, bytes: idBytes), let type = file.fourCC(at: at + idBytes + 2)
                else { continue }
                types[UInt32(truncatingIfNeeded: id)] = type
            }
        }
        if let iref = children.first(where: { $0.type == "iref" }),
            let version = file.integer(at: iref.body.lowerBound, bytes: 1)
        {
            let idBytes = version == 0 ? 2 : 4
            for reference in file.children(of: iref, skipping: 4) where reference.type == "dimg" {
                var at = reference.body.lowerBound
                guard let from = file.integer(at: at, bytes: idBytes),
                    let count = file.integer(at: at + idBytes, bytes: 2)
                else { continue }
                at += idBytes + 2
                var targets: [UInt32] = []
                for _ in 0..<min(count, 4096) {
                    guard let to = file.integer(at: at, bytes: idBytes) else { break }
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
}
