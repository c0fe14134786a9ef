import ArgumentParser
import ImgToolKit

/// `imgtool formats`: the formats imgtool reads and writes, from the codec registry.
struct FormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "List the image formats imgtool reads and writes.",
        discussion: """
            Inputs are recognised by their bytes, never by their names; an output's format \
            follows its extension, or --format. With --json, prints one JSON object per format.
            """
    )

    @Flag(help: "Print one JSON object per format.")
    var json = false

    func run() {
        for codec in CodecRegistry.standard.codecs {
            let can = codec.capabilities
            if json {
                let object: JSONValue = [
                    "format": .string(codec.format.rawValue),
                    "name": .string(codec.displayName),
                    "extensions": .array(codec.extensions.map(JSONValue.string)),
                    "read": .bool(can.contains(.read)),
                    "read_animation": .bool(can.contains(.readAnimation)),
                    "write": .bool(can.contains(.write)),
                    "write_animation": .bool(can.contains(.writeAnimation)),
                    "write_alpha": .bool(can.contains(.writeAlpha)),
                    "available": .bool(codec.isAvailable),
                    "runtime": codec.runtimeNote.map(JSONValue.string) ?? .null,
                ]
                Console.out(object.serialized)
            } else {
                var abilities: [String] = []
                if can.contains(.read) { abilities.append(can.contains(.readAnimation) ? "read (animated)" : "read") }
                if can.contains(.write) {
                    abilities.append(can.contains(.writeAnimation) ? "write (animated)" : "write (still)")
                }
                let extensions = codec.extensions.map { "." + $0 }.joined(separator: " ")
                let name = codec.format.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
                let note = codec.runtimeNote.map { " (\($0))" } ?? ""
                Console.out("\(name) \(abilities.joined(separator: ", ")); \(extensions); \(codec.displayName)\(note)")
            }
        }
    }
}
