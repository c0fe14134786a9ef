/// An XMP packet: UTF-8 XML text, as stored in a JPEG APP1 segment, a PNG `iTXt` chunk or a WebP
/// `XMP ` chunk.
///
/// Edits are made on the text, without an XML parser: the editor knows start tags, end tags,
/// quoted attribute values, comments, processing instructions and CDATA sections, and copies
/// everything else through unchanged. Garbage comes back as it was.
public struct XMPPacket: Sendable, Hashable {
    /// The packet's text, UTF-8 encoded.
    public let bytes: [UInt8]

    /// Wraps a packet as it is, valid or not.
    /// - Parameter bytes: the packet's UTF-8 text.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether the packet holds any location property, as an attribute or as an element: the EXIF
    /// schema's `GPS…` properties (under `exif:` or any prefix bound to its namespace URI), DJI's
    /// `drone-dji:Gps…`, and the IPTC Extension's `LocationCreated` and `LocationShown`.
    public var hasGPS: Bool {
        var editor = XMPTextEditor(input: bytes, orientation: nil, removingGPS: true)
        editor.run()
        return editor.removedGPS
    }

    /// A copy with GPS properties removed and the orientation rewritten.
    /// - Parameters:
    ///   - orientation: when non-nil, the new value of a `tiff:Orientation` attribute or the new
    ///     text of a `tiff:Orientation` element; nothing is added when there is neither.
    ///   - removingGPS: removes every location attribute (with the whitespace before it) and every
    ///     location element with its content (with the indentation and line break before it): the
    ///     properties ``hasGPS`` looks for, found by the namespace URI their prefix is bound to.
    ///     An element left unclosed is removed to the end of the packet, so no coordinate survives.
    /// - Returns: the edited packet; the same bytes when nothing matched.
    public func edited(orientation: Int?, removingGPS: Bool) -> XMPPacket {
        guard orientation != nil || removingGPS else { return self }
        var editor = XMPTextEditor(input: bytes, orientation: orientation, removingGPS: removingGPS)
        editor.run()
        return XMPPacket(bytes: editor.output)
    }
}

/// One pass over the packet's text, copying it to `output` with the edits applied.
private struct XMPTextEditor {
    let input: [UInt8]
    let orientation: [UInt8]?
    let removingGPS: Bool
    var output: [UInt8] = []
    var index = 0
    /// Whether a GPS attribute or element was removed.
    var removedGPS = false

    /// The start of every location property's name: `exif:GPS` always, and for each prefix the
    /// packet binds (`xmlns:P="URI"`) to a schema with location properties, `P:` and the start
    /// of their local names.
    private let gpsPrefixes: [[UInt8]]
    private static let orientationName = Array("tiff:Orientation".utf8)

    /// Location properties by schema: the namespace URI, and the start of their local names.
    private static let locationSchemas: [(uri: String, names: [String])] = [
        ("http://ns.adobe.com/exif/1.0/", ["GPS"]),
        ("http://www.dji.com/drone-dji/1.0/", ["Gps", "GPS"]),
        ("http://iptc.org/std/Iptc4xmpExt/2008-02-29/", ["LocationCreated", "LocationShown"]),
    ]

    init(input: [UInt8], orientation: Int?, removingGPS: Bool) {
        self.input = input
        self.orientation = orientation.map { Array(String($0).utf8) }
        self.removingGPS = removingGPS
        var prefixes = [Array("exif:GPS".utf8)]
        for (prefix, uri) in Self.namespaceBindings(input) {
            for schema in Self.locationSchemas where schema.uri == uri {
                prefixes += schema.names.map { Array((prefix + ":" + $0).utf8) }
            }
        }
        gpsPrefixes = prefixes
        output.reserveCapacity(input.count)
    }

    /// Every `xmlns:P="URI"` (or single-quoted) declaration in `input`, as (P, URI).
    static func namespaceBindings(_ input: [UInt8]) -> [(String, String)] {
        let marker = Array("xmlns:".utf8)
        var found: [(String, String)] = []
        var at = 0
        while at + marker.count < input.count {
            guard input[at..<at + marker.count].elementsEqual(marker) else {
                at += 1
                continue
            }
            var end = at + marker.count
            while end < input.count, isNameByte(input[end]), input[end] != UInt8(ascii: ":") { end += 1 }
            let prefix = String(decoding: input[(at + marker.count)..<end], as: UTF8.self)
            var cursor = end
            while cursor < input.count, isSpace(input[cursor]) { cursor += 1 }
            guard cursor < input.count, input[cursor] == UInt8(ascii: "=") else {
                at = end
                continue
            }
            cursor += 1
            while cursor < input.count, isSpace(input[cursor]) { cursor += 1 }
            guard cursor < input.count, input[cursor] == UInt8(ascii: "\"") || input[cursor] == UInt8(ascii: "'"),
                let close = input[(cursor + 1)...].firstIndex(of: input[cursor])
            else {
                at = end
                continue
            }
            found.append((prefix, String(decoding: input[(cursor + 1)..<close], as: UTF8.self)))
            at = close + 1
        }
        return found
    }

    /// The value of a location attribute whose name starts at `position`, if one does.
    private func locationAttribute(at position: Int) -> Range<Int>? {
        for prefix in gpsPrefixes {
            if let value = attribute(at: position, prefix: prefix) { return value }
        }
        return nil
    }

    /// The end of a location property's name at `position`, if one starts there.
    private func locationName(at position: Int) -> Int? {
        for prefix in gpsPrefixes {
            if let end = name(at: position, prefix: prefix) { return end }
        }
        return nil
    }

    mutating func run() {
        while index < input.count {
            guard input[index] == UInt8(ascii: "<") else {
                output.append(input[index])
                index += 1
                continue
            }
            if let end = skipEnd("<!--", "-->") ?? skipEnd("<![CDATA[", "]]>") ?? skipEnd("<?", "?>") {
                output += input[index..<end]
                index = end
            } else if removingGPS, let nameEnd = locationName(at: index + 1) {
                removeElement(nameEnd: nameEnd)
            } else if orientation == nil || !rewriteOrientationElement() {
                copyTag()
            }
        }
    }

    /// The end of a construct opening with `open` at `index` and closing with `close` (or of the input).
    private func skipEnd(_ open: String, _ close: String) -> Int? {
        guard starts(with: Array(open.utf8), at: index) else { return nil }
        let from = index + open.utf8.count
        return find(Array(close.utf8), from: from).map { $0 + close.utf8.count } ?? input.count
    }

    private func starts(with pattern: [UInt8], at position: Int) -> Bool {
        position >= 0 && position <= input.count - pattern.count
            && input[position..<position + pattern.count].elementsEqual(pattern)
    }

    private func find(_ pattern: [UInt8], from position: Int) -> Int? {
        var candidate = position
        while candidate <= input.count - pattern.count {
            if starts(with: pattern, at: candidate) { return candidate }
            candidate += 1
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"), 0x80...0xFF:
            true
        default: false
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The end of a name starting at `position` with `prefix` (the whole name when `exact`).
    private func name(at position: Int, prefix: [UInt8], exact: Bool = false) -> Int? {
        guard starts(with: prefix, at: position) else { return nil }
        var end = position + prefix.count
        while end < input.count, Self.isNameByte(input[end]) { end += 1 }
        return !exact || end == position + prefix.count ? end : nil
    }

    /// The index just past the `>` closing the tag whose attributes start at `position`, if any.
    private func tagEnd(from position: Int) -> Int? {
        var quote: UInt8?
        for offset in position..<input.count {
            let byte = input[offset]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return offset + 1
            }
        }
        return nil
    }

    /// Drops the element starting at `index` with its content, and the indentation before it.
    private mutating func removeElement(nameEnd: Int) {
        removedGPS = true
        while let last = output.last, last == 0x20 || last == 0x09 { output.removeLast() }
        if output.last == 0x0A { output.removeLast() }
        if output.last == 0x0D { output.removeLast() }
        guard let end = tagEnd(from: nameEnd) else {
            index = input.count
            return
        }
        if input[end - 2] == UInt8(ascii: "/") {
            index = end
            return
        }
        let close = Array("</".utf8) + input[index + 1..<nameEnd]
        var search = end
        while let found = find(close, from: search) {
            var after = found + close.count
            while after < input.count, Self.isSpace(input[after]) { after += 1 }
            if after < input.count, input[after] == UInt8(ascii: ">") {
                index = after + 1
                return
            }
            search = found + 1
        }
        index = input.count
    }

    /// Rewrites the text of a `<tiff:Orientation>` element at `index`; `false` when there is none.
    private mutating func rewriteOrientationElement() -> Bool {
        guard let orientation, let nameEnd = name(at: index + 1, prefix: Self.orientationName, exact: true),
            let end = tagEnd(from: nameEnd), input[end - 2] != UInt8(ascii: "/"),
            let textEnd = input[end...].firstIndex(of: UInt8(ascii: "<")),
            starts(with: Array("</".utf8) + Self.orientationName, at: textEnd)
        else { return false }
        output += input[index..<end]
        output += orientation
        index = textEnd
        return true
    }

    /// Copies a start or end tag, removing GPS attributes and rewriting `tiff:Orientation`.
    private mutating func copyTag() {
        output.append(input[index])
        index += 1
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "<") {
                if byte == UInt8(ascii: ">") {
                    output.append(byte)
                    index += 1
                }
                return
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let close = input[(index + 1)...].firstIndex(of: byte) ?? input.count - 1
                output += input[index...close]
                index = close + 1
                continue
            }
            guard Self.isSpace(byte) else {
                output.append(byte)
                index += 1
                continue
            }
            var nameStart = index
            while nameStart < input.count, Self.isSpace(input[nameStart]) { nameStart += 1 }
            if removingGPS, let value = locationAttribute(at: nameStart) {
                removedGPS = true
                index = value.upperBound + 1
            } else if let orientation, let value = attribute(at: nameStart, prefix: Self.orientationName, exact: true) {
                output += input[index..<value.lowerBound]
                output += orientation
                output.append(input[value.upperBound])
                index = value.upperBound + 1
            } else {
                output += input[index..<nameStart]
                index = nameStart
                while index < input.count, Self.isNameByte(input[index]) {
                    output.append(input[index])
                    index += 1
                }
            }
        }
    }

    /// The range of the value, between the quotes, of an attribute `name = "value"` at `position`
    /// whose name starts with `prefix` (is `prefix` when `exact`).
    private func attribute(at position: Int, prefix: [UInt8], exact: Bool = false) -> Range<Int>? {
        guard let nameEnd = name(at: position, prefix: prefix, exact: exact) else { return nil }
        var cursor = nameEnd
        while cursor < input.count, Self.isSpace(input[cursor]) { cursor += 1 }
        guard cursor < input.count, input[cursor] == UInt8(ascii: "=") else { return nil }
        cursor += 1
        while cursor < input.count, Self.isSpace(input[cursor]) { cursor += 1 }
        guard cursor < input.count, input[cursor] == UInt8(ascii: "\"") || input[cursor] == UInt8(ascii: "'"),
            let close = input[(cursor + 1)...].firstIndex(of: input[cursor])
        else { return nil }
        return (cursor + 1)..<close
    }
}
