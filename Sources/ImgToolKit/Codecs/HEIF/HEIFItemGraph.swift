/// The items of a HEIF's `meta` box and which items decoding each one decodes, read before
/// libheif sees the file. libheif 1.15 follows these references without a guard: a grid whose
/// tile is a grid, or an image whose alpha plane is a grid built from that image, makes it
/// recurse without end, spawning decoding threads at every level, taking gigabytes and never
/// returning (FuzzHEIF found both in 4 KB files). MIAF allows only coded images as the inputs of
/// a derived image, and no image can need itself, so such a file is refused here. Every read is
/// bounds-checked (``ISOBMFF``).
struct HEIFItemGraph {
    /// Item types by item ID.
    private(set) var types: [UInt32: String] = [:]
    /// `dimg` references: derived item ID to its input item IDs.
    private(set) var inputs: [UInt32: [UInt32]] = [:]
    /// `auxl` references reversed: image item ID to the auxiliary images (alpha, depth) that
    /// libheif decodes with it.
    private(set) var auxiliaries: [UInt32: [UInt32]] = [:]
    /// The primary item (`pitm`), the image libheif shows.
    private(set) var primary: UInt32?
    /// `thmb` references: thumbnail item ID to the item it is a thumbnail of.
    private(set) var thumbnailOf: [UInt32: UInt32] = [:]
    /// The rotations and mirrors (`irot`, `imir`) associated with each item, in `ipma` order,
    /// which is the order libheif applies them in.
    private(set) var transforms: [UInt32: [ImageOrientation]] = [:]
    /// Each item's coded size (its `ispe`).
    private(set) var codedSizes: [UInt32: PixelSize] = [:]
    /// The canvas each derived image (`grid`, `iovl`) declares in its descriptor, the item's
    /// data, which libheif allocates before it decodes a tile; `nil` size when the descriptor
    /// cannot be read.
    private(set) var derivedCanvases: [UInt32: DerivedCanvas] = [:]

    /// A `grid`'s or `iovl`'s descriptor: the canvas it assembles, and for a grid its tiles.
    struct DerivedCanvas: Hashable {
        var type: String
        var size: PixelSize?
        /// A grid's rows; `nil` for an overlay.
        var rows: Int?
        /// A grid's columns; `nil` for an overlay.
        var columns: Int?
        /// A grid's rows x columns; `nil` for an overlay.
        var tiles: Int? { rows.flatMap { rows in columns.map { rows * $0 } } }
    }

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
        if let iref = children.first(where: { $0.type == "iref" }) {
            readReferences(file, iref)
        }
        if let pitm = children.first(where: { $0.type == "pitm" }),
            let version = file.integer(at: pitm.body.lowerBound, bytes: 1),
            let id = file.integer(at: pitm.body.lowerBound + 4, bytes: version == 0 ? 2 : 4)
        {
            primary = UInt32(truncatingIfNeeded: id)
        }
        if let iprp = children.first(where: { $0.type == "iprp" }) {
            readTransforms(file, iprp)
        }
        if let iloc = children.first(where: { $0.type == "iloc" }) {
            readDescriptors(file, iloc, idat: children.first(where: { $0.type == "idat" }))
        }
    }

    /// Reads the descriptor of every `grid` and `iovl` item where `iloc` says its data lies (in
    /// the file, or in `idat`), its first extent only (descriptors are a few bytes).
    private mutating func readDescriptors(_ file: ISOBMFF, _ iloc: ISOBMFF.Box, idat: ISOBMFF.Box?) {
        let derived = Set(types.filter { $0.value == "grid" || $0.value == "iovl" }.keys)
        guard !derived.isEmpty, let version = file.integer(at: iloc.body.lowerBound, bytes: 1), version <= 2,
            let sizes = file.integer(at: iloc.body.lowerBound + 4, bytes: 2)
        else { return }
        let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 15), baseSize = Int(sizes >> 4 & 15)
        let indexSize = version >= 1 ? Int(sizes & 15) : 0
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else { return }
        let idBytes = version == 2 ? 4 : 2
        var at = iloc.body.lowerBound + 6
        guard let count = file.integer(at: at, bytes: idBytes) else { return }
        at += idBytes
        /// Reads `bytes` bytes (0 reads as 0) and moves past them.
        func field(_ bytes: Int) -> UInt64? {
            guard bytes > 0 else { return 0 }
            defer { at += bytes }
            return at + bytes <= iloc.body.upperBound ? file.integer(at: at, bytes: bytes) : nil
        }
        for _ in 0..<min(count, UInt64(iloc.body.count)) {
            guard let id = field(idBytes) else { return }
            var method: UInt64 = 0
            if version >= 1 {
                guard let value = field(2) else { return }
                method = value & 15
            }
            guard field(2) != nil, let base = field(baseSize), let extents = field(2) else { return }
            var first: (offset: UInt64, length: UInt64)?
            for _ in 0..<min(extents, UInt64(iloc.body.count)) {
                guard field(indexSize) != nil, let offset = field(offsetSize), let length = field(lengthSize) else {
                    return
                }
                if first == nil { first = (offset, length) }
            }
            let item = UInt32(truncatingIfNeeded: id)
            guard derived.contains(item), let type = types[item], let first else { continue }
            let start: UInt64
            switch method {
            case 0: start = base &+ first.offset
            case 1:
                guard let idat else { continue }
                start = UInt64(idat.body.lowerBound) &+ base &+ first.offset
            default: continue
            }
            guard start < UInt64(file.data.count) else {
                derivedCanvases[item] = DerivedCanvas(type: type, size: nil)
                continue
            }
            derivedCanvases[item] = Self.descriptor(file, at: Int(start), type: type)
        }
    }

    /// A grid's (`ImageGrid`) or overlay's (`ImageOverlay`) descriptor at `at`: version, flags
    /// (bit 0: 32-bit sizes), then the grid's rows and columns less one, or the overlay's
    /// four 16-bit fill values; then the output width and height.
    private static func descriptor(_ file: ISOBMFF, at: Int, type: String) -> DerivedCanvas {
        guard let flags = file.integer(at: at + 1, bytes: 1) else { return DerivedCanvas(type: type) }
        let sizeBytes = flags & 1 == 1 ? 4 : 2
        var rows: Int?
        var columns: Int?
        var sizeAt = at + 2
        if type == "grid" {
            guard let rowsLess1 = file.integer(at: at + 2, bytes: 1),
                let columnsLess1 = file.integer(at: at + 3, bytes: 1)
            else {
                return DerivedCanvas(type: type)
            }
            rows = Int(rowsLess1) + 1
            columns = Int(columnsLess1) + 1
            sizeAt = at + 4
        } else {
            sizeAt = at + 2 + 8
        }
        guard let width = file.integer(at: sizeAt, bytes: sizeBytes),
            let height = file.integer(at: sizeAt + sizeBytes, bytes: sizeBytes)
        else { return DerivedCanvas(type: type, size: nil, rows: rows, columns: columns) }
        return DerivedCanvas(
            type: type, size: PixelSize(width: Int(width), height: Int(height)), rows: rows, columns: columns)
    }

    /// Throws when a derived image would make libheif allocate past `limits` before decoding
    /// anything, or says another size than its `ispe`: a 480-byte overlay of 23200x23200 whose
    /// `ispe` says 64x64 made libheif 1.15 take 3.6 GB and crash in its RGBA conversion. Checked
    /// for every grid and overlay of the file: the canvas against `maxPixels` (and refused when it
    /// has no pixels), a grid's tiles
    /// against its references, the inputs of one image against 4096, and every tile's pixels in
    /// all against `maxTotalPixels`; and that a grid's tiles (their `ispe` times its columns and
    /// rows) cover its canvas. AVIF is the same container and libavif 0.11 allocates a grid's
    /// canvas before it compares it with the `ispe` (4.1 GB for an 11264x11264 grid that said
    /// 64x64), so ``AVIFSource`` asks the same questions with `format` "AVIF".
    /// - Throws: ``ImgToolError`` `tooLarge` or `corrupt`.
    func checkDerivedImages(against limits: DecodingLimits, format: String = "HEIF") throws(ImgToolError) {
        for (item, canvas) in derivedCanvases.sorted(by: { $0.key < $1.key }) {
            let name = canvas.type == "grid" ? "\(format) grid" : "\(format) overlay"
            guard let size = canvas.size else {
                throw ImgToolError(
                    .corrupt, "corrupt \(format): the descriptor of item \(item) (\(canvas.type)) cannot be read")
            }
            try limits.checkPixels(width: size.width, height: size.height, what: "\(name) (item \(item))")
            guard size.width > 0, size.height > 0 else {
                throw ImgToolError(
                    .corrupt,
                    "corrupt \(format): item \(item) (\(canvas.type)) assembles a \(size.width)x\(size.height) canvas")
            }
            if let coded = codedSizes[item], coded != size {
                throw ImgToolError(
                    .corrupt,
                    "corrupt \(format): item \(item) (\(canvas.type)) assembles \(size.width)x\(size.height) where its ispe says \(coded.width)x\(coded.height)"
                )
            }
            let references = inputs[item] ?? []
            if references.count > 4096 {
                throw ImgToolError(
                    .tooLarge, "\(name) (item \(item)) takes \(references.count) images, over the limit of 4096",
                    limit: .frames)
            }
            if let tiles = canvas.tiles, tiles != references.count {
                throw ImgToolError(
                    .corrupt,
                    "corrupt \(format): item \(item) (grid) has \(tiles) cells but \(references.count) tiles")
            }
            if let rows = canvas.rows, let columns = canvas.columns, let first = references.first,
                let tile = codedSizes[first], tile.width * columns < size.width || tile.height * rows < size.height
            {
                throw ImgToolError(
                    .corrupt,
                    "corrupt \(format): item \(item) (grid) is \(size.width)x\(size.height) but its \(columns)x\(rows) tiles of \(tile.width)x\(tile.height) cover \(tile.width * columns)x\(tile.height * rows)"
                )
            }
            var total = 0
            for input in references {
                guard let tile = codedSizes[input] else { continue }
                let (pixels, overflow) = tile.width.multipliedReportingOverflow(by: tile.height)
                let (sum, overflow2) = total.addingReportingOverflow(pixels)
                total = sum
                if overflow || overflow2 || total > limits.maxTotalPixels {
                    throw ImgToolError(
                        .tooLarge,
                        "\(name) (item \(item)) decodes \(references.count) images of over \(limits.maxTotalPixels) pixels in all",
                        limit: .totalPixels)
                }
            }
        }
    }

    /// Reads which `irot` and `imir` properties of `ipco` each item's `ipma` entries name.
    /// `irot` turns anticlockwise by its angle times 90 degrees; `imir` mirrors left-right when
    /// its low bit is set, top-bottom otherwise (libheif's reading of the axis).
    private mutating func readTransforms(_ file: ISOBMFF, _ iprp: ISOBMFF.Box) {
        let boxes = file.children(of: iprp)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }) else { return }
        enum Property {
            case turn(ImageOrientation)
            case size(PixelSize)
        }
        let properties: [Property?] = file.children(of: ipco).map { property in
            let at = property.body.lowerBound
            guard let value = file.integer(at: at, bytes: 1) else { return nil }
            switch property.type {
            case "irot": return .turn([.up, .left, .down, .right][Int(value & 3)])
            case "imir": return .turn(value & 1 == 1 ? .upMirrored : .downMirrored)
            case "ispe":  // a full box: version and flags, then width and height
                guard let width = file.integer(at: at + 4, bytes: 4), let height = file.integer(at: at + 8, bytes: 4)
                else { return nil }
                return .size(PixelSize(width: Int(width), height: Int(height)))
            default: return nil
            }
        }
        for ipma in boxes where ipma.type == "ipma" {
            guard let version = file.integer(at: ipma.body.lowerBound, bytes: 1),
                let flags = file.integer(at: ipma.body.lowerBound + 1, bytes: 3),
                let entries = file.integer(at: ipma.body.lowerBound + 4, bytes: 4)
            else { continue }
            let idBytes = version < 1 ? 2 : 4
            let indexBytes = flags & 1 == 1 ? 2 : 1
            var at = ipma.body.lowerBound + 8
            for _ in 0..<min(entries, UInt64(ipma.body.count)) {
                guard let id = file.integer(at: at, bytes: idBytes),
                    let count = file.integer(at: at + idBytes, bytes: 1)
                else { break }
                at += idBytes + 1
                var found: [ImageOrientation] = []
                for _ in 0..<count {
                    guard at + indexBytes <= ipma.body.upperBound,
                        let association = file.integer(at: at, bytes: indexBytes)
                    else { break }
                    at += indexBytes
                    let index = Int(association & (indexBytes == 2 ? 0x7FFF : 0x7F))
                    guard index >= 1, index <= properties.count else { continue }
                    switch properties[index - 1] {
                    case .turn(let transform): found.append(transform)
                    case .size(let size): codedSizes[UInt32(truncatingIfNeeded: id)] = size
                    case nil: break
                    }
                }
                if !found.isEmpty { transforms[UInt32(truncatingIfNeeded: id), default: []] += found }
            }
        }
    }

    /// A file whose primary item (`pitm`) is also marked a thumbnail of another image (`thmb`),
    /// as pillow_heif's `invalid_id.heic` is: libheif decodes the primary item as asked, but
    /// leaves it out of its list of top-level images, so the tools that list those (heif-info,
    /// heif-convert, pillow-heif) show the other image instead. One sentence saying so, or `nil`.
    var primaryMarkedThumbnail: String? {
        guard let primary, let master = thumbnailOf[primary], types[master] != nil else { return nil }
        func described(_ item: UInt32) -> String {
            guard let coded = codedSizes[item] else { return "item \(item)" }
            let shown = orientation(of: item).displayedSize(of: coded)
            return "item \(item), \(shown.width)x\(shown.height),"
        }
        return
            "the primary image (pitm), \(described(primary)) is also marked a thumbnail (thmb) of \(described(master))"
            + " and is shown as pitm says; heif-convert and pillow-heif, which skip thumbnails, show item \(master)"
    }

    /// The orientation libheif applies to `item`: its `irot` and `imir` properties one after
    /// the other, as one EXIF orientation.
    func orientation(of item: UInt32) -> ImageOrientation {
        (transforms[item] ?? []).reduce(ImageOrientation.up) { $0.followed(by: $1) }
    }

    /// Reads `iref`'s references as libheif 1.15 does: one after another, each a box header, the
    /// source ID, a count and the target IDs, the header's size ignored (a reference whose size
    /// is wrong is still read, and the next one starts where its IDs end).
    private mutating func readReferences(_ file: ISOBMFF, _ iref: ISOBMFF.Box) {
        guard let version = file.integer(at: iref.body.lowerBound, bytes: 1) else { return }
        let idBytes = version == 0 ? 2 : 4
        let end = iref.body.upperBound
        var at = iref.body.lowerBound + 4
        var count = 0
        while at < end, count < 65536 {
            count += 1
            guard let size = file.integer(at: at, bytes: 4), let type = file.fourCC(at: at + 4) else { return }
            at += 8 + (size == 1 ? 8 : 0) + (type == "uuid" ? 16 : 0)
            guard at + idBytes + 2 <= end, let from = file.integer(at: at, bytes: idBytes),
                let targets = file.integer(at: at + idBytes, bytes: 2)
            else { return }
            at += idBytes + 2
            var read: [UInt32] = []
            for _ in 0..<targets {
                guard at + idBytes <= end, let to = file.integer(at: at, bytes: idBytes) else { break }
                read.append(UInt32(truncatingIfNeeded: to))
                at += idBytes
            }
            let source = UInt32(truncatingIfNeeded: from)
            switch type {
            case "dimg": inputs[source, default: []] += read
            case "auxl": for master in read { auxiliaries[master, default: []].append(source) }
            case "thmb": if let master = read.first { thumbnailOf[source] = master }
            default: break
            }
        }
    }

    /// Why the references cannot be decoded safely, or `nil`: a derived image that the decoders
    /// assemble (`grid`, `iovl`, `iden`) whose input is one of those rather than a coded image, or
    /// an image that decoding leads back to (through inputs and auxiliary images). Other derived
    /// types are left alone: a gain map (`tmap`, ISO 21496-1) takes the primary image, a grid
    /// in libavif's test files, as its input.
    var problem: String? {
        let derived: Set<String> = ["grid", "iovl", "iden"]
        for (from, targets) in inputs.sorted(by: { $0.key < $1.key }) {
            for to in targets {
                if to == from { return "item \(from) is an input of itself" }
                if let type = types[to], derived.contains(type), let fromType = types[from], derived.contains(fromType)
                {
                    return "item \(from) (\(types[from] ?? "?")) takes item \(to), a \(type), as an input"
                }
            }
        }
        if let item = firstItemInCycle {
            return "decoding item \(item) (\(types[item] ?? "?")) leads back to itself through its inputs or alpha"
        }
        return nil
    }

    /// An item on a cycle of "decoding this decodes that" (inputs and auxiliary images), or `nil`.
    /// Iterative depth-first search: a hostile file cannot make it recurse deeply.
    private var firstItemInCycle: UInt32? {
        func next(_ item: UInt32) -> [UInt32] { (inputs[item] ?? []) + (auxiliaries[item] ?? []) }
        enum Mark { case open, done }
        var marks: [UInt32: Mark] = [:]
        let roots = Set(inputs.keys).union(auxiliaries.keys).sorted()
        for root in roots where marks[root] == nil {
            var stack: [(item: UInt32, next: [UInt32], at: Int)] = [(root, next(root), 0)]
            marks[root] = .open
            while let top = stack.last {
                if top.at == top.next.count {
                    marks[top.item] = .done
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].at += 1
                let child = top.next[top.at]
                switch marks[child] {
                case .open?: return child
                case .done?: continue
                case nil:
                    marks[child] = .open
                    stack.append((child, next(child), 0))
                }
            }
        }
        return nil
    }
}

extension ImageOrientation {
    /// The orientation that shows an image as `self` shows it and then `next` shows the result.
    func followed(by next: ImageOrientation) -> ImageOrientation {
        // Found by where the corners of a 2x3 image go: no two orientations move them alike.
        let (width, height) = (2, 3)
        let shown = swapsAxes ? (width: height, height: width) : (width: width, height: height)
        let corners = [(0, 0), (width - 1, 0), (0, height - 1)]
        let target = corners.map { corner in
            let first = displayedPosition(x: corner.0, y: corner.1, width: width, height: height)
            let second = next.displayedPosition(x: first.x, y: first.y, width: shown.width, height: shown.height)
            return [second.x, second.y]
        }
        return Self.allCases.first { candidate in
            corners.map { corner in
                let position = candidate.displayedPosition(x: corner.0, y: corner.1, width: width, height: height)
                return [position.x, position.y]
            } == target
        } ?? .up
    }
}
