import ArgumentParser
import ImgToolKit

/// The operations of `imgtool convert IN OUT [OPERATION...]`, parsed in the order written into
/// the library's ``ImageOperation`` list (a `batch` job line's words go through the same parse).
///
/// Each operation is a flag with its value (`--crop 640x360+0+0`, `--rotate 90`, `--flip`); an
/// `--overlay FILE` is followed by its own placement (`--gravity`, `--offset X,Y`, `--opacity`,
/// `--overlay-width W|P%`, `--overlay-height H|P%`, `--tile`), which applies to it alone. `--filter` and `--linear` set how
/// every `--resize` filters; `--background` (an output option) fills what `--rotate` and `--pad`
/// uncover. Any other word is a usage error that names it.
enum OperationWords {
    /// Every operation word, for suggestions (`--rotat`: did you mean `--rotate`?).
    static let names: Set<String> = ImageOperation.words.union(InputArrangement.words)

    /// Parses `words` (``ImageOperation/parse(words:background:suggesting:)``).
    /// - Throws: `ValidationError` naming the option and the value.
    static func parse(_ words: [String], background: RGBAColor?) throws -> [ImageOperation] {
        do throws(ImgToolError) {
            return try ImageOperation.parse(words: words, background: background) { word in
                UsageSuggestions.nearest(to: word, among: names)
            }
        } catch {
            throw ValidationError(error.message)
        }
    }
}
