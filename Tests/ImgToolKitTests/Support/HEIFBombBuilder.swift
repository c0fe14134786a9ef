/// Builds the `meta` of a HEIF by hand: items, their `dimg` references, their `ispe`, and the
/// descriptors of derived images in `idat`, for the bombs ``HEIFItemGraph`` must refuse before
/// libheif reads anything (grids and overlays whose `ispe` lies, huge canvases, thousands of
/// layers, grids whose cells and tiles disagree or do not cover the canvas). The coded items carry
/// no data: the files are never meant to reach a decoder. With ``brand`` `avif` (and `av01`
/// tiles) the same boxes make an AVIF. `scripts/make-heif-bombs` writes the same files for the
/// command-line tools (heif-info, avifdec) and the fuzzers' corpora.
struct HEIFBombBuilder {
    struct Item {
        var id: UInt16
        var type: String
        /// The `ispe` size, if any.
        var size: (width: UInt32, height: UInt32)?
        /// A derived image's descriptor, stored in `idat`.
        var descriptor: [UInt8] = []
        /// `dimg` inputs.
        var inputs: [UInt16] = []
    }

    var items: [Item] = []
    var primary: UInt16 = 1
    /// The `ftyp` major brand: `heic`, or `avif`.
    var brand = "heic"

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 255), UInt8(flags >> 8 & 255), UInt8(flags & 255)] + body)
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 255)] }
    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)]
    }

    /// A grid descriptor: `rows` x `columns` cells, an output of `width` x `height` (32-bit fields).
    static func grid(rows: Int, columns: Int, width: UInt32, height: UInt32) -> [UInt8] {
        [0, 1, UInt8(rows - 1), UInt8(columns - 1)] + be32(width) + be32(height)
    }

    /// An overlay descriptor: a canvas of `width` x `height` (32-bit fields) and each layer at 0,0.
    static func overlay(width: UInt32, height: UInt32, layers: Int) -> [UInt8] {
        [0, 1] + [UInt8](repeating: 0, count: 8) + be32(width) + be32(height)
            + [UInt8](repeating: 0, count: 8 * layers)
    }

    /// The file: `ftyp`, then `meta` (hdlr, pitm, iinf, iloc, iref, iprp) and `idat`.
    func build() -> [UInt8] {
        let ftyp = Self.box("ftyp", Array(brand.utf8) + Self.be32(0) + Array("mif1\(brand)".utf8))
        let hdlr = Self.fullBox("hdlr", Self.be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = Self.fullBox("pitm", Self.be16(primary))
        let infes = items.map { item in
            Self.fullBox("infe", version: 2, Self.be16(item.id) + Self.be16(0) + Array(item.type.utf8) + [0])
        }
        let iinf = Self.fullBox("iinf", Self.be16(UInt16(items.count)) + infes.flatMap { $0 })
        // iloc version 1: offset 4, length 4, base offset 0, index 0; construction method 1 (idat).
        var idat: [UInt8] = []
        var iloc = [0x44, 0x00] + Self.be16(UInt16(items.count))
        for item in items {
            let method: UInt16 = item.descriptor.isEmpty ? 0 : 1
            iloc += Self.be16(item.id) + Self.be16(method) + Self.be16(0) + Self.be16(1)
            iloc += Self.be32(UInt32(idat.count)) + Self.be32(UInt32(item.descriptor.count))
            idat += item.descriptor
        }
        let ilocBox = Self.fullBox("iloc", version: 1, iloc)
        var references: [UInt8] = []
        for item in items where !item.inputs.isEmpty {
            references += Self.box(
                "dimg", Self.be16(item.id) + Self.be16(UInt16(item.inputs.count)) + item.inputs.flatMap(Self.be16))
        }
        let iref = Self.fullBox("iref", references)
        var properties: [[UInt8]] = []
        var associations: [UInt8] = []
        var associated: UInt32 = 0
        for item in items {
            guard let size = item.size else { continue }
            properties.append(Self.fullBox("ispe", Self.be32(size.width) + Self.be32(size.height)))
            associations += Self.be16(item.id) + [1, UInt8(0x80 | properties.count)]
            associated += 1
        }
        let ipco = Self.box("ipco", properties.flatMap { $0 })
        let ipma = Self.fullBox("ipma", Self.be32(associated) + associations)
        let iprp = Self.box("iprp", ipco + ipma)
        let meta = Self.fullBox("meta", hdlr + pitm + iinf + ilocBox + iref + iprp + Self.box("idat", idat))
        return ftyp + meta
    }
}
