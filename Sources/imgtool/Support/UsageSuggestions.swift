import ArgumentParser
import Foundation

/// Unknown commands and options, found before argument-parser parses, with the nearest known
/// name suggested (`Did you mean '--quality'?`), for every command alike.
///
/// argument-parser suggests the nearest option itself, but only after the command's `validate()`
/// has passed (so `resize --widht 50` reported the missing width instead), never for a word that
/// `convert`'s operations capture (`--qualty` became an unknown operation), and never for a
/// subcommand (`imgtool convrt a b` was "3 unexpected arguments"). This check runs when parsing
/// fails, before the error is reported, and knows every name: the commands' options as
/// argument-parser lists them, and `convert`'s operation words.
enum UsageSuggestions {
    /// A command or option that does not exist: the message, and the command whose usage is shown.
    struct UnknownName: Error, CustomStringConvertible {
        var message: String
        /// The subcommand the option was given to; `nil` for an unknown command.
        var command: ParsableCommand.Type?
        var description: String { message }
    }

    /// Options every command takes, which argument-parser adds itself.
    static let builtInOptions: Set<String> = [
        "--help", "--version", "--experimental-dump-help", "--generate-completion-script",
    ]

    /// Throws ``UnknownName`` for the first unknown subcommand or long option in `arguments` (the
    /// words after `imgtool`); anything after `--` is left alone.
    static func check(_ arguments: [String]) throws(UnknownName) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return }
        let subcommands = ImgTool.configuration.subcommands
        let names = subcommands.map { $0._commandName } + ["help"]
        guard let command = subcommands.first(where: { $0._commandName == first }) else {
            if first == "help" { return }
            var message = "Unknown command '\(first)'."
            if let nearest = nearest(to: first, among: names) { message += " Did you mean '\(nearest)'?" }
            message += " The commands are \(names.filter { $0 != "help" }.joined(separator: ", "))."
            throw UnknownName(message: message, command: nil)
        }
        let known = builtInOptions.union(longOptions(of: command))
        for word in arguments.dropFirst() {
            if word == "--" { break }
            guard word.hasPrefix("--"), word.count > 2 else { continue }
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            guard !known.contains(name) else { continue }
            var message = "Unknown option '\(name)'."
            if let nearest = nearest(to: name, among: known.subtracting(builtInOptions)) {
                message += " Did you mean '\(nearest)'?"
            }
            throw UnknownName(message: message, command: command)
        }
    }

    /// The long options of `command` (with `--`), hidden aliases included, as argument-parser
    /// describes them, and the operation words of a command that takes them.
    static func longOptions(of command: ParsableCommand.Type) -> Set<String> {
        var names: Set<String> = []
        if command == ConvertCommand.self { names.formUnion(OperationWords.names) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any],
            let description = object["command"] as? [String: Any],
            let arguments = description["arguments"] as? [[String: Any]]
        else { return names }
        for argument in arguments {
            for case let name as [String: Any] in argument["names"] as? [Any] ?? [] {
                if name["kind"] as? String == "long", let text = name["name"] as? String { names.insert("--" + text) }
            }
        }
        return names
    }

    /// The candidate nearest to `word`: the only one it is a prefix of, or the one at the
    /// smallest edit distance when that is small for the word's length (1 for up to 5
    /// characters, 2 up to 8, else 3); ties go to the first in alphabetical order.
    static func nearest(to word: String, among candidates: some Collection<String>) -> String? {
        let sorted = candidates.sorted()
        let extending = sorted.filter { $0.hasPrefix(word) }
        if extending.count == 1 { return extending[0] }
        let limit = word.count <= 5 ? 1 : word.count <= 8 ? 2 : 3
        var best: (name: String, distance: Int)?
        for candidate in sorted {
            let distance = editDistance(word, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The Levenshtein distance between `a` and `b`: single-character insertions, deletions and
    /// substitutions, with a swap of two neighbours counted as one (`widht` is one from `width`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // Three rows of the optimal string alignment distance.
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }

    /// Prints a usage error as argument-parser prints its own, with the usage of `command` under
    /// its full name (`imgtool convert ...`, or the root's), and exits with 64.
    static func exit(message: String, command: ParsableCommand.Type?) -> Never {
        var lines = ["Error: " + message]
        if let command {
            lines.append("Usage: " + ImgTool.usageString(for: command))
            lines.append("  See 'imgtool \(command._commandName) --help' for more information.")
        } else {
            lines.append("Usage: " + ImgTool.usageString())
            lines.append("  See 'imgtool --help' for more information.")
        }
        Console.error(lines.joined(separator: "\n"))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }
}
