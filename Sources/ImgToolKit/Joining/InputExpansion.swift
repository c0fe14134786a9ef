import Foundation

/// What an input that names many images stands for: a folder (its images in natural order) or
/// a printf pattern (`f-%03d.png`: the numbered files from the lowest present, consecutive).
///
/// Anything else (a file, a URL, `-`) stands for itself. A name that exists as a file is that
/// file even when it looks like a pattern.
public enum InputExpansion {
    /// The inputs `text` stands for, in order.
    /// - Parameters:
    ///   - text: the input as typed.
    ///   - registry: the codecs whose extensions a folder's images have. Default ``CodecRegistry/standard``.
    /// - Returns: `[text]`, a folder's images (by natural order of their names: `frame2` before
    ///   `frame10`; hidden files and other extensions left out), or a pattern's files.
    /// - Throws: ``ImgToolError`` naming `text`: `notFound` for a folder without images or a
    ///   pattern no file matches, `unreadable` for a folder that cannot be listed,
    ///   `invalidArgument` for a pattern with more than one number or a number in a folder's name.
    public static func expand(_ text: String, registry: CodecRegistry = .standard) throws(ImgToolError) -> [String] {
        guard text != "-", ImageInput.scheme(of: text) == nil else { return [text] }
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: text, isDirectory: &isFolder)
        if exists && isFolder.boolValue { return try folder(text, registry: registry) }
        if !exists, let pattern = try NumberPattern(text) { return try pattern.files(named: text) }
        return [text]
    }

    /// Whether `text` names a folder or is a printf pattern (and no file of that name exists).
    public static func namesMany(_ text: String) -> Bool {
        guard text != "-", ImageInput.scheme(of: text) == nil else { return false }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: text, isDirectory: &isFolder) { return isFolder.boolValue }
        return (try? NumberPattern(text)) != nil
    }

    private static func folder(_ path: String, registry: CodecRegistry) throws(ImgToolError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw ImgToolError(.unreadable, "the folder cannot be listed", input: path, cause: "\(error)")
        }
        let extensions = Set(
            registry.codecs.filter { $0.capabilities.contains(.read) }.flatMap(\.extensions).map { $0.lowercased() })
        let images = names.filter { name in
            guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
            return extensions.contains(name[name.index(after: dot)...].lowercased())
        }
        guard !images.isEmpty else {
            throw ImgToolError(
                .notFound,
                "the folder holds no image (\(extensions.sorted().map { "." + $0 }.joined(separator: ", ")))",
                input: path)
        }
        let separator = path.hasSuffix("/") ? "" : "/"
        return images.sorted(by: naturallyBefore).map { path + separator + $0 }
    }

    /// Whether `a` comes before `b` in natural order: runs of digits compare as numbers
    /// (`frame2` before `frame10`), the rest by Unicode scalars; equal by that, by their text.
    public static func naturallyBefore(_ a: String, _ b: String) -> Bool {
        let (left, right) = (runs(of: a), runs(of: b))
        for (x, y) in zip(left, right) where x != y {
            switch (
                x.first?.isASCII == true && x.first?.isNumber == true,
                y.first?.isNumber == true && y.first?.isASCII == true
            ) {
            case (true, true):
                let (p, q) = (x.drop { $0 == "0" }, y.drop { $0 == "0" })
                if p.count != q.count { return p.count < q.count }
                if p != q { return p.unicodeScalars.lexicographicallyPrecedes(q.unicodeScalars) }
                if x.count != y.count { return x.count > y.count }  // 007 before 7: more zeros first
            default:
                return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars)
            }
        }
        if left.count != right.count { return left.count < right.count }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }

    /// `text` cut into runs of ASCII digits and runs of anything else.
    private static func runs(of text: String) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if next < text.endIndex, isDigit(text[index]) != isDigit(text[next]) {
                result.append(text[start..<next])
                start = next
            }
            index = next
        }
        if start < text.endIndex { result.append(text[start...]) }
        return result
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }
}

/// A printf pattern with one number: `f-%03d.png`, `%d.gif`; `%%` is a literal `%`.
struct NumberPattern {
    let folder: String
    let prefix: String
    let suffix: String
    /// The `0N` of `%0Nd`: at least this many digits, zero-padded; 0 for `%d`.
    let width: Int

    /// The pattern in `text`, or `nil` when it has no `%d`-like number.
    /// - Throws: ``ImgToolError`` `invalidArgument` for two numbers or a number in the folder's name.
    init?(_ text: String) throws(ImgToolError) {
        let slash = text.lastIndex(of: "/")
        let folderPart = slash.map { String(text[...$0]) } ?? ""
        let name = slash.map { String(text[text.index(after: $0)...]) } ?? text
        var prefix = ""
        var suffix = ""
        var width: Int?
        var characters = name[...]
        while let character = characters.popFirst() {
            guard character == "%" else {
                if width == nil { prefix.append(character) } else { suffix.append(character) }
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                if width == nil { prefix.append("%") } else { suffix.append("%") }
                continue
            }
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            guard characters.dropFirst(digits.count).first == "d", digits.count <= 2 else {
                if width == nil { prefix.append(character) } else { suffix.append(character) }
                continue
            }
            guard width == nil else {
                throw ImgToolError(.invalidArgument, "a pattern takes one number (%d or %03d), not two", input: text)
            }
            width = Int(digits) ?? 0
            characters = characters.dropFirst(digits.count + 1)
        }
        guard let width else { return nil }
        if Self.hasNumber(folderPart) {
            throw ImgToolError(
                .invalidArgument, "a pattern's number goes in the file name, not the folder's", input: text)
        }
        folder = folderPart
        self.prefix = prefix
        self.suffix = suffix
        self.width = width
    }

    private static func hasNumber(_ text: String) -> Bool {
        (try? NumberPattern(String(text.replacingOccurrences(of: "/", with: "_")))) != nil
    }

    /// The name of number `number`.
    func name(_ number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits + suffix
    }

    /// The files of consecutive numbers from the lowest present.
    /// - Throws: ``ImgToolError`` `notFound` naming `text` when no file matches, `unreadable`
    ///   when the folder cannot be listed.
    func files(named text: String) throws(ImgToolError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)
        } catch {
            throw ImgToolError(.unreadable, "the pattern's folder cannot be listed", input: text, cause: "\(error)")
        }
        let present = Set(names)
        let numbers = names.compactMap { candidate -> Int? in
            guard candidate.count > prefix.count + suffix.count, candidate.hasPrefix(prefix),
                candidate.hasSuffix(suffix)
            else { return nil }
            let middle = candidate.dropFirst(prefix.count).dropLast(suffix.count)
            guard middle.allSatisfy({ $0.isASCII && $0.isNumber }), middle.count <= 9, let number = Int(middle),
                name(number) == candidate
            else { return nil }
            return number
        }
        guard let lowest = numbers.min() else {
            throw ImgToolError(.notFound, "no file matches the pattern", input: text)
        }
        var files: [String] = []
        var number = lowest
        while present.contains(name(number)) {
            files.append(folder + name(number))
            number += 1
        }
        return files
    }
}
