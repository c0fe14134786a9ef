#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fonts one caption draws with: the font asked for, then, character by character, the
/// first fallback that has the character.
///
/// The font asked for is a file when one exists at that path, else a family name matched through
/// fontconfig (when libfontconfig is installed); without one, DejaVu Sans (fonts-dejavu-core).
/// Fallbacks, in order: DejaVu Sans, the Noto fonts of fonts-noto-core for the scripts they cover
/// (Arabic, Hebrew, Devanagari, Bengali, Thai ...), Droid Sans Fallback for Chinese, Japanese and
/// Korean (fonts-droid-fallback, 4 MB, where fonts-noto-cjk would be 90), Noto Color Emoji; then
/// any installed font fontconfig finds for the character. Characters shown as emoji by default
/// (and those followed by VS16, U+FE0F) look in the colour emoji font first. Fonts are read only
/// when a character needs them.
///
/// A one-shot object used inside one task, like the ``FontFace``s it holds.
final class FontSet {
    /// Debian's path of the default font.
    static let defaultFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// The colour emoji font (fonts-noto-color-emoji).
    static let emojiFontPath = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
    /// The fallbacks tried, in order, before fontconfig's.
    static let fallbackPaths: [String] =
        [defaultFontPath]
        + [
            "NotoSans-Regular", "NotoSansArabic-Regular", "NotoSansHebrew-Regular", "NotoSansDevanagari-Regular",
            "NotoSansBengali-Regular", "NotoSansGurmukhi-Regular", "NotoSansGujarati-Regular",
            "NotoSansTamil-Regular", "NotoSansTelugu-Regular", "NotoSansKannada-Regular",
            "NotoSansMalayalam-Regular", "NotoSansSinhala-Regular", "NotoSansThai-Regular", "NotoSansLao-Regular",
            "NotoSansKhmer-Regular", "NotoSansMyanmar-Regular", "NotoSansArmenian-Regular",
            "NotoSansGeorgian-Regular", "NotoSansEthiopic-Regular", "NotoSansMath-Regular",
            "NotoSansSymbols-Regular", "NotoSansSymbols2-Regular",
        ].map { "/usr/share/fonts/truetype/noto/\($0).ttf" }
        + ["/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", emojiFontPath]
    /// Largest font file read, in bytes.
    static let maxFontBytes = 256 << 20

    /// The fonts read so far; the first is the one asked for.
    private(set) var faces: [FontFace] = []
    private var files: [String] = []
    private var pending: [(path: String, index: Int)]
    private var fontconfigTried: Set<UInt32> = []
    private let size: Double

    /// Reads the font `font` names (`nil`: the default) at `size` pixels.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the font when it is neither a file nor an
    ///   installed family (a usage error); `corrupt` when the file is not a font FreeType reads.
    init(font: String?, size: Double) throws(ImgToolError) {
        self.size = size
        let primary = try Self.locate(font)
        pending = Self.fallbackPaths.filter { $0 != primary.path }.map { ($0, 0) }
        try add(path: primary.path, index: primary.index, name: font ?? primary.path)
    }

    /// The file and face `font` names.
    static func locate(_ font: String?) throws(ImgToolError) -> (path: String, index: Int) {
        guard let font else {
            if access(defaultFontPath, R_OK) == 0 { return (defaultFontPath, 0) }
            if let found = TextUnicode.fontconfigFamily("DejaVu Sans") { return found }
            throw ImgToolError(
                .invalidArgument,
                "--text: no default font (\(defaultFontPath)): install fonts-dejavu-core or give --font FILE")
        }
        guard !font.isEmpty else { throw ImgToolError(.invalidArgument, "--font needs a file or a family name") }
        var status = stat()
        if stat(font, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw ImgToolError(.invalidArgument, "--font \(font): not a file")
            }
            return (font, 0)
        }
        if font.contains("/") {
            throw ImgToolError(.invalidArgument, "--font \(font): no such file")
        }
        if let found = TextUnicode.fontconfigFamily(font) { return found }
        throw ImgToolError(
            .invalidArgument,
            "--font \(font): no such file, and no installed font family of that name"
                + (TextUnicode.hasFontconfig ? "" : " (fontconfig is not installed: give a font file)"))
    }

    private func add(path: String, index: Int, name: String) throws(ImgToolError) {
        let bytes = try FileBytes.read(path, maxBytes: Self.maxFontBytes)
        let face = try FontFace(bytes: bytes, index: index, name: name)
        try face.setSize(size)
        faces.append(face)
        files.append(path)
    }

    /// The index in ``faces`` of the first font with `scalar`, reading fallbacks as needed;
    /// colour fonts first when `color`. `nil` when no font has it.
    func face(for scalar: Unicode.Scalar, color: Bool) -> Int? {
        if color, let emoji = colorFace(for: scalar) { return emoji }
        if let found = faces.indices.first(where: { faces[$0].hasGlyph(scalar) }) { return found }
        // Unassigned and private-use characters: only the fonts read so far may have them.
        switch scalar.properties.generalCategory {
        case .unassigned, .privateUse, .surrogate: return nil
        default: break
        }
        while !pending.isEmpty {
            let next = pending.removeFirst()
            guard access(next.path, R_OK) == 0, (try? add(path: next.path, index: next.index, name: next.path)) != nil
            else { continue }
            if faces[faces.count - 1].hasGlyph(scalar) { return faces.count - 1 }
        }
        // Whatever else is installed, through fontconfig, once per character.
        guard fontconfigTried.insert(scalar.value).inserted,
            let found = TextUnicode.fontconfigCovering(scalar.value, color: color), !files.contains(found.path),
            (try? add(path: found.path, index: found.index, name: found.path)) != nil,
            faces[faces.count - 1].hasGlyph(scalar)
        else { return nil }
        return faces.count - 1
    }

    /// The colour font with `scalar`, reading Noto Color Emoji first if needed.
    private func colorFace(for scalar: Unicode.Scalar) -> Int? {
        if let found = faces.indices.first(where: { faces[$0].isColor && faces[$0].hasGlyph(scalar) }) {
            return found
        }
        guard let at = pending.firstIndex(where: { $0.path == Self.emojiFontPath }) else { return nil }
        let emoji = pending.remove(at: at)
        guard access(emoji.path, R_OK) == 0, (try? add(path: emoji.path, index: 0, name: emoji.path)) != nil,
            faces[faces.count - 1].hasGlyph(scalar)
        else { return nil }
        return faces.count - 1
    }
}
