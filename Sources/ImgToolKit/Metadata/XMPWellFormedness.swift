extension XMPPacket {
    /// Why the packet cannot be parsed as XML, in a few words (`an attribute value is not closed
    /// (byte 312)`); `nil` when it can.
    ///
    /// The packet must hold one well-formed element, as XML 1.0 and XML namespaces say (a UTF-8
    /// byte-order mark first and NUL padding last are allowed; bytes that are not UTF-8 are taken
    /// as Latin-1, as Adobe's XMP Toolkit and ExifTool read them, since only the markup matters): every tag closed and closed in
    /// order, attribute values quoted and closed, no attribute twice, every `&` a reference,
    /// comments, CDATA sections and processing instructions ended, nothing but white space and
    /// those outside the element, and every prefix bound by an `xmlns:` declaration in scope. A
    /// packet that fails cannot be read by XMP tools, and the location properties in it cannot be
    /// found by their namespace, so writers leave it out (``ImageWriteOptions/MetadataChoice/keep``).
    public var parseProblem: String? {
        var checker = XMPWellFormedness(bytes)
        return checker.problem()
    }
}

/// The XML well-formedness check behind ``XMPPacket/parseProblem``: one pass over the bytes,
/// with a stack of open elements and the prefixes each binds.
private struct XMPWellFormedness {
    private let input: [UInt8]
    private var end: Int
    private var index = 0
    /// The open elements: their names and the prefixes they bind.
    private var open: [(name: ArraySlice<UInt8>, prefixes: [ArraySlice<UInt8>])] = []

    init(_ bytes: [UInt8]) {
        input = bytes
        end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func problem() -> String? {
        var rootSeen = false
        while index < end {
            let byte = input[index]
            if byte != UInt8(ascii: "<") {
                if open.isEmpty, !Self.isSpace(byte) {
                    return "text outside the root element (byte \(index))"
                }
                if byte == UInt8(ascii: "&"), let problem = reference() { return problem }
                index += 1
                continue
            }
            if starts(with: "<!--") {
                guard skip(past: "-->") else { return "a comment is not closed (byte \(index))" }
            } else if starts(with: "<?") {
                guard skip(past: "?>") else { return "a processing instruction is not closed (byte \(index))" }
            } else if starts(with: "<![CDATA[") {
                guard !open.isEmpty else { return "a CDATA section outside the root element (byte \(index))" }
                guard skip(past: "]]>") else { return "a CDATA section is not closed (byte \(index))" }
            } else if starts(with: "<!") {
                return "a document type declaration, which XMP does not allow (byte \(index))"
            } else if starts(with: "</") {
                if let problem = endTag() { return problem }
            } else {
                if open.isEmpty, rootSeen { return "a second root element (byte \(index))" }
                rootSeen = true
                if let problem = startTag() { return problem }
            }
        }
        if let last = open.last { return "the element <\(Self.text(last.name))> is not closed" }
        return rootSeen ? nil : "it holds no element"
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= end else { return false }
        return text.withUTF8Buffer { input[index..<index + count].elementsEqual($0) }
    }

    /// Moves past the next `close`; `false` when there is none.
    private mutating func skip(past close: StaticString) -> Bool {
        let pattern = close.withUTF8Buffer { Array($0) }
        var at = index + 2
        while at + pattern.count <= end {
            if input[at..<at + pattern.count].elementsEqual(pattern) {
                index = at + pattern.count
                return true
            }
            at += 1
        }
        return false
    }

    /// Checks the reference at `index` (`&name;`, `&#N;`, `&#xH;`) and leaves `index` on its `&`.
    private func reference() -> String? {
        var at = index + 1
        if at < end, input[at] == UInt8(ascii: "#") {
            at += 1
            let hex = at < end && input[at] == UInt8(ascii: "x")
            if hex { at += 1 }
            let digits = at
            while at < end, Self.isDigit(input[at], hex: hex) { at += 1 }
            if at > digits, at < end, input[at] == UInt8(ascii: ";") { return nil }
        } else if let nameEnd = name(at: at), nameEnd < end, input[nameEnd] == UInt8(ascii: ";") {
            return nil
        }
        return "an & that starts no reference (byte \(index))"
    }

    /// The end of an XML name starting at `position`, if one does.
    private func name(at position: Int) -> Int? {
        guard position < end, Self.isNameStart(input[position]) else { return nil }
        var at = position + 1
        while at < end,
            Self.isNameStart(input[at]) || Self.isDigit(input[at], hex: false) || input[at] == 0x2D
                || input[at] == 0x2E
        {
            at += 1
        }
        return at
    }

    private mutating func skipSpace() {
        while index < end, Self.isSpace(input[index]) { index += 1 }
    }

    private mutating func endTag() -> String? {
        let start = index
        guard let nameEnd = name(at: index + 2) else { return "an end tag without a name (byte \(start))" }
        let closing = input[(index + 2)..<nameEnd]
        index = nameEnd
        skipSpace()
        guard index < end, input[index] == UInt8(ascii: ">") else { return "an end tag is not closed (byte \(start))" }
        index += 1
        guard let last = open.popLast() else { return "</\(Self.text(closing))> closes nothing (byte \(start))" }
        guard last.name.elementsEqual(closing) else {
            return "</\(Self.text(closing))> closes <\(Self.text(last.name))> (byte \(start))"
        }
        return nil
    }

    private mutating func startTag() -> String? {
        let start = index
        guard let nameEnd = name(at: index + 1) else { return "a < that starts no tag (byte \(start))" }
        let elementName = input[(index + 1)..<nameEnd]
        index = nameEnd
        var attributes: [ArraySlice<UInt8>] = []
        var bound: [ArraySlice<UInt8>] = []
        while true {
            let before = index
            skipSpace()
            guard index < end else { return "the tag <\(Self.text(elementName))> is not closed (byte \(start))" }
            if input[index] == UInt8(ascii: ">") || starts(with: "/>") {
                let empty = input[index] == UInt8(ascii: "/")
                index += empty ? 2 : 1
                open.append((elementName, bound))
                let unbound = ([elementName] + attributes).first { !isBound($0) }
                if let unbound {
                    return "the prefix of \(Self.text(unbound)) is not bound to a namespace (byte \(start))"
                }
                if empty { open.removeLast() }
                return nil
            }
            guard index > before, let attributeEnd = name(at: index) else {
                return "the tag <\(Self.text(elementName))> is malformed (byte \(index))"
            }
            let attribute = input[index..<attributeEnd]
            guard !attributes.contains(where: { $0.elementsEqual(attribute) }) else {
                return "the attribute \(Self.text(attribute)) appears twice (byte \(index))"
            }
            index = attributeEnd
            skipSpace()
            guard index < end, input[index] == UInt8(ascii: "=") else {
                return "the attribute \(Self.text(attribute)) has no value (byte \(index))"
            }
            index += 1
            skipSpace()
            guard index < end, input[index] == UInt8(ascii: "\"") || input[index] == UInt8(ascii: "'") else {
                return "the value of \(Self.text(attribute)) is not quoted (byte \(index))"
            }
            let quote = input[index]
            let valueStart = index
            index += 1
            while index < end, input[index] != quote {
                if input[index] == UInt8(ascii: "<") {
                    return "the value of \(Self.text(attribute)) is not closed (byte \(valueStart))"
                }
                if input[index] == UInt8(ascii: "&"), let problem = reference() { return problem }
                index += 1
            }
            guard index < end else { return "the value of \(Self.text(attribute)) is not closed (byte \(valueStart))" }
            index += 1
            let xmlns = Array("xmlns:".utf8)
            if attribute.starts(with: xmlns) {
                bound.append(attribute.dropFirst(xmlns.count))
            } else if !attribute.elementsEqual("xmlns".utf8) {
                attributes.append(attribute)
            }
        }
    }

    /// Whether `name`'s prefix, if it has one, is `xml` or bound by an open element (this one included).
    private func isBound(_ name: ArraySlice<UInt8>) -> Bool {
        guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let prefix = name[..<colon]
        if prefix.elementsEqual("xml".utf8) { return true }
        return open.contains { $0.prefixes.contains { $0.elementsEqual(prefix) } }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(60), as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), 0x80...0xFF:
            true
        default: false
        }
    }

    private static func isDigit(_ byte: UInt8, hex: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): hex
        default: false
        }
    }
}
